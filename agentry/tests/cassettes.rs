//! Record / replay at the HTTP level (`agentry::cassette`): each wire format, whole and
//! streamed, is recorded against an in-process server and replayed with the server gone;
//! drift, ignored fields, record-missing, scrubbing, and the committed fixtures under
//! `tests/cassettes/` (re-recorded against the in-process servers with
//! `AGENTRY_CASSETTES=record cargo test -p agentry --test cassettes committed`).

mod cassette_support;

use std::path::Path;

use agentry::cassette::{Cassette, CassetteError, CassetteMode};
use agentry::model::{ChatModel, ModelError, StreamEvent};
use agentry::providers::gemini::GeminiModel;
use agentry::providers::openai::OpenAiModel;
use agentry::testing::{MockResponse, MockServer};
use cassette_support::server::sse_event;
use cassette_support::{ANSWER, DEAD, Format, KEY, Outcome, Running, call, lines, question};
use futures::StreamExt;
use serde_json::json;

#[path = "cassettes/file.rs"]
mod file;

/// Records one call against the format's server, then replays it with the server gone: the
/// outcomes are equal, and the file holds the exchange without the key.
async fn round_trip(format: Format, stream: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/cassette.jsonl");
    let recorded = {
        let server = format.serve(stream).await;
        let model = format.model(&server.origin(), Cassette::record(&path).unwrap());
        call(&*model, question("Paris"), stream).await.unwrap()
    };
    assert_eq!(recorded.text(), ANSWER);
    if let Outcome::Streamed(events) = &recorded {
        let deltas = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::TextDelta { .. }))
            .count();
        assert!(deltas >= 1, "{format:?}: {events:?}");
    }

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains(KEY),
        "{format:?}: the key was written:\n{text}"
    );
    let file = lines(&path);
    assert_eq!(file.len(), 1, "{text}");
    let response = &file[0]["response"];
    assert_eq!(response["status"], 200);
    assert_eq!(response["chunks"].is_array(), stream, "{text}");
    assert!(file[0]["request"]["body"].is_object(), "{text}");
    let auth = &file[0]["request"]["headers"];
    let auth = auth
        .get("authorization")
        .or(auth.get("x-api-key"))
        .or(auth.get("x-goog-api-key"));
    assert_eq!(auth, Some(&json!("[scrubbed]")), "{text}");

    let cassette = Cassette::replay(&path).unwrap();
    let model = format.model(DEAD, cassette.clone());
    let replayed = call(&*model, question("Paris"), stream).await.unwrap();
    assert_eq!(replayed, recorded, "{format:?}");
    assert_eq!(cassette.remaining(), 0);
}

#[tokio::test]
async fn openai_chat_round_trip() {
    round_trip(Format::Chat, false).await;
}

#[tokio::test]
async fn openai_chat_stream_round_trip() {
    round_trip(Format::Chat, true).await;
}

#[tokio::test]
async fn anthropic_round_trip() {
    round_trip(Format::Anthropic, false).await;
}

#[tokio::test]
async fn anthropic_stream_round_trip() {
    round_trip(Format::Anthropic, true).await;
}

#[tokio::test]
async fn gemini_round_trip() {
    round_trip(Format::Gemini, false).await;
}

#[tokio::test]
async fn gemini_stream_round_trip() {
    round_trip(Format::Gemini, true).await;
}

#[tokio::test]
async fn responses_round_trip() {
    round_trip(Format::Responses, false).await;
}

#[tokio::test]
async fn responses_stream_round_trip() {
    round_trip(Format::Responses, true).await;
}

/// The committed cassettes replay with no server and no key; with `AGENTRY_CASSETTES=record`
/// this test records them again against the in-process servers (the one line a real test
/// needs is `Cassette::for_test(..)`).
#[tokio::test]
async fn committed_cassettes_replay_offline() {
    for (format, name) in [
        (Format::Chat, "openai_chat"),
        (Format::Anthropic, "anthropic"),
        (Format::Gemini, "gemini"),
        (Format::Responses, "openai_responses"),
    ] {
        let cassette = Cassette::for_test(format!("tests/cassettes/{name}.jsonl"))
            .unwrap()
            .scrub_header("date");
        let server = match cassette.mode() {
            CassetteMode::Replay => None,
            _ => Some(format.serve(true).await),
        };
        let origin = server.as_ref().map_or(DEAD.to_owned(), Running::origin);
        let model = format.model(&origin, cassette);
        let outcome = call(&*model, question("Paris"), true).await.unwrap();
        assert_eq!(outcome.text(), ANSWER, "{name}");
    }
}

