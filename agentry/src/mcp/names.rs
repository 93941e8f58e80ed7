//! Tool names between an MCP server and a model.
//!
//! MCP allows names providers refuse (`files.read`, `db/query`); providers accept
//! `^[a-zA-Z0-9_-]{1,64}$`. A name outside that is mapped: each other character becomes `_`
//! and the name is cut to 64 characters (after the set's prefix). The tool keeps the
//! server's name, so calls go to the server under it; two names that map to one are a typed
//! error naming both, never a silent shadow.

use std::collections::HashMap;

use super::McpError;

/// The longest tool name providers accept.
pub(super) const MAX_NAME: usize = 64;

/// The name a model calls the server's tool `remote` by, `{prefix}_{remote}` with a
/// prefix; names already valid are kept as they are.
pub(super) fn model_name(prefix: Option<&str>, remote: &str) -> Result<String, McpError> {
    if remote.is_empty() {
        return Err(invalid(remote, "it is empty"));
    }
    let mut name = match prefix {
        Some(prefix) => {
            check_prefix(prefix)?;
            format!("{prefix}_")
        }
        None => String::new(),
    };
    let start = name.len();
    name.extend(remote.chars().map(|c| if allowed(c) { c } else { '_' }));
    // Every character is ASCII now: any byte index is a character boundary.
    name.truncate(MAX_NAME);
    if name[start..] != *remote {
        tracing::debug!(
            remote,
            name,
            "an MCP tool name is mapped to one a model can call"
        );
    }
    Ok(name)
}

/// The names given so far, to find two server names that map to one.
#[derive(Debug, Default)]
pub(super) struct Taken {
    by_model_name: HashMap<String, String>,
}

impl Taken {
    /// Takes `name` for the server's tool `remote`; [`McpError::MappedNameClash`] when
    /// another tool has it.
    pub(super) fn take(&mut self, name: &str, remote: &str) -> Result<(), McpError> {
        if let Some(first) = self.by_model_name.get(name) {
            return Err(McpError::MappedNameClash {
                name: name.to_string(),
                first: first.clone(),
                second: remote.to_string(),
            });
        }
        self.by_model_name
            .insert(name.to_string(), remote.to_string());
        Ok(())
    }
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The prefix is the caller's: it is checked, not mapped.
fn check_prefix(prefix: &str) -> Result<(), McpError> {
    if prefix.is_empty() {
        return Err(invalid(prefix, "the prefix is empty"));
    }
    if prefix.len() >= MAX_NAME {
        return Err(invalid(
            prefix,
            "the prefix leaves no room in 64 characters for the tool's name",
        ));
    }
    if !prefix.chars().all(allowed) {
        return Err(invalid(
            prefix,
            "the prefix may hold only ASCII letters, digits, `_` and `-`",
        ));
    }
    Ok(())
}

fn invalid(name: &str, reason: &str) -> McpError {
    McpError::InvalidToolName {
        name: name.chars().take(100).collect(),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_names_are_kept_and_others_mapped() {
        assert_eq!(
            model_name(None, "get_current_time").unwrap(),
            "get_current_time"
        );
        assert_eq!(model_name(None, "a-b").unwrap(), "a-b");
        assert_eq!(model_name(None, "files.read").unwrap(), "files_read");
        assert_eq!(model_name(None, "db/query v2").unwrap(), "db_query_v2");
        assert_eq!(model_name(None, "café").unwrap(), "caf_");
        assert_eq!(
            model_name(Some("fs"), "files.read").unwrap(),
            "fs_files_read"
        );
        assert_eq!(model_name(None, &"x".repeat(100)).unwrap().len(), 64);
        assert_eq!(model_name(Some("fs"), &"x".repeat(100)).unwrap().len(), 64);
    }

    #[test]
    fn an_empty_name_or_a_bad_prefix_is_refused() {
        for (prefix, name) in [
            (None, ""),
            (Some(""), "read"),
            (Some("my fs"), "read"),
            (Some(&*"p".repeat(64)), "read"),
        ] {
            assert!(
                matches!(
                    model_name(prefix, name),
                    Err(McpError::InvalidToolName { .. })
                ),
                "{prefix:?} {name}"
            );
        }
    }

    #[test]
    fn two_names_mapped_to_one_are_a_clash_naming_both() {
        let mut taken = Taken::default();
        taken.take("files_read", "files.read").unwrap();
        let err = taken.take("files_read", "files_read").unwrap_err();
        assert!(
            matches!(&err, McpError::MappedNameClash { name, first, second }
                if name == "files_read" && first == "files.read" && second == "files_read"),
            "{err}"
        );
        assert!(err.to_string().contains("`files.read`"), "{err}");
    }
}
