//! [`ModelFallback`]: when the model fails, asks the next one.

use std::sync::Arc;

use super::{Hook, Middleware, ModelNext, ModelRequest, RunCx};
use crate::model::IntoSharedModel;
use crate::model::{ChatResponse, ModelError, SharedModel};

/// Which errors send the request on to the next model.
pub type FallbackOn = dyn Fn(&ModelError) -> bool + Send + Sync;

/// Tries other models in order when a model call fails (LangChain's
/// `ModelFallbackMiddleware`). By default every error falls back except a malformed request
/// ([`ModelError::InvalidRequest`]), which another model would likely refuse too; choose
/// with [`ModelFallback::on`].
///
/// ```
/// use agentry::middleware::ModelFallback;
/// use agentry::testing::TestModel;
///
/// let fallback = ModelFallback::new([TestModel::new()]);
/// assert_eq!(fallback.models().len(), 1);
/// ```
#[derive(Clone)]
pub struct ModelFallback {
    models: Vec<SharedModel>,
    on: Arc<FallbackOn>,
}

impl ModelFallback {
    /// Falls back to `models`, in order.
    pub fn new<M: IntoSharedModel>(models: impl IntoIterator<Item = M>) -> Self {
        ModelFallback {
            models: models
                .into_iter()
                .map(IntoSharedModel::into_shared_model)
                .collect(),
            on: Arc::new(|e| !matches!(e, ModelError::InvalidRequest { .. })),
        }
    }

    /// Falls back only on the errors `on` accepts.
    pub fn on(mut self, on: impl Fn(&ModelError) -> bool + Send + Sync + 'static) -> Self {
        self.on = Arc::new(on);
        self
    }

    /// The fallback models, in order.
    pub fn models(&self) -> &[SharedModel] {
        &self.models
    }
}

impl std::fmt::Debug for ModelFallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.models.iter().map(|m| m.model_name()))
            .finish()
    }
}

impl<C, S> Middleware<C, S> for ModelFallback
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "ModelFallback"
    }

    fn wrap_model_call<'a>(
        &'a self,
        request: ModelRequest,
        _cx: &'a RunCx<'a, C, S>,
        next: ModelNext<'a, C, S>,
    ) -> Hook<'a, Result<ChatResponse, ModelError>> {
        Hook::boxed(async move {
            let mut answer = next.run(request.clone()).await;
            for model in &self.models {
                match &answer {
                    Err(error) if (self.on)(error) => {
                        tracing::debug!(%error, fallback = model.model_name(), "model failed; falling back");
                        let mut request = request.clone();
                        request.model = Arc::clone(model);
                        answer = next.run(request).await;
                    }
                    _ => break,
                }
            }
            answer
        })
    }
}
