//! What every served runner (an agent or a team) shares: who the caller is, the body read
//! within its cap, the caller's threads and who owns them, the runs going on, and the
//! admission of a run request (everything checked before a run starts).

use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::json;

use super::auth::{Authenticate, Caller, RequestHead};
use super::error::ServeError;
use super::request::{self, RunRequest};
use super::run::RunBody;
use super::threads::{Owners, Ownership, RunSlot, Running, check_thread_id};
use super::{DEFAULT_BODY_LIMIT, DEFAULT_KEEP_ALIVE, Protocol, ai_sdk};
use crate::persist::Checkpointer;
use std::sync::Arc;

/// The shared part of a server.
pub(crate) struct Common<C> {
    auth: Box<dyn Authenticate<C>>,
    pub(crate) owners: Owners,
    pub(crate) running: Running,
    pub(crate) body_limit: usize,
    pub(crate) keep_alive: Duration,
    /// Whether a thread made outside the server (no owner record) goes to the first user
    /// who runs on it.
    pub(crate) adopt_unowned: bool,
}

/// A run request let in: the caller, what it asks, AG-UI's run id, and the thread's slot.
pub(crate) struct Admitted<C> {
    pub(crate) caller: Caller<C>,
    pub(crate) run: RunRequest,
    pub(crate) run_id: Option<String>,
    pub(crate) slot: RunSlot,
}

