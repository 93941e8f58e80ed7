//! "Did you mean ..?" for a misspelt attribute key: the closest known key by edit distance.

/// The key of `keys` closest to `name`, when it is at most two edits away; else the one key
/// `name` abbreviates (`desc` for `description`: at least three letters, and only one key
/// starting so).
pub fn closest<'k>(name: &str, keys: &[&'k str]) -> Option<&'k str> {
    let near = keys
        .iter()
        .map(|k| (*k, distance(name, k)))
        .filter(|(_, d)| *d <= 2)
        .min_by_key(|(_, d)| *d)
        .map(|(k, _)| k);
    near.or_else(|| {
        let mut starting = keys
            .iter()
            .filter(|k| name.len() >= 3 && k.starts_with(name));
        match (starting.next(), starting.next()) {
            (Some(k), None) => Some(*k),
            _ => None,
        }
    })
}

/// The Levenshtein distance between `a` and `b`, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggests_within_two_edits() {
        let keys = ["name", "description", "timeout"];
        assert_eq!(closest("nmae", &keys), Some("name"));
        assert_eq!(closest("timout", &keys), Some("timeout"));
        assert_eq!(closest("colour", &keys), None);
        assert_eq!(closest("", &keys), None);
    }

    #[test]
    fn suggests_the_one_key_a_name_abbreviates() {
        let keys = ["name", "description", "timeout", "tools", "tool_choice"];
        assert_eq!(closest("desc", &keys), Some("description"));
        assert_eq!(closest("de", &keys), None, "too short to say");
        assert_eq!(
            closest("too", &keys),
            Some("tools"),
            "within two edits first"
        );
        assert_eq!(closest("tool_ch", &keys), Some("tool_choice"));
    }
}
