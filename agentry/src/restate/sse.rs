//! The SSE side channel of an [`EventHub`]: `GET /runs/{invocation id}/events`, served next to
//! the Restate endpoint.

use std::convert::Infallible;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures::{Stream, StreamExt};

use super::hub::{EventHub, Followed};

impl EventHub {
    /// An axum router serving the hub's runs as server-sent events at
    /// `GET /runs/{invocation id}/events`: one `run` event per [`StreamedEvent`](super::StreamedEvent)
    /// (its `id:` the event's `seq`, its data the event as JSON), a `missed` event
    /// (`{"from": n, "to": m}`) for events no longer kept, and an `end` event when the run
    /// finished. A client that loses the connection before `end` (the service process died)
    /// reconnects with `Last-Event-ID` (or `?after=`) set to the last `seq` it received and
    /// gets the events after it, once the engine has run the invocation again.
    ///
    /// Serve it on its own port, in the process that serves the Restate endpoint:
    ///
    /// ```no_run
    /// # async fn serve() {
    /// let hub = agentry::restate::EventHub::new();
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:9081").await.unwrap();
    /// axum::serve(listener, hub.router()).await.unwrap();
    /// # }
    /// ```
    pub fn router(&self) -> Router {
        Router::new()
            .route("/runs/{id}/events", get(follow))
            .with_state(self.clone())
    }
}

async fn follow(
    State(hub): State<EventHub>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let query = uri.query().unwrap_or("").split('&');
    let after = query
        .filter_map(|pair| pair.strip_prefix("after="))
        .find_map(|n| n.parse::<u64>().ok());
    let after = last.or(after);
    let events = hub.subscribe(&id, after).map(|followed| {
        Ok(match followed {
            Followed::Event(event) => Event::default()
                .event("run")
                .id(event.seq.to_string())
                .json_data(&event)
                .unwrap_or_else(|e| Event::default().event("error").data(e.to_string())),
            Followed::Missed { from, to } => Event::default()
                .event("missed")
                .data(format!(r#"{{"from":{from},"to":{to}}}"#)),
        })
    });
    let end = futures::stream::once(async { Ok(Event::default().event("end").data("{}")) });
    Sse::new(events.chain(end)).keep_alive(KeepAlive::default())
}
