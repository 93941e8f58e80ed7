//! An agent keeps the threads it ran decoded, and each run checks its copy against the
//! thread's newest checkpoint: what another worker (another agent, here) wrote meanwhile is
//! in the next request, and a deleted thread starts anew.

use std::sync::Arc;

use agentry::Message;
use agentry::agent::{AgentBuilder, NoTools};
use agentry::persist::{Checkpointer, SqliteCheckpointer};
use agentry::testing::{ScriptedModel, Turn};

fn texts(messages: &[Message]) -> Vec<String> {
    messages.iter().map(Message::text).collect()
}

#[tokio::test]
async fn a_cached_thread_sees_what_another_worker_wrote_since() {
    let dir = tempfile::tempdir().unwrap();
    let cp: Arc<dyn Checkpointer> = Arc::new(
        SqliteCheckpointer::open(dir.path().join("t.db"))
            .await
            .unwrap(),
    );
    let model_a = Arc::new(ScriptedModel::new([
        Turn::text("a1"),
        Turn::text("a2"),
        Turn::text("a3"),
    ]));
    let a = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&model_a), NoTools)
        .instructions("Be brief.")
        .shared_checkpointer(Arc::clone(&cp))
        .build();
    let b = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("b1")]), NoTools)
        .instructions("Be brief.")
        .shared_checkpointer(Arc::clone(&cp))
        .build();

    a.thread("t").run("one", ()).await.unwrap();
    b.thread("t").run("two", ()).await.unwrap();
    let run = a.thread("t").run("three", ()).await.unwrap();
    assert_eq!(
        texts(&run.messages),
        ["Be brief.", "one", "a1", "two", "b1", "three", "a2"]
    );
    let sent = &model_a.requests()[1].messages;
    assert_eq!(
        texts(sent),
        ["Be brief.", "one", "a1", "two", "b1", "three"]
    );

    // Deleted by the other worker and started again: the cached copy is not used.
    b.thread("t").delete().await.unwrap();
    let run = a.thread("t").run("four", ()).await.unwrap();
    assert_eq!(texts(&run.messages), ["Be brief.", "four", "a3"]);
    assert_eq!(
        texts(&cp.latest("t").await.unwrap().unwrap().messages),
        ["four", "a3"]
    );
}
