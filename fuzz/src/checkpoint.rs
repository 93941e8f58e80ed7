//! A checkpoint document (any format version, upgraded by `Checkpoint::from_json`) prints
//! (`to_json`) as a document that reads back to the same checkpoint (printed again, equal).

use agentry::persist::Checkpoint;

/// Checks the property above on one input; panics when it does not hold.
pub fn check(data: &[u8]) {
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(checkpoint) = Checkpoint::from_json(&doc) else {
        return;
    };
    let printed = checkpoint.to_json();
    let back = Checkpoint::from_json(&printed)
        .unwrap_or_else(|e| panic!("a printed checkpoint does not read back: {e}\n{printed}"));
    assert_eq!(back.to_json(), printed, "printed, read, printed differs");
    let text = serde_json::to_string(&printed).unwrap();
    let reread: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(Checkpoint::from_json(&reread).unwrap().to_json(), printed);
}
