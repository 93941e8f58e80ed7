//! [`Filter`]: which of a server's tools an [`McpToolset`](super::McpToolset) offers.
//!
//! Both lists hold the tools' names **on the server** (`files.read`, not the mapped
//! `files_read`, nor with the set's prefix): the one name that stays the same whatever the
//! set's options, so a filter means the same thing at every listing. The filter is applied
//! to each listing, the first and every [`refreshed`](super::McpToolset::refreshed) one:
//!
//! - without [`only`](super::McpToolsetBuilder::only), every tool is offered, including tools
//!   the server adds later, except those [`exclude`](super::McpToolsetBuilder::exclude)d;
//! - with `only`, just the tools it names are offered: one it names that the server does not
//!   list yet joins the set when a refresh finds it, and one it does not name never does;
//! - a name in both lists is excluded.

use std::collections::HashSet;

/// An allow-list (when given) and a deny-list of server tool names.
#[derive(Clone, Debug, Default)]
pub(super) struct Filter {
    only: Option<HashSet<String>>,
    exclude: HashSet<String>,
}

impl Filter {
    /// Adds names to the allow-list (made by the first call).
    pub(super) fn only(&mut self, names: impl IntoIterator<Item = String>) {
        self.only.get_or_insert_with(HashSet::new).extend(names);
    }

    /// Adds names to the deny-list.
    pub(super) fn exclude(&mut self, names: impl IntoIterator<Item = String>) {
        self.exclude.extend(names);
    }

    /// Whether the server's tool `remote` is offered.
    pub(super) fn admits(&self, remote: &str) -> bool {
        !self.exclude.contains(remote)
            && self.only.as_ref().is_none_or(|only| only.contains(remote))
    }

    /// Names of the allow-list that are not in `listed` (they may be listed later).
    pub(super) fn missing<'a>(&'a self, listed: &HashSet<&str>) -> Vec<&'a str> {
        let mut missing: Vec<&str> = self
            .only
            .iter()
            .flatten()
            .map(String::as_str)
            .filter(|name| !listed.contains(name))
            .collect();
        missing.sort_unstable();
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn without_an_allow_list_every_tool_but_the_excluded_is_offered() {
        let mut filter = Filter::default();
        assert!(filter.admits("added_later"));
        filter.exclude(names(&["crash"]));
        assert!(!filter.admits("crash"));
        assert!(filter.admits("added_later"));
    }

    #[test]
    fn the_allow_list_grows_with_each_call_and_exclusion_wins() {
        let mut filter = Filter::default();
        filter.only(names(&["echo"]));
        filter.only(names(&["late_tool", "crash"]));
        filter.exclude(names(&["crash"]));
        assert!(filter.admits("echo"));
        assert!(filter.admits("late_tool"));
        assert!(!filter.admits("crash"));
        assert!(!filter.admits("weather"));
        let listed: HashSet<&str> = ["echo", "weather"].into();
        assert_eq!(filter.missing(&listed), ["crash", "late_tool"]);
    }
}