/// A replayed model needs no key and reaches no network: the default endpoint, no key in
/// the environment, real network denied.
#[tokio::test]
async fn replay_needs_no_key_and_no_network() {
    agentry::http::deny_real_network();
    let model = GeminiModel::builder("gemini-2.5-flash")
        .env(|_| None)
        .cassette(Cassette::replay("tests/cassettes/gemini.jsonl").unwrap())
        .build()
        .unwrap();
    let events: Vec<_> = model.stream(question("Paris")).collect().await;
    let outcome = Outcome::Streamed(events.into_iter().collect::<Result<_, _>>().unwrap());
    assert_eq!(outcome.text(), ANSWER);

    // Without a cassette the same builder wants a key.
    let err = GeminiModel::builder("gemini-2.5-flash")
        .env(|_| None)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("GEMINI_API_KEY"), "{err}");
}

/// Records one OpenAI chat call for `city` into `path`.
async fn record_chat(path: &Path, city: &str) {
    let server = MockServer::with_script([MockResponse::text(ANSWER)]).await;
    let origin = format!("http://{}", server.addr());
    let model = Format::Chat.model(&origin, Cassette::record(path).unwrap());
    call(&*model, question(city), false).await.unwrap();
}

#[tokio::test]
async fn a_request_that_drifts_fails_with_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drift.jsonl");
    record_chat(&path, "Paris").await;

    let model = Format::Chat.model(DEAD, Cassette::replay(&path).unwrap());
    let err = model.invoke(question("Rome")).await.unwrap_err();
    assert!(matches!(err, ModelError::Configuration(_)), "{err:?}");
    let message = err
        .to_string()
        .replace(&path.display().to_string(), "<cassette>");
    insta::assert_snapshot!(message);
}

#[tokio::test]
async fn ignored_fields_are_left_out_of_the_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ignored.jsonl");
    {
        let server = MockServer::with_script([MockResponse::text(ANSWER)]).await;
        let origin = format!("http://{}", server.addr());
        let model = Format::Chat.model(&origin, Cassette::record(&path).unwrap());
        let mut request = question("Paris");
        request.prompt_cache_key = Some("run-0001".into());
        call(&*model, request, false).await.unwrap();
    }
    let replay = |cassette: Cassette| async move {
        let model = Format::Chat.model(DEAD, cassette);
        let mut request = question("Paris");
        request.prompt_cache_key = Some("run-0002".into());
        call(&*model, request, false).await
    };

    // Not ignored: the changed id is a drift.
    let err = replay(Cassette::replay(&path).unwrap()).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("-  \"prompt_cache_key\": \"run-0001\""),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("+  \"prompt_cache_key\": \"run-0002\""),
        "{err}"
    );

    // Ignored: it replays.
    let cassette = Cassette::replay(&path).unwrap().ignore("/prompt_cache_key");
    assert_eq!(replay(cassette).await.unwrap().text(), ANSWER);

    // A wildcard reaches into every message: another question replays too.
    let cassette = Cassette::replay(&path)
        .unwrap()
        .ignore("/prompt_cache_key")
        .ignore("/messages/*/content");
    let model = Format::Chat.model(DEAD, cassette);
    let mut request = question("Rome");
    request.prompt_cache_key = Some("run-0003".into());
    assert_eq!(call(&*model, request, false).await.unwrap().text(), ANSWER);
}

