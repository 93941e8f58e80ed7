//! The cassette file itself: what a missing or broken file says, the modes' names, a recorded cut,
//! the order of its lines, the response caps on replay, and how recording rewrites it.

use super::*;

#[test]
fn a_missing_cassette_says_how_to_record_it() {
    let err = Cassette::replay("tests/cassettes/never-recorded.jsonl").unwrap_err();
    assert!(matches!(err, CassetteError::Missing { .. }));
    insta::assert_snapshot!(err.to_string(), @"no cassette at tests/cassettes/never-recorded.jsonl: record it once by running this test with the provider's API key set and AGENTRY_CASSETTES=record");
}

#[test]
fn a_broken_line_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.jsonl");
    let good = r#"{"request":{"method":"POST","url":"http://h/v1/chat/completions","body":{}},"response":{"status":200,"body":"{}"}}"#;
    let bad_chunks = r#"{"request":{"method":"POST","url":"http://h/","body":{}},"response":{"status":200,"body":"abc","chunks":[1,1]}}"#;
    std::fs::write(&path, format!("{good}\n\n{bad_chunks}\n")).unwrap();
    let err = Cassette::replay(&path).unwrap_err();
    assert!(
        matches!(err, CassetteError::Parse { line: 3, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("add up to 2 bytes but the body has 3"),
        "{err}"
    );

    std::fs::write(&path, "not json\n").unwrap();
    let err = Cassette::replay(&path).unwrap_err();
    assert!(
        matches!(err, CassetteError::Parse { line: 1, .. }),
        "{err:?}"
    );
}

#[test]
fn modes_parse_from_their_names() {
    assert_eq!(
        "replay".parse::<CassetteMode>().unwrap(),
        CassetteMode::Replay
    );
    assert_eq!(
        " Record ".parse::<CassetteMode>().unwrap(),
        CassetteMode::Record
    );
    assert_eq!(
        "record_missing".parse::<CassetteMode>().unwrap(),
        CassetteMode::RecordMissing
    );
    let err = "replay_all".parse::<CassetteMode>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "AGENTRY_CASSETTES=\"replay_all\" is not a cassette mode: use replay, record or record_missing"
    );
}

/// A recorded connection failure in the middle of a stream is replayed as one: the events
/// before it arrive, then the network error a real cut gives.
#[tokio::test]
async fn a_recorded_cut_replays_as_a_cut_stream() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.jsonl");
    let chunk = json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Sunny"}, "finish_reason": null}]});
    let body = sse_event("", &chunk);
    let line = json!({
        "request": {"method": "POST", "url": "http://127.0.0.1:1/v1/chat/completions", "body": {}},
        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": body,
            "chunks": [body.len()], "cut": "connection reset by peer"}
    });
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let cassette = Cassette::replay(&path).unwrap().ignore("");
    let model = Format::Chat.model(DEAD, cassette);
    let events: Vec<_> = model.stream(question("Paris")).collect().await;
    assert!(
        matches!(&events[0], Ok(StreamEvent::TextDelta { text }) if text == "Sunny"),
        "{events:?}"
    );
    let last = events.last().unwrap();
    assert!(
        matches!(last, Err(ModelError::Network(m)) if m.contains("the stream was cut")),
        "{events:?}"
    );
}

/// Lines are written in the order the requests were made, even when a later stream ends
/// first: replay matches by place.
#[tokio::test]
async fn lines_follow_the_order_of_the_requests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("order.jsonl");
    {
        let server = MockServer::with_script([
            // One event at a time, 20 ms apart: the stream is still open after its first.
            MockResponse::text("first").pace(std::time::Duration::from_millis(20)),
            MockResponse::text("second"),
        ])
        .await;
        let origin = format!("http://{}", server.addr());
        let model = Format::Chat.model(&origin, Cassette::record(&path).unwrap());
        let mut first = model.stream(question("Paris"));
        // The first stream is open (its headers arrived) before the second request is made.
        let head = first.next().await.unwrap().unwrap();
        let second: Vec<_> = model.stream(question("Rome")).collect().await;
        assert_eq!(
            Outcome::Streamed(second.into_iter().collect::<Result<_, _>>().unwrap()).text(),
            "second"
        );
        assert!(
            std::fs::read_to_string(&path).unwrap().is_empty(),
            "the second waits for the first"
        );
        let mut rest = vec![head];
        rest.extend(first.map(Result::unwrap).collect::<Vec<_>>().await);
        assert_eq!(Outcome::Streamed(rest).text(), "first");
    }
    let file = lines(&path);
    assert_eq!(file.len(), 2);
    assert_eq!(
        file[0]["request"]["body"]["messages"][1]["content"],
        "Weather in Paris?"
    );
    assert_eq!(
        file[1]["request"]["body"]["messages"][1]["content"],
        "Weather in Rome?"
    );
}

/// The response caps apply to a replayed body as to a real one.
#[tokio::test]
async fn caps_apply_to_replayed_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("caps.jsonl");
    record_chat(&path, "Paris").await;
    let model = OpenAiModel::builder("gpt-4o-mini")
        .base_url(format!("{DEAD}/v1"))
        .max_body_bytes(16)
        .cassette(Cassette::replay(&path).unwrap())
        .build()
        .unwrap();
    let err = model.invoke(question("Paris")).await.unwrap_err();
    assert!(
        matches!(err, ModelError::LimitExceeded { max: 16, .. }),
        "{err:?}"
    );
}

/// Recording replaces a file only once it has something to write: a run that fails before
/// its first request (no key set, say) leaves the old recording alone.
#[tokio::test]
async fn recording_replaces_a_file_when_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("replace.jsonl");
    record_chat(&path, "Paris").await;
    drop(Cassette::record(&path).unwrap());
    assert_eq!(lines(&path).len(), 1);
    record_chat(&path, "Rome").await;
    let file = lines(&path);
    assert_eq!(file.len(), 1);
    assert_eq!(
        file[0]["request"]["body"]["messages"][1]["content"],
        "Weather in Rome?"
    );
}
