//! The built-in middleware that changes what the model reads: context editing, summarization
//! and PII redaction.

use super::*;

/// A history with three tool call/result pairs.
fn long_history() -> Vec<Message> {
    let mut history = vec![Message::system("Be brief."), Message::user("start")];
    for i in 0..3 {
        history.push(Message::assistant_tool_calls(vec![ToolCall::new(
            format!("c{i}"),
            "add",
            r#"{"a":1,"b":1}"#,
        )]));
        history.push(Message::tool_result(
            format!("c{i}"),
            "add",
            format!("result {i}"),
        ));
    }
    history
}

#[tokio::test]
async fn context_editing_clears_old_tool_results_and_keeps_every_pair() {
    let (_, model) = both(
        || Arc::new(ScriptedModel::new([Turn::text("ok")])),
        |m| {
            Helper::builder(m)
                .middleware(ClearToolResults::keep_last(1))
                .build()
        },
        Input::with_history(long_history(), "next"),
        User::default,
    )
    .await
    .unwrap();
    let sent: Vec<String> = model.requests()[0]
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Tool(_)))
        .map(Message::text)
        .collect();
    assert_eq!(sent, ["[cleared]", "[cleared]", "result 2"]);
}

#[tokio::test]
async fn summarization_replaces_older_messages_and_never_splits_a_call_from_its_result() {
    let summarizer = Arc::new(ScriptedModel::new([
        Turn::text("they added numbers"),
        Turn::text("they added numbers"),
    ]));
    let (run, model) = both(
        || Arc::new(ScriptedModel::new([Turn::text("ok")])),
        |m| {
            Helper::builder(m)
                .middleware(
                    Summarization::new(Arc::clone(&summarizer), 5)
                        // Count messages, so the budget is easy to read.
                        .counter(|messages: &[Message]| messages.len() as u64)
                        .keep_last(2),
                )
                .build()
        },
        Input::with_history(long_history(), "next"),
        User::default,
    )
    .await
    .unwrap();
    // 9 messages: keep the last 2 would start at a tool result; the cut moves to its call.
    let sent = &model.requests()[0].messages;
    let texts: Vec<String> = sent.iter().map(Message::text).collect();
    assert_eq!(texts[0], "Helps.");
    assert_eq!(
        texts[1],
        "Summary of the conversation so far:\nthey added numbers"
    );
    assert!(matches!(&sent[2], Message::Assistant(a) if a.tool_calls[0].id == "c2"));
    assert_eq!(texts[3], "result 2");
    assert_eq!(texts[4], "next");
    assert_eq!(sent.len(), 5);
    // The summary persists in the transcript.
    assert_eq!(run.messages[1].text(), texts[1]);
    // The summarizer saw the older messages, calls included.
    let asked = summarizer.requests()[0].messages[1].text();
    assert!(
        asked.contains("user: start") && asked.contains("[called add("),
        "{asked}"
    );
    assert!(
        asked.contains("tool add: result 1") && !asked.contains("result 2"),
        "{asked}"
    );
}

#[test]
fn summarization_cut_moves_before_tool_results() {
    let s = Summarization::new(ScriptedModel::new([]), 0).keep_last(1);
    let history = long_history();
    // The last message is a tool result: the cut goes back to the call that made it.
    assert_eq!(s.cut(&history, 1), Some(6));
    let s = Summarization::new(ScriptedModel::new([]), 0).keep_last(100);
    assert_eq!(s.cut(&history, 1), None);
}

