//! [`BlockList`]: keywords and regular expressions that stop a run.

use std::fmt;

use regex::Regex;
use serde::Serialize;

use super::text::{strings_of, strings_of_arguments, texts_of};
use crate::guard::Verdict;
use crate::guard::traits::{
    InputGuardrail, OutputGuardrail, ToolInputGuardrail, ToolOutputGuardrail,
};
use crate::message::ToolCall;
use crate::tool::ToolOutput;

/// Blocks text that contains one of its keywords (case-insensitive, anywhere in the text) or
/// matches one of its regular expressions (the [`regex`] crate's syntax: linear time, no
/// backtracking, so a long input cannot stall the check).
///
/// ```
/// use agentry::guard::builtin::BlockList;
///
/// let list = BlockList::keywords(["drop table"])
///     .with_patterns([r"\b\d{3}-\d{2}-\d{4}\b"])
///     .unwrap();
/// assert_eq!(list.find("please DROP TABLE users").unwrap().to_string(), "the text contains `drop table`");
/// assert!(list.find("my ssn is 078-05-1120").is_some());
/// assert!(list.find("a harmless question").is_none());
/// ```
#[derive(Clone, Debug)]
pub struct BlockList {
    name: String,
    /// Each keyword in lower case, beside it as listed.
    keywords: Vec<(String, String)>,
    /// Each pattern compiled, beside it as written.
    patterns: Vec<(Regex, String)>,
}

/// What a [`BlockList`] found: its reason for blocking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listed {
    /// A keyword, as it was listed.
    Keyword(String),
    /// A pattern, as it was written.
    Pattern(String),
}

impl fmt::Display for Listed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Listed::Keyword(k) => write!(f, "the text contains `{k}`"),
            Listed::Pattern(p) => write!(f, "the text matches the blocked pattern `{p}`"),
        }
    }
}

impl BlockList {
    /// A list of keywords, matched without regard to case.
    pub fn keywords<I>(keywords: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        BlockList {
            name: "block_list".to_string(),
            keywords: Vec::new(),
            patterns: Vec::new(),
        }
        .with_keywords(keywords)
    }

    /// A list of regular expressions; `Err` names the first that does not compile.
    pub fn patterns<I>(patterns: I) -> Result<Self, regex::Error>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        BlockList::keywords(Vec::<String>::new()).with_patterns(patterns)
    }

    /// Adds keywords.
    pub fn with_keywords<I>(mut self, keywords: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        for keyword in keywords {
            let keyword = keyword.into();
            self.keywords.push((keyword.to_lowercase(), keyword));
        }
        self
    }

    /// Adds regular expressions; `Err` names the first that does not compile.
    pub fn with_patterns<I>(mut self, patterns: I) -> Result<Self, regex::Error>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        for pattern in patterns {
            let pattern = pattern.as_ref();
            self.patterns
                .push((Regex::new(pattern)?, pattern.to_string()));
        }
        Ok(self)
    }

    /// Names the guardrail (default `block_list`), as a block reports it.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// What `text` contains: the first keyword listed that it contains, else the first
    /// pattern that matches it.
    pub fn find(&self, text: &str) -> Option<Listed> {
        if !self.keywords.is_empty() {
            let lower = text.to_lowercase();
            if let Some((_, keyword)) = self
                .keywords
                .iter()
                .find(|(k, _)| lower.contains(k.as_str()))
            {
                return Some(Listed::Keyword(keyword.clone()));
            }
        }
        self.patterns
            .iter()
            .find(|(regex, _)| regex.is_match(text))
            .map(|(_, pattern)| Listed::Pattern(pattern.clone()))
    }

    fn verdict<V, S: AsRef<str>>(&self, texts: impl IntoIterator<Item = S>) -> Verdict<V, Listed> {
        texts
            .into_iter()
            .find_map(|text| self.find(text.as_ref()))
            .map_or(Verdict::Pass, Verdict::Block)
    }
}

impl<C: Sync> InputGuardrail<C> for BlockList {
    type Reason = Listed;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, message: &str, _: &C) -> Verdict<String, Listed> {
        self.verdict([message])
    }
}

impl<O: Serialize + Sync, C: Sync> OutputGuardrail<O, C> for BlockList {
    type Reason = Listed;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, output: &O, _: &C) -> Verdict<O, Listed> {
        self.verdict(strings_of(output))
    }
}

impl<C: Sync> ToolInputGuardrail<C> for BlockList {
    type Reason = Listed;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, call: &ToolCall, _: &C) -> Verdict<String, Listed> {
        self.verdict(strings_of_arguments(&call.arguments))
    }
}

impl<C: Sync> ToolOutputGuardrail<C> for BlockList {
    type Reason = Listed;

    fn name(&self) -> &str {
        &self.name
    }

    async fn check(&self, _: &ToolCall, output: &ToolOutput, _: &C) -> Verdict<ToolOutput, Listed> {
        self.verdict(texts_of(output))
    }
}
