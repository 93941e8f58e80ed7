//! [`ScriptedModel`]: a test double that answers from a fixed script of turns.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};

use crate::model::{ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile};

mod events;
mod turn;

pub use turn::Turn;
pub(crate) use turn::{response_for, scripted_call};

/// **Test double.** A [`ChatModel`] that answers each request with the next [`Turn`] of a script,
/// and records every request it receives.
///
/// Nothing is sent anywhere. [`ChatModel::invoke`] returns the turn's response;
/// [`ChatModel::stream`] yields the same turn as [`StreamEvent`](crate::model::StreamEvent)s
/// (reasoning and text deltas, tool-call starts and argument deltas interleaved across calls,
/// usage) ending in [`StreamEvent::Completed`](crate::model::StreamEvent::Completed) with the
/// same response.
///
/// ```
/// use agentry::model::{ChatModel, ChatRequest};
/// use agentry::testing::{ScriptedModel, Turn};
/// use agentry::Message;
///
/// # futures::executor::block_on(async {
/// let model = ScriptedModel::new([
///     Turn::tool_call("get_weather", serde_json::json!({ "city": "Paris" })),
///     Turn::text("18°C and clear."),
/// ]);
/// let first = model.invoke(ChatRequest::new(vec![Message::user("Weather?")])).await.unwrap();
/// assert_eq!(first.message.tool_calls[0].name, "get_weather");
/// let second = model.invoke(ChatRequest::default()).await.unwrap();
/// assert_eq!(second.message.text(), "18°C and clear.");
/// model.assert_complete();
/// assert_eq!(model.requests()[0].messages[0].text(), "Weather?");
/// # });
/// ```
pub struct ScriptedModel {
    name: String,
    profile: ModelProfile,
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<ChatRequest>>,
    served: Mutex<usize>,
    pause: Pause,
}

/// What a scripted model does before answering.
#[derive(Clone, Copy, Debug)]
enum Pause {
    None,
    Yield,
    Sleep(Duration),
}

impl ScriptedModel {
    /// A model that answers with `turns`, in order.
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        ScriptedModel {
            name: "scripted".to_string(),
            profile: ModelProfile::full(),
            turns: Mutex::new(turns.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
            served: Mutex::new(0),
            pause: Pause::None,
        }
    }

    /// Sets the model name it reports (default `scripted`).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the profile it reports (default [`ModelProfile::full`]).
    pub fn with_profile(mut self, profile: ModelProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Yields to the async runtime once before each answer, as a real network call would.
    pub fn yielding(mut self) -> Self {
        self.pause = Pause::Yield;
        self
    }

    /// Waits `delay` (with `tokio::time::sleep`) before each answer.
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.pause = Pause::Sleep(delay);
        self
    }

    /// Appends a turn to the script.
    pub fn push(&self, turn: Turn) {
        lock(&self.turns).push_back(turn);
    }

    /// Clones of the requests received so far, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        lock(&self.requests).clone()
    }

    /// The number of requests received so far.
    pub fn request_count(&self) -> usize {
        lock(&self.requests).len()
    }

    /// The number of turns not yet used.
    pub fn remaining(&self) -> usize {
        lock(&self.turns).len()
    }

    /// Panics unless every scripted turn was used: a test assertion.
    #[track_caller]
    pub fn assert_complete(&self) {
        let remaining = self.remaining();
        assert!(
            remaining == 0,
            "ScriptedModel: {remaining} scripted turn(s) were never requested (served {})",
            *lock(&self.served)
        );
    }

    fn next_turn(&self, request: ChatRequest) -> Result<Turn, ModelError> {
        lock(&self.requests).push(request);
        let mut served = lock(&self.served);
        *served += 1;
        lock(&self.turns).pop_front().ok_or_else(|| {
            ModelError::Configuration(format!(
                "ScriptedModel: request #{} arrived but the script has no turn left",
                *served
            ))
        })
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("name", &self.name)
            .field("remaining", &self.remaining())
            .field("requests", &self.request_count())
            .finish()
    }
}

impl ChatModel for ScriptedModel {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn provider(&self) -> &str {
        "scripted"
    }

    fn profile(&self) -> &ModelProfile {
        &self.profile
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let turn = self.next_turn(request);
        let pause = self.pause;
        let name = self.name.clone();
        async move {
            pause_for(pause).await;
            turn?.into_response(&name)
        }
        .boxed()
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        let events = self
            .next_turn(request)
            .map(|turn| turn.into_events(&self.name));
        let pause = self.pause;
        let events = async move {
            pause_for(pause).await;
            match events {
                Ok(events) => events,
                Err(e) => vec![Err(e)],
            }
        };
        events.into_stream().flat_map(futures::stream::iter).boxed()
    }
}

async fn pause_for(pause: Pause) {
    match pause {
        Pause::None => {}
        Pause::Yield => tokio::task::yield_now().await,
        Pause::Sleep(d) => tokio::time::sleep(d).await,
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
