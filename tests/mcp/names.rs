//! Tool names MCP allows and providers refuse (`files.read`), against a Python SDK server.

use super::*;

async fn names_server(clash: bool) -> McpClient {
    let mut client = McpClient::stdio("names-py", python()).arg(script("names_server.py"));
    if clash {
        client = client.arg("--clash");
    }
    client
        .connect()
        .await
        .expect("the Python names server starts")
}

#[tokio::test]
async fn a_dotted_tool_name_is_offered_mapped_and_called_under_its_own_name() {
    let client = names_server(false).await;
    let tools = McpToolset::new(&client)
        .await
        .expect("one dotted name does not fail the whole server");
    let mut names: Vec<&str> = tools.names().collect();
    names.sort();
    assert_eq!(names, ["echo", "files_read"]);

    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("files_read", json!({ "path": "notes.txt" })),
        Turn::text("done"),
    ]));
    let agent = AgentBuilder::<_, _, (), ()>::new(model.clone(), NoTools)
        .mcp_tools(&tools)
        .unwrap()
        .build();
    let run = agent.run("read the notes", ()).await.unwrap();
    let output = run.steps[0]
        .result
        .as_ref()
        .expect("the server ran `files.read`");
    assert_eq!(text_of(output), "contents of notes.txt");
    let offered: Vec<String> = model.requests()[0]
        .tools
        .iter()
        .map(|d| d.name.clone())
        .collect();
    assert!(offered.iter().any(|n| n == "files_read"), "{offered:?}");

    let prefixed = McpToolset::builder(&client)
        .prefix("fs")
        .load()
        .await
        .unwrap();
    let tool = prefixed
        .tools()
        .iter()
        .find(|t| t.definition().name == "fs_files_read")
        .expect("prefixed and mapped");
    assert_eq!(tool.remote_name(), "files.read");
    let output = tool.invoke(json!({ "path": "a" })).await.unwrap();
    assert_eq!(text_of(&output), "contents of a");
}

#[tokio::test]
async fn two_names_that_map_to_one_are_a_typed_clash_naming_both() {
    let client = names_server(true).await;
    let err = McpToolset::new(&client).await.unwrap_err();
    let McpError::MappedNameClash {
        name,
        first,
        second,
    } = &err
    else {
        panic!("expected MappedNameClash, got {err}");
    };
    assert_eq!(name, "files_read");
    let mut both = [first.as_str(), second.as_str()];
    both.sort();
    assert_eq!(both, ["files.read", "files_read"], "{err}");
}
