//! `PartialJson`: any prefix, pushed in any pieces, never panics; the pieces give the same
//! final outcome as the whole; and a complete input serde_json accepts finishes with
//! serde_json's value.

use agentry::output::PartialJson;

fn run(pieces: &[&str]) -> Result<serde_json::Value, String> {
    let mut p = PartialJson::new();
    for piece in pieces {
        p.push(piece).map_err(|e| e.to_string())?;
        let _ = p.value();
    }
    p.finish().map_err(|e| e.to_string())
}

/// Checks the property above on one input; panics when it does not hold.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let whole = run(&[text]);
    assert_eq!(
        whole,
        run(&super::split::str_pieces(text)),
        "pieces differ from the whole"
    );
    if text.len() <= 1024 {
        assert_eq!(
            whole,
            run(&super::split::chars(text)),
            "char by char differs"
        );
    }
    // Every prefix (at char boundaries) on its own: no panic.
    for (i, _) in text.char_indices().step_by(7) {
        let _ = run(&[&text[..i]]);
    }
    if let Ok(expected) = serde_json::from_str::<serde_json::Value>(text) {
        assert_eq!(
            whole,
            Ok(expected),
            "serde_json accepts it with another value"
        );
    }
    // Prose around it: skipped, never a panic.
    let mut p = PartialJson::skipping_prose();
    for piece in super::split::str_pieces(text) {
        if p.push(piece).is_err() {
            break;
        }
    }
}
