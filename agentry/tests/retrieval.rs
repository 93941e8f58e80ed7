//! Vector search in every store backend (in-memory, SQLite, Postgres on a real server the
//! harness starts), exact recall against a brute-force search, and an agent using
//! [`RetrieverTool`] in a scripted run.

#[path = "retrieval_support/cases.rs"]
mod cases;

use std::sync::Arc;

use agentry::Store;
use agentry::agent::{AgentBuilder, NoTools};
use agentry::store::{RetrieverTool, ScoredItem, StoreIndex};
use agentry::testing::{HashEmbeddingModel, PostgresServer, ScriptedModel, Turn};
use agentry::{Message, ToolCall};
use serde_json::{Value, json};

async fn memory() -> (Store, Option<tempfile::TempDir>) {
    (Store::in_memory(), None)
}

async fn sqlite() -> (Store, Option<tempfile::TempDir>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::sqlite(dir.path().join("store.db"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (store, Some(dir))
}

async fn postgres() -> (Store, Option<tempfile::TempDir>) {
    let server = PostgresServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.create_database().unwrap_or_else(|e| panic!("{e}"));
    let store = Store::postgres(&url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (store, None)
}

macro_rules! suite {
    ($backend:ident) => {
        mod $backend {
            macro_rules! case {
                ($name:ident) => {
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $name() {
                        let (store, _dir) = super::$backend().await;
                        super::cases::$name(&store).await;
                    }
                };
            }

            case!(text_search_ranks_filters_and_follows_writes);
            case!(bad_vector_input_is_a_store_error);
            case!(recall_against_brute_force_is_exact);
            case!(put_many_embeds_in_batches);
        }
    };
}

suite!(memory);
suite!(sqlite);
suite!(postgres);

#[test]
fn the_brute_force_reference_ranks_by_cosine_then_key() {
    let corpus = vec![
        ("b".to_string(), vec![1.0, 0.0]),
        ("a".to_string(), vec![2.0, 0.0]),
        ("c".to_string(), vec![0.0, 1.0]),
    ];
    assert_eq!(cases::brute_force(&corpus, &[1.0, 0.1], 2), ["a", "b"]);
}

#[tokio::test]
async fn an_agent_retrieves_documents_with_the_retriever_tool() {
    let store = Store::in_memory().with_index(StoreIndex::new(HashEmbeddingModel::new(128)));
    for (key, text) in [
        ("refunds", "Refunds are paid within 14 days of the return"),
        ("shipping", "Shipping to Europe takes 3 to 5 days"),
        ("warranty", "The warranty covers two years of repairs"),
    ] {
        store
            .put(&["manual"], key, json!({ "text": text }))
            .await
            .unwrap();
    }
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([ToolCall::new(
            "c1",
            "search_manual",
            r#"{"query": "how many days until refunds are paid", "k": 2}"#,
        )]),
        Turn::tool_calls([ToolCall::new("c2", "search_manual", r#"{"k": 0}"#)]),
        Turn::text("Within 14 days."),
    ]));
    let tool = RetrieverTool::new(
        "search_manual",
        "Search the product manual.",
        store,
        &["manual"],
    )
    .max_k(5);
    let agent = AgentBuilder::<_, _, (), ()>::new(model.clone(), NoTools)
        .dyn_tool(tool)
        .build();
    let run = agent.run("When do I get my refund?", ()).await.unwrap();
    assert_eq!(run.output, "Within 14 days.");

    // The model saw the tool like any other.
    let declared = &model.requests()[0].tools[0];
    assert_eq!(declared.name, "search_manual");
    assert_eq!(declared.parameters["properties"]["k"]["maximum"], 5);

    // The first call returned the top 2 documents with scores, best first.
    let output = run.steps[0].result.as_ref().unwrap();
    let results: Value = serde_json::from_str(&output.text_content()).unwrap();
    let results = results["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["key"], "refunds");
    assert_eq!(results[0]["namespace"], json!(["manual"]));
    assert!(results[0]["score"].as_f64().unwrap() > results[1]["score"].as_f64().unwrap());
    assert_eq!(
        results[0]["document"]["text"],
        "Refunds are paid within 14 days of the return"
    );
    let items = output.artifact::<Vec<ScoredItem>>().unwrap();
    assert_eq!(items[0].key, "refunds");

    // Bad arguments went back to the model as an error it can correct.
    assert!(run.steps[1].result.is_err());
    let Message::Tool(second) = &model.requests()[2].messages[4] else {
        panic!("expected the second tool result");
    };
    assert!(second.is_error);
    assert!(format!("{second:?}").contains("`k`"), "{second:?}");
}
