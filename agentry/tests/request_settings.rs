//! Every request setting of an agent reaches the model's request, on every turn, whether the
//! run goes through middleware or not, with native tool calls and with ReAct.
//!
//! The two model-call paths once built their requests apart, and the middleware one dropped
//! `top_p` and the prompt cache: adding `ModelRetry` silently turned `.cache_prompt(true)` off.

use std::sync::{Arc, Mutex};

use agentry::middleware::{
    BeforeModel, Flow, Hook, Middleware, MiddlewareError, ModelRetry, RunCx,
};
use agentry::model::{ChatRequest, PromptCache};
use agentry::prelude::*;
use agentry::protocol::{ReactConfig, ToolProtocol};
use agentry::testing::FunctionModel;

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Adds numbers.
#[agent(tools(add))]
struct Adder;

/// A middleware with a `before_model` hook that changes nothing.
struct Looks;

impl Middleware<(), ()> for Looks {
    fn before_model<'a>(
        &'a self,
        _request: &'a mut BeforeModel,
        _cx: &'a RunCx<'a, (), ()>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        Hook::ready(Ok(Flow::Continue))
    }
}

#[derive(Clone, Copy, Debug)]
enum Through {
    Nothing,
    Retry,
    BeforeModel,
}

#[derive(Clone, Copy, Debug)]
enum Protocol {
    Native,
    React,
}

/// Runs an agent with every setting set, through `through`, and returns the requests the
/// model received.
async fn requests(through: Through, protocol: Protocol) -> Vec<ChatRequest> {
    let seen = Arc::new(Mutex::new(Vec::<ChatRequest>::new()));
    let log = Arc::clone(&seen);
    let model = FunctionModel::new(move |request: &ChatRequest| {
        let mut log = log.lock().unwrap();
        log.push(request.clone());
        match (protocol, log.len()) {
            (Protocol::Native, 1) => {
                FunctionModel::tool_call("add", serde_json::json!({"a": 2, "b": 3}))
            }
            (Protocol::Native, _) => FunctionModel::text("5"),
            (Protocol::React, 1) => FunctionModel::text(
                "Thought: add them.\nAction: add\nAction Input: {\"a\": 2, \"b\": 3}",
            ),
            (Protocol::React, _) => FunctionModel::text("Thought: done.\nFinal Answer: 5"),
        }
    });
    let builder = Adder::builder(model)
        .instructions("Add numbers.")
        .temperature(0.25)
        .top_p(0.5)
        .cache_prompt(true)
        .max_tokens(321)
        .parallel_tool_calls(false)
        .seed(42);
    let builder = match protocol {
        Protocol::Native => builder,
        Protocol::React => builder.protocol(ToolProtocol::React(ReactConfig::default())),
    };
    let builder = match through {
        Through::Nothing => builder,
        Through::Retry => builder.middleware(ModelRetry::new(2)),
        Through::BeforeModel => builder.middleware(Looks),
    };
    let agent = builder.build();
    let result = agent.run("What is 2 + 3?", ()).await.unwrap();
    assert_eq!(result.output, "5", "{through:?} {protocol:?}");
    let requests = seen.lock().unwrap().clone();
    assert_eq!(
        requests.len(),
        2,
        "{through:?} {protocol:?}: one tool round, then the answer"
    );
    requests
}

#[tokio::test]
async fn every_setting_reaches_every_request_on_every_path() {
    for protocol in [Protocol::Native, Protocol::React] {
        for through in [Through::Nothing, Through::Retry, Through::BeforeModel] {
            for (turn, request) in requests(through, protocol).await.iter().enumerate() {
                let at = format!("{through:?}, {protocol:?}, request {}", turn + 1);
                assert_eq!(request.temperature, Some(0.25), "temperature: {at}");
                assert_eq!(request.top_p, Some(0.5), "top_p: {at}");
                assert_eq!(
                    request.cache,
                    PromptCache::system_and_tools(),
                    "prompt cache: {at}"
                );
                assert_eq!(request.max_tokens, Some(321), "max_tokens: {at}");
                assert_eq!(request.seed, Some(42), "seed: {at}");
                match protocol {
                    Protocol::Native => {
                        assert_eq!(request.parallel_tool_calls, Some(false), "parallel: {at}");
                        assert_eq!(request.tools.len(), 1, "tools: {at}");
                    }
                    // ReAct sends the tools as text, so nothing tool-related goes out.
                    Protocol::React => {
                        assert_eq!(request.parallel_tool_calls, None, "parallel: {at}");
                        assert!(request.tools.is_empty(), "tools: {at}");
                    }
                }
            }
        }
    }
}
