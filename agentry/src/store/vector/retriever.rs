//! [`RetrieverTool`]: vector search in a [`Store`] as a tool an agent lists.

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{Metric, ScoredItem, VectorQuery};
use crate::agent::DynTool;
use crate::store::{Filter, Store};
use crate::tool::{
    Artifact, DefinitionRef, ToolCallError, ToolDefinition, ToolError, ToolOutput, ToolRuntime,
};

/// A tool that searches a [`Store`] by similarity: the model passes a `query` (and optionally
/// `k`), the tool returns the top `k` documents under its namespace with their scores as JSON
/// (`{"results": [{"namespace", "key", "score", "document"}]}`, best first). The
/// [`ScoredItem`]s are kept as the output's artifact.
///
/// The store needs a [`StoreIndex`](super::StoreIndex) to embed the query
/// ([`Store::with_index`]). Add the tool to an agent with
/// [`AgentBuilder::dyn_tool`](crate::agent::AgentBuilder::dyn_tool).
///
/// ```
/// use agentry::agent::DynTool;
/// use agentry::store::{RetrieverTool, StoreIndex};
/// use agentry::testing::HashEmbeddingModel;
/// use agentry::Store;
///
/// let store = Store::in_memory().with_index(StoreIndex::new(HashEmbeddingModel::new(64)));
/// let tool = RetrieverTool::new("search_docs", "Search the product manual.", store, &["manual"])
///     .k(3)
///     .max_k(10);
/// let definition = DynTool::<(), ()>::definition(&tool);
/// assert_eq!(definition.name, "search_docs");
/// assert_eq!(definition.parameters["required"][0], "query");
/// ```
#[derive(Clone, Debug)]
pub struct RetrieverTool {
    name: String,
    description: String,
    store: Store,
    namespace: Vec<String>,
    filters: Vec<Filter>,
    metric: Metric,
    k: usize,
    max_k: usize,
    definition: DefinitionRef,
}

impl RetrieverTool {
    /// A tool named `name`, described to the model by `description`, searching `store` under
    /// `namespace` (a prefix: every namespace below it too). Returns 4 documents by default,
    /// and at most 20 whatever `k` the model asks for.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        store: Store,
        namespace: &[&str],
    ) -> Self {
        let mut tool = RetrieverTool {
            name: name.into(),
            description: description.into(),
            store,
            namespace: namespace.iter().map(|s| s.to_string()).collect(),
            filters: Vec::new(),
            metric: Metric::Cosine,
            k: 4,
            max_k: 20,
            definition: ToolDefinition::new("", "", json!({}), false).into(),
        };
        tool.definition = tool.build_definition();
        tool
    }

    /// Documents returned when the model does not say (at least 1; raises `max_k` if needed).
    pub fn k(mut self, k: usize) -> Self {
        self.k = k.max(1);
        self.max_k = self.max_k.max(self.k);
        self.definition = self.build_definition();
        self
    }

    /// The most documents the model may ask for (1 to
    /// [`MAX_SEARCH_LIMIT`](crate::store::MAX_SEARCH_LIMIT)).
    pub fn max_k(mut self, max_k: usize) -> Self {
        self.max_k = max_k.clamp(1, crate::store::MAX_SEARCH_LIMIT);
        self.k = self.k.min(self.max_k);
        self.definition = self.build_definition();
        self
    }

    /// Only documents matching `filter` too (fixed by the program, not the model).
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filters.push(filter);
        self
    }

    /// Compares vectors with `metric` (cosine by default).
    pub fn metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    fn build_definition(&self) -> DefinitionRef {
        ToolDefinition::new(
            self.name.clone(),
            self.description.clone(),
            json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "What to look for, in words."
                    },
                    "k": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": self.max_k,
                        "description": format!("How many documents to return (default {}).", self.k)
                    }
                },
                "required": ["query"],
                "additionalProperties": false
            }),
            false,
        )
        .into()
    }

    fn invalid(&self, path: &str, message: impl Into<String>) -> ToolCallError {
        ToolCallError::InvalidArguments {
            tool: self.name.clone(),
            path: path.into(),
            message: message.into(),
        }
    }

    /// The query and `k` from the model's arguments.
    fn parse(&self, arguments: &Value) -> Result<(String, usize), ToolCallError> {
        let query = match arguments.get("query") {
            Some(Value::String(q)) if !q.trim().is_empty() => q.clone(),
            Some(Value::String(_)) => return Err(self.invalid("query", "the query is empty")),
            Some(_) => return Err(self.invalid("query", "expected a string")),
            None => return Err(self.invalid(".", "missing field `query`")),
        };
        let k = match arguments.get("k") {
            None | Some(Value::Null) => self.k,
            Some(v) => match v.as_u64() {
                Some(k) if (1..=self.max_k as u64).contains(&k) => k as usize,
                _ => {
                    return Err(self.invalid(
                        "k",
                        format!("expected an integer from 1 to {}, got {v}", self.max_k),
                    ));
                }
            },
        };
        Ok((query, k))
    }

    /// Runs the search the model asked for.
    async fn run(&self, arguments: Value) -> Result<ToolOutput, ToolCallError> {
        let (text, k) = self.parse(&arguments)?;
        let prefix: Vec<&str> = self.namespace.iter().map(String::as_str).collect();
        let mut query = VectorQuery::text(&prefix, text)
            .limit(k)
            .metric(self.metric);
        query.filters = self.filters.clone();
        let hits = self
            .store
            .vector_search(&query)
            .await
            .map_err(|e| ToolCallError::Failed {
                tool: self.name.clone(),
                source: ToolError::new(format!("the search failed: {e}")),
            })?;
        let results: Vec<Value> = hits
            .iter()
            .map(|h| {
                json!({
                    "namespace": h.namespace,
                    "key": h.key,
                    "score": h.score,
                    "document": h.value,
                })
            })
            .collect();
        let mut output = ToolOutput::text(json!({ "results": results }).to_string());
        output.artifact = Some(Artifact::new::<Vec<ScoredItem>>(hits));
        Ok(output)
    }
}

impl<C: 'static, S: 'static> DynTool<C, S> for RetrieverTool {
    fn definition(&self) -> DefinitionRef {
        self.definition.clone()
    }

    /// A search changes nothing: running it again is harmless.
    fn is_idempotent(&self) -> bool {
        true
    }

    fn call<'a>(
        &'a self,
        arguments: Value,
        _runtime: &'a ToolRuntime<C, S>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> {
        self.run(arguments).boxed()
    }
}
