//! How the driver runs an agent's middleware list, hook by hook, in LangChain's order.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::Either;

use super::context::RunCx;
use super::next::{EventSink, ToolHandler, model_call};
use super::{
    AfterModel, Allowed, BeforeModel, Flow, Hook, Middleware, MiddlewareError, ModelNext,
    ModelRequest, SharedMiddleware, ToolNext,
};
use crate::message::{AssistantMessage, Message, ToolCall};
use crate::model::{ChatRequest, ChatResponse, ModelError, SharedModel};
use crate::run::Step;
use crate::tool::runtime::StateUpdate;
use crate::tool::{ToolCallError, ToolOutput, ToolRuntime};
use crate::usage::Usage;

/// An agent's middleware, in declaration order.
pub(crate) struct Chain<C, S> {
    list: Vec<Entry<C, S>>,
    /// The tools the middlewares review by name (`Middleware::reviewed_tools`), each with
    /// its reviewer's name, taken as they are added: what `build` checks against the tools.
    reviewed: Vec<(String, String)>,
}

/// One middleware of a chain, with the hooks it was seen to leave at their default.
///
/// A default hook says so when it runs (through [`RunCx`], [`ModelNext`] or [`ToolNext`]);
/// the chain then skips that hook of that middleware in every later call: it does nothing
/// but continue, so skipping it changes nothing but the cost.
pub(crate) struct Entry<C, S> {
    pub(crate) middleware: SharedMiddleware<C, S>,
    defaults: AtomicU8,
}

/// One bit per hook in [`Entry`]'s learned defaults.
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
pub(crate) enum HookKind {
    BeforeAgent = 1,
    BeforeModel = 2,
    WrapModel = 4,
    AfterModel = 8,
    WrapTool = 16,
    AfterAgent = 32,
}

/// Every bit of [`HookKind`].
const ALL_HOOKS: u8 = 63;

impl<C, S> Entry<C, S> {
    /// Whether this middleware's `hook` is known to be its default (and may be skipped).
    pub(crate) fn skips(&self, hook: HookKind) -> bool {
        self.defaults.load(Ordering::Relaxed) & hook as u8 != 0
    }

    /// Records that this middleware's `hook` is its default, saying so once at debug level
    /// (the hook is skipped from now on, so nothing else would show it).
    pub(crate) fn learn(&self, hook: HookKind)
    where
        C: Send + Sync + 'static,
        S: Send + Sync + 'static,
    {
        let before = self.defaults.fetch_or(hook as u8, Ordering::Relaxed);
        if before & hook as u8 == 0 {
            tracing::debug!(
                middleware = self.middleware.name(),
                hook = ?hook,
                "the middleware leaves this hook at its default; it is skipped from now on"
            );
        }
    }

    /// Runs one model-side hook of this middleware on `arg`: a fresh queue for its state
    /// updates (applied once it returns), and the hook learned as a default when it is one.
    async fn run<A: ?Sized, T>(
        &self,
        hook: HookKind,
        arg: &mut A,
        context: &C,
        state: &mut Arc<S>,
        counters: Counters<'_>,
        call: impl for<'a> FnOnce(
            &'a dyn Middleware<C, S>,
            &'a mut A,
            &'a RunCx<'a, C, S>,
        ) -> Hook<'a, Result<T, MiddlewareError>>,
    ) -> Result<T, HookError>
    where
        C: Send + Sync + 'static,
        S: Send + Sync + 'static,
    {
        let queue = Mutex::new(Vec::new());
        let default = AtomicBool::new(false);
        let result = {
            let cx = cx(context, state, &queue, counters, &default);
            call(&*self.middleware, arg, &cx).await
        };
        if default.load(Ordering::Relaxed) {
            self.learn(hook);
        }
        apply(state, queue)?;
        result.map_err(HookError::Middleware)
    }
}

/// Why a hook phase stopped the run.
#[derive(Debug)]
pub(crate) enum HookError {
    /// A middleware returned an error.
    Middleware(MiddlewareError),
    /// Queued state updates could not be applied (a tool kept its `State`).
    StateInUse,
}

