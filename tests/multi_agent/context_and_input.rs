//! What a sub-agent is given: the parent's context (shared, projected by a named function, or
//! none) and a typed input; an agent tool called by hand needs a model.

use super::*;

#[derive(Debug)]
struct App {
    user: String,
}

#[derive(Debug)]
struct Notebook {
    owner: String,
}

fn notebook_for(app: &App) -> Notebook {
    Notebook {
        owner: app.user.to_uppercase(),
    }
}

/// Reads the notebook's owner.
#[tool]
fn owner(notebook: Context<Notebook>) -> String {
    notebook.owner.clone()
}

/// Reads the user.
#[tool]
fn whoami(app: Context<App>) -> String {
    app.user.clone()
}

/// Keeps notes.
#[agent(tools(owner), context = Notebook, as_tool(context_from(App = notebook_for)))]
struct NoteKeeper;

/// Knows the user.
#[agent(tools(whoami), context = App)]
struct Greeter;

/// Talks to no one in particular.
#[agent(tools())]
struct Echo;

/// Delegates.
#[agent(tools(NoteKeeper, Greeter, Echo), context = App)]
struct Desk;

#[tokio::test]
async fn the_parent_context_is_shared_projected_or_left_out() {
    let desk = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("n", "note_keeper", r#"{"prompt":"whose notebook?"}"#),
            ToolCall::new("g", "greeter", r#"{"prompt":"who am I?"}"#),
            ToolCall::new("e", "echo", r#"{"prompt":"hi"}"#),
        ]),
        Turn::text("done"),
    ]));
    let keeper = Arc::new(ScriptedModel::new([
        Turn::tool_call("owner", json!({})),
        Turn::text("kept"),
    ]));
    let greeter = Arc::new(ScriptedModel::new([
        Turn::tool_call("whoami", json!({})),
        Turn::text("greeted"),
    ]));
    let echo = Arc::new(ScriptedModel::new([Turn::text("hi")]));
    let run = Desk::builder(desk.clone())
        .sub_agent::<NoteKeeper>(SubAgentOptions::new().model(keeper.clone()))
        .sub_agent::<Greeter>(SubAgentOptions::new().model(greeter.clone()))
        .sub_agent::<Echo>(SubAgentOptions::new().model(echo.clone()))
        .build()
        .run("go", App { user: "ada".into() })
        .await
        .unwrap();
    for model in [&desk, &keeper, &greeter, &echo] {
        model.assert_complete();
    }
    let answers: Vec<String> = run
        .steps
        .iter()
        .map(|s| s.result.as_ref().unwrap().text_content())
        .collect();
    assert_eq!(answers, ["kept", "greeted", "hi"]);
    // The note keeper's context was projected by `notebook_for`; the greeter shares `App`.
    assert_eq!(keeper.requests()[1].messages.last().unwrap().text(), "ADA");
    assert_eq!(greeter.requests()[1].messages.last().unwrap().text(), "ada");
}

/// A research request.
#[derive(Debug, Deserialize, JsonSchema)]
struct Research {
    /// The topic.
    topic: String,
    /// How many facts to find.
    facts: u8,
}

impl AgentInput for Research {
    fn into_input(self) -> Input {
        Input::new(format!("Find {} facts about {}.", self.facts, self.topic))
    }
}

/// Finds a given number of facts.
#[agent(tools(), as_tool(name = "fact_finder", description = "Finds facts.", input = Research))]
struct Facts;

/// Asks for facts.
#[agent(tools(Facts))]
struct Asker;

#[tokio::test]
async fn a_sub_agent_takes_a_typed_input() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("fact_finder", json!({ "topic": "Rust", "facts": 2 })),
        Turn::text("Two facts."),
        Turn::text("It found two facts."),
    ]));
    let run = Asker::builder(model.clone())
        .build()
        .run("Facts?", ())
        .await
        .unwrap();
    assert_eq!(run.output, "It found two facts.");
    let tool = &model.requests()[0].tools[0];
    assert_eq!(tool.name, "fact_finder");
    assert_eq!(tool.description, "Finds facts.");
    assert_eq!(tool.parameters["properties"]["topic"]["type"], "string");
    assert_eq!(
        model.requests()[1].messages.last().unwrap(),
        &Message::user("Find 2 facts about Rust.")
    );
    // Bad arguments are the parent model's to fix, like any tool's.
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("fact_finder", json!({ "topic": "Rust" })),
        Turn::text("Sorry."),
    ]));
    let run = Asker::builder(model.clone())
        .build()
        .run("Facts?", ())
        .await
        .unwrap();
    assert!(matches!(
        run.steps[0].result,
        Err(ToolCallError::InvalidArguments { .. })
    ));
}

#[tokio::test]
async fn an_agent_tool_called_by_hand_needs_a_model() {
    let rt = ToolRuntime::new();
    let args = agentry::multi::Prompt {
        prompt: "hi".into(),
    };
    let error = Echo.call(args.clone(), &rt).await.unwrap_err();
    assert!(error.model_message().contains("has no model"), "{error}");
    let rt = ToolRuntime::new().with_model(ScriptedModel::new([Turn::text("hello")]));
    let out = Echo.call(args, &rt).await.unwrap();
    assert_eq!(out.text_content(), "hello");
}
