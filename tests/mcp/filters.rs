//! `only` and `exclude` at every listing, against the Python SDK server whose tool list
//! changes (`add_tool` adds `late_tool` and sends `tools/list_changed`).

use super::*;

async fn add_late_tool(client: &McpClient) {
    let mut changes = client.list_changes();
    client.call_tool("add_tool", json!({})).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .expect("tools/list_changed arrives")
        .unwrap();
}

fn sorted<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut names: Vec<&str> = names.collect();
    names.sort_unstable();
    names
}

#[tokio::test]
async fn excluded_tools_stay_out_and_tools_added_later_come_in() {
    let client = everything().await;
    let tools = McpToolset::builder(&client)
        .exclude(["crash", "slow"])
        .load()
        .await
        .unwrap();
    assert!(tools.names().any(|n| n == "echo"), "{tools:?}");
    assert!(
        !tools.names().any(|n| n == "crash" || n == "slow"),
        "{tools:?}"
    );
    add_late_tool(&client).await;
    let fresh = tools.refreshed().await.unwrap();
    assert!(fresh.names().any(|n| n == "late_tool"), "{fresh:?}");
    assert!(
        !fresh.names().any(|n| n == "crash" || n == "slow"),
        "{fresh:?}"
    );
}

#[tokio::test]
async fn the_allow_list_is_the_same_at_every_listing_and_grows_with_each_call() {
    let client = everything().await;
    let tools = McpToolset::builder(&client)
        .prefix("py")
        .only(["echo"])
        .only(["late_tool", "crash"])
        .exclude(["crash"])
        .load()
        .await
        .unwrap();
    // `late_tool` is named but not listed yet; `crash` is named and excluded.
    assert_eq!(sorted(tools.names()), ["py_echo"]);
    add_late_tool(&client).await;
    let fresh = tools.refreshed().await.unwrap();
    assert_eq!(sorted(fresh.names()), ["py_echo", "py_late_tool"]);
}
