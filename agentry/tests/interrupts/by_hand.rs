//! A tool that asks, called by hand in a test: with answers supplied, and without (its question
//! comes back).

use super::*;

#[tokio::test]
async fn a_tool_that_asks_can_be_tested_by_hand_with_answers() {
    let rt = ToolRuntime::new()
        .with_call_id("c1")
        .with_context(Shop::default())
        .with_state(Ledger::default())
        .with_answers([json!({"approved": false, "note": "too late"})]);
    let call = ToolCall::new("c1", "refund", json!({"order": "B2"}).to_string());
    let out = agentry::tool::invoke(&refund {}, &call, &rt).await.unwrap();
    assert_eq!(out.text_content(), "refund of B2 declined: too late");
}

#[tokio::test]
async fn a_tool_that_asks_without_an_answer_returns_its_question_by_hand() {
    let rt = ToolRuntime::new()
        .with_context(Shop::default())
        .with_state(Ledger::default());
    let call = ToolCall::new("c1", "refund", json!({"order": "B2"}).to_string());
    let err = agentry::tool::invoke(&refund {}, &call, &rt)
        .await
        .unwrap_err();
    let ToolCallError::Interrupted { tool, question } = err else {
        panic!("expected the question, got {err:?}");
    };
    assert_eq!(tool, "refund");
    assert_eq!(question.question, json!({"order": "B2", "amount": 42}));
}