/// A middleware ended the run with this answer.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) message: AssistantMessage,
    pub(crate) by: String,
}

impl Ended {
    fn new(message: AssistantMessage, by: &str) -> Self {
        Ended {
            message,
            by: by.to_string(),
        }
    }
}

/// The run's counters as hooks see them.
#[derive(Clone, Copy)]
pub(crate) struct Counters<'a> {
    pub(crate) turn: u32,
    pub(crate) usage: Usage,
    pub(crate) steps: &'a [Step],
    pub(crate) thread_model_calls: u32,
}

impl<C, S> Chain<C, S> {
    /// The tools the middlewares review by name, as `(middleware, tool)`.
    pub(crate) fn reviewed_tools(&self) -> &[(String, String)] {
        &self.reviewed
    }
}

impl<C, S> Default for Chain<C, S> {
    fn default() -> Self {
        Chain {
            list: Vec::new(),
            reviewed: Vec::new(),
        }
    }
}

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Chain<C, S> {
    pub(crate) fn push(&mut self, middleware: SharedMiddleware<C, S>) {
        let by = middleware.name();
        for tool in middleware.reviewed_tools() {
            self.reviewed.push((by.to_string(), tool.to_string()));
        }
        self.list.push(Entry {
            middleware,
            defaults: AtomicU8::new(0),
        });
    }

    /// Whether the chain has nothing to run: no middleware, or every hook of every middleware
    /// is known to be its default (then the loop takes the path of an agent without
    /// middleware, which is what running only default hooks amounts to).
    pub(crate) fn is_empty(&self) -> bool {
        self.list
            .iter()
            .all(|e| e.defaults.load(Ordering::Relaxed) == ALL_HOOKS)
    }

    /// The decisions allowed on `call` by the first middleware, in declaration order, that
    /// reviews it.
    pub(crate) fn review_policy(&self, call: &ToolCall) -> Option<Allowed> {
        self.list
            .iter()
            .find_map(|e| e.middleware.review_policy(call))
    }

    /// Whether some middleware may run `hook` (not every one is known to leave it at its
    /// default). When none does, the loop skips the hook's whole step, not only each call.
    pub(crate) fn runs(&self, hook: HookKind) -> bool {
        self.list.iter().any(|e| !e.skips(hook))
    }

    /// `before_agent`, in declaration order.
    pub(crate) async fn before_agent(
        &self,
        messages: &mut Vec<Message>,
        context: &C,
        state: &mut Arc<S>,
        counters: Counters<'_>,
    ) -> Result<Option<Ended>, HookError> {
        for e in &self.list {
            if e.skips(HookKind::BeforeAgent) {
                continue;
            }
            let flow = e
                .run(
                    HookKind::BeforeAgent,
                    messages,
                    context,
                    state,
                    counters,
                    |m, a, cx| m.before_agent(a, cx),
                )
                .await?;
            if let Flow::End(message) = flow {
                return Ok(Some(Ended::new(message, e.middleware.name())));
            }
        }
        Ok(None)
    }

    /// `before_model`, in declaration order.
    pub(crate) async fn before_model(
        &self,
        request: &mut BeforeModel,
        context: &C,
        state: &mut Arc<S>,
        counters: Counters<'_>,
    ) -> Result<Option<Ended>, HookError> {
        for e in &self.list {
            if e.skips(HookKind::BeforeModel) {
                continue;
            }
            let flow = e
                .run(
                    HookKind::BeforeModel,
                    request,
                    context,
                    state,
                    counters,
                    |m, a, cx| m.before_model(a, cx),
                )
                .await?;
            if let Flow::End(message) = flow {
                return Ok(Some(Ended::new(message, e.middleware.name())));
            }
        }
        Ok(None)
    }

    /// The model call through every `wrap_model_call`, the first declared outermost.
    ///
    /// Not an `async fn`, which would hold the request (≈ 300 bytes) beside the call's future
    /// that holds it too: without a `wrap_model_call` the future is the model call itself;
    /// with one it is boxed, and the request is moved into the box.
    pub(crate) fn call_model<'a>(
        &'a self,
        model: &'a SharedModel,
        request: ChatRequest,
        context: &'a C,
        state: &'a mut Arc<S>,
        counters: Counters<'a>,
        sink: Option<EventSink<'a>>,
    ) -> impl Future<Output = Result<Result<ChatResponse, ModelError>, HookError>> + Send + 'a {
        if !self.runs(HookKind::WrapModel) {
            return Either::Left(model_call(&**model, request, sink).map(Ok));
        }
        let request = ModelRequest {
            model: Arc::clone(model),
            request,
        };
        Either::Right(Box::pin(async move {
            let queue = Mutex::new(Vec::new());
            let default = AtomicBool::new(false);
            let answer = {
                let cx = cx(context, state, &queue, counters, &default);
                let next = ModelNext {
                    rest: &self.list,
                    this: None,
                    cx: &cx,
                    sink,
                };
                next.run(request).await
            };
            apply(state, queue)?;
            Ok(answer)
        }))
    }

    /// `after_model`, in reverse declaration order, until one does not continue; with the
    /// name of the middleware that did (kept only by a flow that ends the run).
    pub(crate) async fn after_model(
        &self,
        response: &mut ChatResponse,
        context: &C,
        state: &mut Arc<S>,
        counters: Counters<'_>,
    ) -> Result<Option<(AfterModel, &str)>, HookError> {
        for e in self.list.iter().rev() {
            if e.skips(HookKind::AfterModel) {
                continue;
            }
            let flow = e
                .run(
                    HookKind::AfterModel,
                    response,
                    context,
                    state,
                    counters,
                    |m, a, cx| m.after_model(a, cx),
                )
                .await?;
            match flow {
                AfterModel::Continue => {}
                other => return Ok(Some((other, e.middleware.name()))),
            }
        }
        Ok(None)
    }

    /// `after_agent`, in reverse declaration order.
    pub(crate) async fn after_agent(
        &self,
        messages: &mut Vec<Message>,
        context: &C,
        state: &mut Arc<S>,
        counters: Counters<'_>,
    ) -> Result<(), HookError> {
        for e in self.list.iter().rev() {
            if e.skips(HookKind::AfterAgent) {
                continue;
            }
            e.run(
                HookKind::AfterAgent,
                messages,
                context,
                state,
                counters,
                |m, a, cx| m.after_agent(a, cx),
            )
            .await?;
        }
        Ok(())
    }

    /// One tool call through every `wrap_tool_call`, the first declared outermost. State
    /// updates go to the call's own queue, applied with the tool's in call order.
    pub(crate) async fn call_tool<'a>(
        &'a self,
        call: ToolCall,
        runtime: &'a ToolRuntime<C, S>,
        handler: ToolHandler<'a>,
    ) -> Result<ToolOutput, ToolCallError> {
        ToolNext {
            rest: &self.list,
            this: None,
            runtime,
            handler,
        }
        .run(call)
        .await
    }
}

fn cx<'a, C, S>(
    context: &'a C,
    state: &'a Arc<S>,
    queue: &'a Mutex<Vec<StateUpdate<S>>>,
    counters: Counters<'a>,
    default: &'a AtomicBool,
) -> RunCx<'a, C, S> {
    RunCx {
        context,
        default,
        state,
        updates: queue,
        turn: counters.turn,
        usage: counters.usage,
        steps: counters.steps,
        thread_model_calls: counters.thread_model_calls,
    }
}

/// Applies a hook's queued updates in order.
fn apply<S>(state: &mut Arc<S>, queue: Mutex<Vec<StateUpdate<S>>>) -> Result<(), HookError> {
    let updates = queue.into_inner().unwrap_or_else(|p| p.into_inner());
    if updates.is_empty() {
        return Ok(());
    }
    let target = Arc::get_mut(state).ok_or(HookError::StateInUse)?;
    for update in updates {
        update(target);
    }
    Ok(())
}
