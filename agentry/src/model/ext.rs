//! [`ChatModelExt`]: the bare-model API beyond one request, on any [`ChatModel`]: many
//! requests at once ([`batch`](ChatModelExt::batch)) and a model with tools attached
//! ([`bind_tools`](ChatModelExt::bind_tools)).

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;

use super::bind_tools::BoundTools;
use super::{ChatModel, ChatRequest, ChatResponse, ModelError};
use crate::agent::Toolset;

/// Many requests, and tools attached, for any [`ChatModel`] (imported by the prelude).
pub trait ChatModelExt: ChatModel {
    /// Sends every request, at most `max_concurrency` at once (at least one), and answers
    /// with one result per request, in the order of the requests: a failed request is its own
    /// `Err` and does not stop the others. Each request retries and is rate limited as the
    /// model's own settings say.
    ///
    /// ```
    /// use agentry::model::{ChatModelExt, ChatRequest};
    /// use agentry::prelude::*;
    /// use agentry::testing::FunctionModel;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let model = FunctionModel::new(|request: &ChatRequest| {
    ///     FunctionModel::text(format!("echo: {}", request.messages.last().unwrap().text()))
    /// });
    /// let questions = ["one", "two", "three"].map(|q| ChatRequest::new(vec![Message::user(q)]));
    /// let answers = model.batch(questions, 2).await;
    /// let texts: Vec<String> = answers.into_iter().map(|a| a.unwrap().message.text()).collect();
    /// assert_eq!(texts, ["echo: one", "echo: two", "echo: three"]);
    /// # }
    /// ```
    fn batch<'a, I>(
        &'a self,
        requests: I,
        max_concurrency: usize,
    ) -> BoxFuture<'a, Vec<Result<ChatResponse, ModelError>>>
    where
        I: IntoIterator<Item = ChatRequest>,
        I::IntoIter: Send + 'a,
    {
        Box::pin(
            futures::stream::iter(requests)
                .map(|request| self.invoke(request))
                .buffered(max_concurrency.max(1))
                .collect::<Vec<_>>(),
        )
    }

    /// Like [`batch`](Self::batch), but each result comes as soon as it is ready, with the
    /// index of its request.
    ///
    /// ```
    /// use agentry::model::{ChatModelExt, ChatRequest};
    /// use agentry::prelude::*;
    /// use agentry::testing::FunctionModel;
    /// use futures::StreamExt;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let model = FunctionModel::new(|_: &ChatRequest| FunctionModel::text("ok"));
    /// let requests = (0..4).map(|i| ChatRequest::new(vec![Message::user(i.to_string())]));
    /// let mut seen: Vec<usize> = model
    ///     .batch_as_completed(requests.collect::<Vec<_>>(), 2)
    ///     .map(|(index, answer)| { assert!(answer.is_ok()); index })
    ///     .collect()
    ///     .await;
    /// seen.sort();
    /// assert_eq!(seen, [0, 1, 2, 3]);
    /// # }
    /// ```
    fn batch_as_completed<'a, I>(
        &'a self,
        requests: I,
        max_concurrency: usize,
    ) -> BoxStream<'a, (usize, Result<ChatResponse, ModelError>)>
    where
        I: IntoIterator<Item = ChatRequest>,
        I::IntoIter: Send + 'a,
    {
        futures::stream::iter(requests.into_iter().enumerate())
            .map(|(index, request)| {
                let answer = self.invoke(request);
                async move { (index, answer.await) }
            })
            .buffer_unordered(max_concurrency.max(1))
            .boxed()
    }

    /// This model with the tools of `toolset` attached: every request offers them, and each
    /// answer comes back with its tool calls parsed into the toolset's typed calls (the enum
    /// [`#[agent]`](macro@crate::agent) generates), ready to dispatch with
    /// [`BoundTools::dispatch`] or to match on. No agent loop runs: the caller decides what to
    /// do with the calls.
    ///
    /// ```
    /// use agentry::model::{ChatModelExt, ToolChoice};
    /// use agentry::prelude::*;
    /// use agentry::testing::FunctionModel;
    ///
    /// /// Add two integers.
    /// ///
    /// /// # Arguments
    /// /// * `a` - The first addend.
    /// /// * `b` - The second addend.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// /// Does sums.
    /// #[agent(tools(add))]
    /// struct Math;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let model = FunctionModel::new(|_: &agentry::model::ChatRequest| {
    ///     FunctionModel::tool_call("add", serde_json::json!({"a": 2, "b": 3}))
    /// });
    /// let bound = model.bind_tools(Math).tool_choice(ToolChoice::Required);
    /// let answer = bound.invoke(vec![Message::user("2 + 3?")]).await.unwrap();
    /// let call = answer.calls.into_iter().next().unwrap();
    /// match call.parsed.as_ref().unwrap() {
    ///     MathToolCall::Add(args) => assert_eq!((args.a, args.b), (2, 3)),
    /// }
    /// let result = bound.dispatch(call, &ToolRuntime::new()).await;
    /// assert_eq!(result.text(), "5");
    /// # }
    /// ```
    fn bind_tools<T, C, S>(&self, toolset: T) -> BoundTools<'_, T, C, S, Self>
    where
        T: Toolset<C, S>,
    {
        BoundTools::new(self, toolset)
    }
}

impl<M: ChatModel + ?Sized> ChatModelExt for M {}
