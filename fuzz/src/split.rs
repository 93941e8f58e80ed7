//! Cutting an input into pieces at places derived from the input itself.

/// FNV-1a, to derive split points from the input itself (so that seed files are plain
/// recorded bodies, with no control prefix).
fn fnv(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `data` cut at 1 to 8 places derived from its contents (sorted, possibly repeated: an
/// empty piece is a valid read too).
pub fn pieces(data: &[u8]) -> Vec<&[u8]> {
    cut(data, 8)
}

/// `data` cut at 1 to `max` places derived from its contents.
pub fn cut(data: &[u8], max: u64) -> Vec<&[u8]> {
    let mut h = fnv(data);
    let n = 1 + (h % max) as usize;
    let mut cuts = Vec::with_capacity(n + 2);
    for _ in 0..n {
        h = h.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5bd1_e995;
        cuts.push((h % (data.len() as u64 + 1)) as usize);
    }
    cuts.sort_unstable();
    let mut out = Vec::with_capacity(n + 1);
    let mut at = 0;
    for c in cuts {
        out.push(&data[at..c]);
        at = c;
    }
    out.push(&data[at..]);
    out
}

/// `text` cut at places derived from its contents, each moved back to a char boundary.
pub fn str_pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut at = 0;
    for piece in pieces(text.as_bytes()) {
        let mut end = at + piece.len();
        let end_ok = loop {
            if text.is_char_boundary(end) {
                break end;
            }
            end -= 1;
        };
        if end_ok >= at {
            out.push(&text[at..end_ok]);
            at = end_ok;
        }
    }
    out.push(&text[at..]);
    out
}

/// `text` one char at a time.
pub fn chars(text: &str) -> Vec<&str> {
    text.char_indices()
        .map(|(i, c)| &text[i..i + c.len_utf8()])
        .collect()
}

/// `text` with every synthetic tool-call id (`call_` and 16 hex digits, drawn at random by the
/// decoders for a call the server gave no usable id) replaced by `call_<synthetic>`, so that
/// two decodings of one input compare equal.
pub fn without_synthetic_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("call_") {
        out.push_str(&rest[..at + 5]);
        rest = &rest[at + 5..];
        let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex == 16 {
            out.push_str("<synthetic>");
            rest = &rest[16..];
        }
    }
    out.push_str(rest);
    out
}
