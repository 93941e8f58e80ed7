//! Environment variables renamed with the crate (`AGENT_SDK_*` became `AGENTRY_*`).

/// The value of `name`, or of its pre-rename spelling `old` when only that one is set. Reading
/// the old name logs a deprecation warning.
pub(crate) fn var_renamed(name: &str, old: &str) -> Option<String> {
    pick(name, old, |key| std::env::var(key).ok())
}

fn pick(name: &str, old: &str, lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(value) = lookup(name) {
        return Some(value);
    }
    let value = lookup(old)?;
    tracing::warn!(
        "the environment variable {old} is deprecated since the crate was renamed `agentry`; \
         set {name} instead (the old name stops working in the next minor release)"
    );
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::pick;

    fn lookup<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        |key| {
            vars.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_new_name_wins_and_the_old_one_is_still_read() {
        assert_eq!(pick("NEW", "OLD", lookup(&[])), None);
        assert_eq!(
            pick("NEW", "OLD", lookup(&[("OLD", "1")])).as_deref(),
            Some("1")
        );
        let both = [("OLD", "1"), ("NEW", "0")];
        assert_eq!(pick("NEW", "OLD", lookup(&both)).as_deref(), Some("0"));
    }
}
