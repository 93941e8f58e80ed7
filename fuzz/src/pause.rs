//! A `Pause` read from JSON (any format version, upgraded on the way in) prints as JSON that
//! reads back to the same pause (printed again, equal).

use agentry::agent::Pause;
use serde_json::Value;

/// Checks the property above on one input; panics when it does not hold.
pub fn check(data: &[u8]) {
    let Ok(pause) = serde_json::from_slice::<Pause<Value>>(data) else {
        return;
    };
    let printed = serde_json::to_value(&pause).expect("a pause that was read prints");
    let back: Pause<Value> = serde_json::from_value(printed.clone())
        .unwrap_or_else(|e| panic!("a printed pause does not read back: {e}\n{printed}"));
    assert_eq!(
        serde_json::to_value(&back).unwrap(),
        printed,
        "printed, read, printed differs"
    );
    let text = serde_json::to_string(&pause).unwrap();
    let back: Pause<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), printed);
    let _ = pause.reviews().count();
    for call in &pause.calls {
        let _ = call.arguments();
    }
}