fn epoch_ms(time: std::time::SystemTime) -> u64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl<C: Send + Sync + 'static> Common<C> {
    pub(crate) fn new(checkpointer: Arc<dyn Checkpointer>, auth: impl Authenticate<C>) -> Self {
        Common {
            auth: Box::new(auth),
            owners: Owners::new(checkpointer),
            running: Running::default(),
            body_limit: DEFAULT_BODY_LIMIT,
            keep_alive: DEFAULT_KEEP_ALIVE,
            adopt_unowned: false,
        }
    }

    pub(crate) fn caller(
        &self,
        request: &Request,
    ) -> BoxFuture<'static, Result<Caller<C>, ServeError>> {
        let head = RequestHead {
            method: request.method().clone(),
            uri: request.uri().clone(),
            headers: request.headers().clone(),
        };
        self.auth.authenticate(head)
    }

    /// The body, at most `body_limit` bytes.
    async fn body(&self, request: Request) -> Result<Vec<u8>, ServeError> {
        let limit = self.body_limit;
        let too_large = || ServeError::PayloadTooLarge { limit };
        if let Some(length) = request.headers().get(header::CONTENT_LENGTH)
            && length
                .to_str()
                .ok()
                .and_then(|l| l.parse::<usize>().ok())
                .is_some_and(|l| l > limit)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        let mut data = request.into_body().into_data_stream();
        while let Some(chunk) = data.next().await {
            let chunk = chunk
                .map_err(|e| ServeError::BadRequest(format!("the body could not be read: {e}")))?;
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Checks that `user` may read thread `id`: 404 unknown, 403 another user's.
    pub(crate) async fn readable(&self, id: &str, user: &str) -> Result<(), ServeError> {
        check_thread_id(id)?;
        match self.owners.check(id, user).await? {
            Ownership::Mine => Ok(()),
            Ownership::Unknown => Err(ServeError::NotFound(id.to_owned())),
        }
    }

    /// Lets a run request on thread `id` in: the caller is known, the body is read and
    /// parsed (a bad request changes nothing), the thread is the caller's (a new message
    /// claims an unknown thread) and no other run of it goes on in this process.
    pub(crate) async fn admit(
        &self,
        id: &str,
        request: Request,
        protocol: Protocol,
    ) -> Result<Admitted<C>, ServeError> {
        check_thread_id(id)?;
        let caller = self.caller(&request).await?;
        let body = self.body(request).await?;
        let (run, run_id) = match protocol {
            Protocol::AiSdk => (request::ai_sdk(&body)?, None),
            Protocol::AgUi => {
                let read = request::ag_ui(&body, id)?;
                (read.request, Some(read.run_id))
            }
        };
        match self.owners.check(id, &caller.user).await? {
            Ownership::Mine => {}
            Ownership::Unknown if matches!(run, RunRequest::Input(_)) => {
                self.refuse_unowned(id).await?;
                self.owners.claim(id, &caller.user).await?
            }
            Ownership::Unknown => return Err(ServeError::NotFound(id.to_owned())),
        }
        let slot = self
            .running
            .claim(id)
            .ok_or_else(|| ServeError::running(id))?;
        Ok(Admitted {
            caller,
            run,
            run_id,
            slot,
        })
    }

    /// Refuses thread `id` when it exists without an owner record (it was made outside the
    /// server: by a program, or before it was served), unless the server adopts such threads.
    async fn refuse_unowned(&self, id: &str) -> Result<(), ServeError> {
        if self.adopt_unowned {
            return Ok(());
        }
        let exists = self
            .owners
            .checkpointer()
            .latest(id)
            .await
            .map_err(|e| ServeError::Thread(e.into()))?
            .is_some();
        match exists {
            false => Ok(()),
            true => Err(ServeError::Conflict {
                code: "unowned_thread",
                message: format!(
                    "thread `{id}` exists without an owner (it was made outside the server): serve with `adopt_unowned(true)` to give it to the first user who runs on it"
                ),
            }),
        }
    }

    /// `GET /threads`: the caller's threads, newest first.
    pub(crate) async fn list(&self, request: Request) -> Result<Response, ServeError> {
        let caller = self.caller(&request);
        drop(request);
        let caller = caller.await?;
        let ids = self.owners.list(&caller.user, 1000).await?;
        let mut threads = Vec::with_capacity(ids.len());
        for id in ids {
            let info = self.owners.checkpointer().latest(&id).await;
            let (messages, updated) = match info {
                Ok(Some(c)) => (c.messages.len(), Some(epoch_ms(c.created_at))),
                _ => (0, None),
            };
            threads.push(json!({ "id": id, "messageCount": messages, "updatedAt": updated }));
        }
        Ok(axum::Json(json!({ "threads": threads })).into_response())
    }

    /// `POST /threads`: a new thread of the caller.
    pub(crate) async fn create(&self, request: Request) -> Result<Response, ServeError> {
        let caller = self.caller(&request);
        drop(request);
        let caller = caller.await?;
        let id = format!("t-{:032x}", crate::random::u128());
        self.owners.claim(&id, &caller.user).await?;
        Ok((StatusCode::CREATED, axum::Json(json!({ "id": id }))).into_response())
    }
}

/// Changes the settings of a server not yet shared (before its router is taken or it is
/// cloned); warns and ignores the change otherwise.
pub(crate) fn configure<X, C>(inner: &mut Arc<X>, what: &str, change: impl FnOnce(&mut Common<C>))
where
    X: std::ops::DerefMut<Target = Common<C>>,
{
    match Arc::get_mut(inner) {
        Some(inner) => change(inner),
        None => tracing::warn!("{what} after the server was shared: ignored"),
    }
}

/// The headers of an AG-UI event stream.
const AG_UI_HEADERS: [(&str, &str); 3] = [
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache"),
    ("x-accel-buffering", "no"),
];

/// The response streaming `body` in `protocol`.
pub(crate) fn streaming(body: RunBody, protocol: Protocol) -> Response {
    let headers: &[(&str, &str)] = match protocol {
        Protocol::AiSdk => &ai_sdk::HEADERS,
        Protocol::AgUi => &AG_UI_HEADERS,
    };
    let mut response = Body::from_stream(body).into_response();
    for (name, value) in headers {
        response
            .headers_mut()
            .insert(*name, HeaderValue::from_static(value));
    }
    response
}
