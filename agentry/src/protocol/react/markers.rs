//! Recognising the ReAct marker lines (`Thought:`, `Action:`, `Action Input:`, `Observation:`,
//! `Final Answer:`) in the shapes models write them.
//!
//! A marker is only recognised at the start of a line. Before the keyword the line may carry
//! spaces and markdown decoration (`*`, `_`, `#`, `>`); the keyword is matched case-insensitively
//! with any run of spaces between its words; before the colon there may be spaces, a step number
//! (`Action 1:`) and closing decoration (`**Action**:`), after it closing decoration
//! (`**Action:**`).

/// The keyword of a marker line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keyword {
    Thought,
    Action,
    ActionInput,
    Observation,
    FinalAnswer,
}

/// What a (possibly unfinished) line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// A marker; the content starts at this byte offset of the line.
    Marker(Keyword, usize),
    /// Plain text.
    Text,
    /// The line is unfinished and could still become a marker.
    Undecided,
}

static PATTERNS: [(&[&str], Keyword); 5] = [
    (&["final", "answer"], Keyword::FinalAnswer),
    (&["action", "input"], Keyword::ActionInput),
    (&["action"], Keyword::Action),
    (&["thought"], Keyword::Thought),
    (&["observation"], Keyword::Observation),
];

enum Match {
    Full(usize),
    Partial,
    No,
}

/// Whether the last line of a finished reply is the start of the stop sequence's
/// `Observation:` (`Obs`, `Observ`; three letters at least, so a one- or two-letter last line
/// stays text): a provider cut the reply inside it, so the line is not part of the input or
/// answer before it.
pub(crate) fn is_cut_stop_sequence(last_line: &str) -> bool {
    let line = last_line.trim();
    let marker = super::prompt::STOP_SEQUENCE.trim_start();
    line.len() >= 3
        && line.len() <= marker.len()
        && marker.as_bytes()[..line.len()].eq_ignore_ascii_case(line.as_bytes())
}

/// Classifies `line` (without its `\n`). `complete` says whether the line is finished; an
/// unfinished line that could still turn into a marker is [`LineKind::Undecided`].
pub(crate) fn classify(line: &str, complete: bool) -> LineKind {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'*' | b'_' | b'#' | b'>') {
        i += 1;
    }
    if i == b.len() {
        return if complete {
            LineKind::Text
        } else {
            LineKind::Undecided
        };
    }
    // Only the keywords starting with the line's first letter can match (most text lines
    // match none); `PATTERNS` keeps them grouped by that letter.
    let candidates = match b[i] | 0x20 {
        b'f' => &PATTERNS[0..1],
        b'a' => &PATTERNS[1..3],
        b't' => &PATTERNS[3..4],
        b'o' => &PATTERNS[4..5],
        _ => &[],
    };
    let mut partial = false;
    for &(words, keyword) in candidates {
        match match_words(b, i, words) {
            Match::Full(offset) => {
                // An unfinished line ending right at the colon (or in decoration after it) may
                // still grow closing decoration, which is not content.
                if !complete && offset == b.len() {
                    return LineKind::Undecided;
                }
                return LineKind::Marker(keyword, offset);
            }
            Match::Partial => partial = true,
            Match::No => {}
        }
    }
    if partial && !complete {
        LineKind::Undecided
    } else {
        LineKind::Text
    }
}

fn match_words(b: &[u8], start: usize, words: &[&str]) -> Match {
    let mut i = start;
    for (n, word) in words.iter().enumerate() {
        if n > 0 {
            let before = i;
            while i < b.len() && matches!(b[i], b' ' | b'\t') {
                i += 1;
            }
            if i == b.len() {
                return Match::Partial;
            }
            if i == before {
                return Match::No;
            }
        }
        let word = word.as_bytes();
        let rest = &b[i..];
        if rest.len() < word.len() {
            return if is_keyword(rest, &word[..rest.len()]) {
                Match::Partial
            } else {
                Match::No
            };
        }
        if !is_keyword(&rest[..word.len()], word) {
            return Match::No;
        }
        i += word.len();
    }
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'0'..=b'9' | b'*' | b'_') {
        i += 1;
    }
    if i == b.len() {
        return Match::Partial;
    }
    if b[i] != b':' {
        return Match::No;
    }
    i += 1;
    while i < b.len() && matches!(b[i], b'*' | b'_') {
        i += 1;
    }
    Match::Full(i)
}

/// Whether `text` is `keyword` (lower-case ASCII letters) in any case: `c | 0x20` is `k` only
/// for `k` and its upper-case form, and is cheaper than `eq_ignore_ascii_case`, which lowers
/// both sides byte by byte (the marker lines of a reply are most of its parse).
fn is_keyword(text: &[u8], keyword: &[u8]) -> bool {
    text.len() == keyword.len() && text.iter().zip(keyword).all(|(&c, &k)| c | 0x20 == k)
}

/// Incremental scanner for a balanced JSON object (string- and escape-aware).
#[derive(Clone, Debug, Default)]
pub(crate) struct ObjectScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl ObjectScan {
    /// Feeds bytes that continue the object (the first byte fed must be its `{`); returns the
    /// offset just past the closing `}` within `bytes` once the object is balanced.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Option<usize> {
        for (i, &c) in bytes.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if c == b'\\' {
                    self.escaped = true;
                } else if c == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match c {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_markers_and_prefixes_are_undecided() {
        assert_eq!(
            classify("**Action:** search", true),
            LineKind::Marker(Keyword::Action, 11)
        );
        assert_eq!(
            classify("ACTION  INPUT : {}", true),
            LineKind::Marker(Keyword::ActionInput, 15)
        );
        assert_eq!(classify("Actionable: no", true), LineKind::Text);
        assert_eq!(classify("Act", false), LineKind::Undecided);
        assert_eq!(classify("Act", true), LineKind::Text);
        assert_eq!(classify("Final Answer:", false), LineKind::Undecided);
        assert_eq!(classify("Hello", false), LineKind::Text);
        assert_eq!(
            classify("> fInAl AnSwEr: 4", true),
            LineKind::Marker(Keyword::FinalAnswer, 15)
        );
        // `@` (0x40) and `` ` `` (0x60) sit beside the letters: never a marker's first letter.
        assert_eq!(classify("@ction: search", true), LineKind::Text);
        assert_eq!(classify("Thoughts: many", true), LineKind::Text);
        assert_eq!(classify("OBS", false), LineKind::Undecided);
    }

    #[test]
    fn object_scan_ignores_braces_in_strings() {
        let s = br#"{"a": "}{\"", "b": [1, {"c": 2}]} tail"#;
        let end = ObjectScan::default().feed(s).unwrap();
        assert_eq!(&s[end..], b" tail");
    }
}
