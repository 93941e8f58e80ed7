//! Usage aggregated per model across any number of calls.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::{Stream, StreamExt};

use super::{
    ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile, SharedModel,
    StreamEvent,
};
use crate::cost::{Cost, CostError, PriceTable};
use crate::usage::Usage;

/// A cloneable handle that adds up [`Usage`] per model name; every clone shares one tally.
///
/// Attach it to a model when building it (`OpenAiModel::builder(..).usage_tracker(..)`) or wrap
/// any model with [`UsageTracker::wrap`]. Streamed answers are counted when they complete
/// (or, when cut off after the provider reported usage, with that usage).
///
/// ```
/// use agentry::model::UsageTracker;
/// use agentry::Usage;
///
/// let tracker = UsageTracker::new();
/// tracker.record("gpt-4o-mini", Usage { input_tokens: 10, output_tokens: 3, requests: 1, ..Usage::default() });
/// tracker.clone().record("gpt-4o-mini", Usage { input_tokens: 5, output_tokens: 1, requests: 1, ..Usage::default() });
/// tracker.record("llama3.2", Usage { input_tokens: 7, requests: 1, ..Usage::default() });
/// assert_eq!(tracker.usage("gpt-4o-mini").input_tokens, 15);
/// assert_eq!(tracker.total().requests, 3);
/// ```
#[derive(Clone, Default)]
pub struct UsageTracker {
    inner: Arc<Mutex<BTreeMap<String, Usage>>>,
}

impl UsageTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        UsageTracker::default()
    }

    /// Adds `usage` to `model`'s tally.
    pub fn record(&self, model: &str, usage: Usage) {
        let mut map = self.lock();
        match map.get_mut(model) {
            Some(u) => *u += usage,
            None => {
                map.insert(model.to_owned(), usage);
            }
        }
    }

    /// The usage of one model (zero if it was never called).
    pub fn usage(&self, model: &str) -> Usage {
        self.lock().get(model).copied().unwrap_or_default()
    }

    /// The usage of every model, by name.
    pub fn by_model(&self) -> BTreeMap<String, Usage> {
        self.lock().clone()
    }

    /// The usage of all models together.
    pub fn total(&self) -> Usage {
        self.lock().values().copied().sum()
    }

    /// What every model's usage cost at `prices`;
    /// [`CostError::Unpriced`](crate::cost::CostError::Unpriced) names a model the table
    /// does not price.
    ///
    /// ```
    /// use agentry::cost::{Cost, ModelPrice, PriceTable};
    /// use agentry::model::UsageTracker;
    /// use agentry::Usage;
    ///
    /// let tracker = UsageTracker::new();
    /// tracker.record("gpt-4o-mini", Usage { input_tokens: 2_000_000, output_tokens: 500_000, requests: 3, ..Usage::default() });
    /// let prices = PriceTable::new().with("gpt-4o-mini", ModelPrice::new(0.15, 0.60));
    /// assert_eq!(tracker.cost(&prices), Ok(Cost::from_usd(0.30 + 0.30)));
    /// assert!(tracker.cost(&PriceTable::new()).is_err());
    /// ```
    pub fn cost(&self, prices: &PriceTable) -> Result<Cost, CostError> {
        self.lock()
            .iter()
            .map(|(model, usage)| prices.try_cost(model, usage))
            .sum()
    }

    /// Each model's cost at `prices`, `None` where the table has no price.
    pub fn cost_by_model(&self, prices: &PriceTable) -> BTreeMap<String, Option<Cost>> {
        self.lock()
            .iter()
            .map(|(model, usage)| (model.clone(), prices.cost(model, usage)))
            .collect()
    }

    /// Forgets everything recorded so far.
    pub fn reset(&self) {
        self.lock().clear();
    }

    /// `model`, counting its usage here. The tally is keyed by [`ChatModel::model_name`].
    pub fn wrap(&self, model: SharedModel) -> SharedModel {
        Arc::new(TrackedModel {
            model,
            tracker: self.clone(),
        })
    }

    /// `stream`, counting its usage under `model` when it completes.
    pub fn track_stream(&self, model: &str, stream: EventStream) -> EventStream {
        Box::pin(TrackedStream {
            inner: stream,
            tracker: self.clone(),
            model: model.to_owned(),
            reported: None,
            counted: false,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Usage>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for UsageTracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.lock().iter()).finish()
    }
}

impl fmt::Display for UsageTracker {
    /// One line per model: `gpt-4o-mini: 2 requests, 40 input tokens, 7 output tokens`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (model, usage)) in self.lock().iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{model}: {usage}")?;
        }
        Ok(())
    }
}

struct TrackedStream {
    inner: EventStream,
    tracker: UsageTracker,
    model: String,
    reported: Option<Usage>,
    counted: bool,
}

impl Stream for TrackedStream {
    type Item = Result<StreamEvent, ModelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let item = self.inner.poll_next_unpin(cx);
        match &item {
            Poll::Ready(Some(Ok(StreamEvent::Usage { usage }))) => self.reported = Some(*usage),
            Poll::Ready(Some(Ok(StreamEvent::Completed { response }))) if !self.counted => {
                self.counted = true;
                self.tracker.record(&self.model, response.usage);
            }
            _ => {}
        }
        item
    }
}

impl Drop for TrackedStream {
    fn drop(&mut self) {
        if !self.counted
            && let Some(usage) = self.reported
        {
            self.tracker.record(&self.model, usage);
        }
    }
}

/// A model whose usage is counted by a [`UsageTracker`].
struct TrackedModel {
    model: SharedModel,
    tracker: UsageTracker,
}

impl ChatModel for TrackedModel {
    fn model_name(&self) -> &str {
        self.model.model_name()
    }

    fn provider(&self) -> &str {
        self.model.provider()
    }

    fn profile(&self) -> &ModelProfile {
        self.model.profile()
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            let response = self.model.invoke(request).await?;
            self.tracker.record(self.model.model_name(), response.usage);
            Ok(response)
        })
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        self.tracker
            .track_stream(self.model.model_name(), self.model.stream(request))
    }
}