#[tokio::test]
async fn record_missing_replays_then_appends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.jsonl");
    record_chat(&path, "Paris").await;
    assert_eq!(lines(&path).len(), 1);

    let server = MockServer::with_script([MockResponse::text("Rainy in Rome.")]).await;
    let origin = format!("http://{}", server.addr());
    let model = Format::Chat.model(&origin, Cassette::record_missing(&path).unwrap());
    let first = call(&*model, question("Paris"), false).await.unwrap();
    let second = call(&*model, question("Rome"), false).await.unwrap();
    assert_eq!(first.text(), ANSWER);
    assert_eq!(second.text(), "Rainy in Rome.");
    assert_eq!(server.request_count(), 1, "the first request was replayed");
    drop(model);

    let file = lines(&path);
    assert_eq!(file.len(), 2);
    assert_eq!(
        file[1]["request"]["body"]["messages"][1]["content"],
        "Weather in Rome?"
    );

    let model = Format::Chat.model(DEAD, Cassette::replay(&path).unwrap());
    assert_eq!(
        call(&*model, question("Paris"), false)
            .await
            .unwrap()
            .text(),
        ANSWER
    );
    assert_eq!(
        call(&*model, question("Rome"), false).await.unwrap().text(),
        "Rainy in Rome."
    );
    // One more than recorded.
    let err = call(&*model, question("Oslo"), false).await.unwrap_err();
    assert!(
        err.to_string().contains("request 2 was not recorded"),
        "{err}"
    );
    assert!(err.to_string().contains("record_missing"), "{err}");
}

#[tokio::test]
async fn secrets_and_chosen_headers_are_scrubbed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secrets.jsonl");
    let team_token = "team-token-5f2c9a7e41";
    let request_id = "req_0123456789abcdef";
    // A server that echoes the key in its answer and sends an id header.
    let server =
        MockServer::with_script([MockResponse::text(format!("Your key {KEY} is invalid."))
            .header("x-request-id", request_id)])
        .await;
    let cassette = Cassette::record(&path)
        .unwrap()
        .scrub_header("X-Request-Id");
    let model = OpenAiModel::builder("gpt-4o-mini")
        .base_url(server.url())
        .api_key(KEY)
        .header("x-team-token", team_token)
        .cassette(cassette)
        .build()
        .unwrap();
    let answer = model.invoke(question("Paris")).await.unwrap();
    assert!(answer.message.text().ends_with("is invalid."), "{answer:?}");
    // The server did get the secrets.
    let sent = &server.requests()[0];
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    drop(model);

    let text = std::fs::read_to_string(&path).unwrap();
    for secret in [KEY, team_token, request_id] {
        assert!(!text.contains(secret), "{secret} was written:\n{text}");
    }
    let line = &lines(&path)[0];
    assert_eq!(line["request"]["headers"]["authorization"], "[scrubbed]");
    assert_eq!(line["request"]["headers"]["x-team-token"], "[scrubbed]");
    assert_eq!(line["response"]["headers"]["x-request-id"], "[scrubbed]");
    assert!(
        line["response"]["body"]
            .as_str()
            .unwrap()
            .contains("Your key [scrubbed] is invalid.")
    );
}

#[tokio::test]
async fn retries_replay_through_the_same_policy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("retry.jsonl");
    {
        let server = MockServer::with_script([
            MockResponse::error(503, "the server is busy", "server_error", None, None),
            MockResponse::text(ANSWER),
        ])
        .await;
        let model = server
            .openai_builder("gpt-4o-mini")
            .cassette(Cassette::record(&path).unwrap())
            .build()
            .unwrap();
        assert_eq!(
            model
                .invoke(question("Paris"))
                .await
                .unwrap()
                .message
                .text(),
            ANSWER
        );
    }
    let file = lines(&path);
    assert_eq!(file.len(), 2);
    assert_eq!(file[0]["response"]["status"], 503);

    // The replayed 503 is retried like a real one, and the retry gets the recorded 200.
    let model = agentry::testing::mock_model_builder(format!("{DEAD}/v1"), "gpt-4o-mini")
        .cassette(Cassette::replay(&path).unwrap())
        .build()
        .unwrap();
    assert_eq!(
        model
            .invoke(question("Paris"))
            .await
            .unwrap()
            .message
            .text(),
        ANSWER
    );

    // Without retries, the replayed 503 is the error a real one would be.
    let model = agentry::testing::mock_model_builder(format!("{DEAD}/v1"), "gpt-4o-mini")
        .max_retries(0)
        .cassette(Cassette::replay(&path).unwrap())
        .build()
        .unwrap();
    let err = model.invoke(question("Paris")).await.unwrap_err();
    assert!(
        matches!(err, ModelError::Server { status: 503, .. }),
        "{err:?}"
    );
}
