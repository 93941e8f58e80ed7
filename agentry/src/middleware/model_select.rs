//! [`ModelSelector`]: picks the model for each request from the run's context and state.

use std::sync::Arc;

use super::{BeforeModel, Flow, Hook, Middleware, MiddlewareError, RunCx};
use crate::model::SharedModel;

/// Picks a model for a request, or `None` to keep the one the request has.
pub type SelectModel<C, S> =
    dyn Fn(&BeforeModel, &RunCx<'_, C, S>) -> Option<SharedModel> + Send + Sync;

/// Dynamic model selection: a function of the request, the context and the state chooses
/// the model before each request (e.g. a larger model once the conversation is long, or per
/// customer tier).
///
/// ```
/// use agentry::middleware::ModelSelector;
/// use agentry::model::SharedModel;
/// use agentry::testing::TestModel;
/// use std::sync::Arc;
///
/// struct Customer { premium: bool }
/// let big: SharedModel = Arc::new(TestModel::with_text("big"));
/// let selector = ModelSelector::<Customer, ()>::new(move |_request, cx| {
///     cx.context().premium.then(|| Arc::clone(&big))
/// });
/// # let _ = selector;
/// ```
pub struct ModelSelector<C, S> {
    select: Arc<SelectModel<C, S>>,
}

impl<C, S> ModelSelector<C, S> {
    /// Selects with `select`.
    pub fn new(
        select: impl Fn(&BeforeModel, &RunCx<'_, C, S>) -> Option<SharedModel> + Send + Sync + 'static,
    ) -> Self {
        ModelSelector {
            select: Arc::new(select),
        }
    }
}

impl<C, S> std::fmt::Debug for ModelSelector<C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModelSelector(..)")
    }
}

impl<C, S> Middleware<C, S> for ModelSelector<C, S>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "ModelSelector"
    }

    fn before_model<'a>(
        &'a self,
        request: &'a mut BeforeModel,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        if let Some(model) = (self.select)(request, cx) {
            tracing::debug!(model = model.model_name(), "model selected");
            request.model = model;
        }
        Hook::ready(Ok(Flow::Continue))
    }
}