#[test]
fn pii_finds_each_kind_and_applies_each_strategy() {
    let text = "mail ada@example.com, card 4111-1111-1111-1111, ip 192.168.1.20, key sk-abcdefghijklmnop1234";
    let redact = Pii::new(PiiKind::Email, PiiStrategy::Redact)
        .rule(PiiKind::CreditCard, PiiStrategy::Redact)
        .rule(PiiKind::IpAddress, PiiStrategy::Redact)
        .rule(PiiKind::ApiKey, PiiStrategy::Redact);
    assert_eq!(
        redact.clean(text).unwrap(),
        "mail [REDACTED_EMAIL], card [REDACTED_CREDIT_CARD], ip [REDACTED_IP], key [REDACTED_API_KEY]"
    );
    let mask = Pii::new(PiiKind::Email, PiiStrategy::Mask)
        .rule(PiiKind::CreditCard, PiiStrategy::Mask)
        .rule(PiiKind::IpAddress, PiiStrategy::Mask)
        .rule(PiiKind::ApiKey, PiiStrategy::Mask);
    assert_eq!(
        mask.clean(text).unwrap(),
        "mail a***@example.com, card ****-****-****-1111, ip *.*.*.20, key sk-a****"
    );
    let hash = Pii::new(PiiKind::Email, PiiStrategy::Hash);
    let once = hash.clean("ada@example.com").unwrap();
    assert!(once.starts_with("<email_hash:"), "{once}");
    assert_eq!(hash.clean("ada@example.com").unwrap(), once, "stable");
    assert_ne!(hash.clean("bob@example.com").unwrap(), once);
    let block = Pii::new(PiiKind::CreditCard, PiiStrategy::Block);
    assert_eq!(block.clean(text).unwrap_err(), "credit_card");

    // Not personal data: a number failing Luhn, an impossible address.
    let strict = Pii::new(PiiKind::CreditCard, PiiStrategy::Redact)
        .rule(PiiKind::IpAddress, PiiStrategy::Redact);
    let plain = "order 4111 1111 1111 1112 from 999.1.1.1";
    assert_eq!(strict.clean(plain).unwrap(), plain);
    assert!(agentry::middleware::pii::luhn("4111111111111111"));
    assert!(!agentry::middleware::pii::luhn("4111111111111112"));

    let custom = Pii::custom("employee_id", r"EMP-\d{6}", PiiStrategy::Mask).unwrap();
    assert_eq!(custom.clean("id EMP-123456").unwrap(), "id ******3456");
    assert!(Pii::custom("bad", "(", PiiStrategy::Redact).is_err());
}

#[tokio::test]
async fn pii_applies_to_input_output_and_tool_results() {
    let pii = || {
        Pii::new(PiiKind::Email, PiiStrategy::Redact)
            .rule(PiiKind::CreditCard, PiiStrategy::Mask)
            .apply_to_output(true)
            .apply_to_tool_results(true)
    };
    let (run, model) = both(
        || {
            Arc::new(ScriptedModel::new([
                Turn::tool_call("lookup", json!({"name": "ada"})),
                Turn::text("Her address is ada@example.com."),
            ]))
        },
        |m| Helper::builder(m).middleware(pii()).build(),
        "find ada, I am bob@example.com",
        User::default,
    )
    .await
    .unwrap();
    let first: &ChatRequest = &model.requests()[0];
    assert_eq!(first.messages[1].text(), "find ada, I am [REDACTED_EMAIL]");
    let tool = model.requests()[1].messages.last().unwrap().text();
    assert_eq!(
        tool,
        "[REDACTED_EMAIL], card ****-****-****-1111, from 10.0.0.7"
    );
    assert_eq!(run.output, "Her address is [REDACTED_EMAIL].");

    let model = Arc::new(ScriptedModel::new([Turn::text("never")]));
    let err = Helper::builder(Arc::clone(&model))
        .middleware(Pii::new(PiiKind::CreditCard, PiiStrategy::Block))
        .build()
        .run("my card is 4111 1111 1111 1111", User::default())
        .await
        .unwrap_err();
    assert!(matches!(err.kind(), RunErrorKind::Middleware(e) if e.middleware == "Pii"));
    assert!(
        !err.to_string().contains("4111"),
        "the error never repeats the data: {err}"
    );
    assert_eq!(model.request_count(), 0);
}
