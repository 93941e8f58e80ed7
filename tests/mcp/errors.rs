//! What McpError says and what it keeps: argument errors named as the client's, typed causes
//! reachable through `source()`, and no secrets in the message.

use std::error::Error as _;

use agentry::mcp::rmcp::ServiceError;
use agentry::mcp::rmcp::service::ClientInitializeError;

use super::*;

/// The chain below `err`, outermost first.
fn causes(err: &McpError) -> Vec<&(dyn std::error::Error + 'static)> {
    let mut chain = Vec::new();
    let mut next = err.source();
    while let Some(cause) = next {
        chain.push(cause);
        next = cause.source();
    }
    chain
}

async fn shouter() -> (McpHttpServer, McpClient) {
    let server = McpServer::builder("shouter")
        .context(|_| Caller { transport: "http" })
        .tool(shout(Arc::new(AtomicUsize::new(0))))
        .build();
    let http = server
        .serve_http(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let client = McpClient::http("shouter", http.url())
        .connect()
        .await
        .unwrap();
    (http, client)
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_the_client_s_error_and_are_not_quoted() {
    let (http, client) = shouter().await;
    let err = client
        .call_tool("shout", json!("my password is hunter2"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, McpError::InvalidArguments { tool, .. } if tool == "shout"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("must be a JSON object"), "{message}");
    assert!(message.contains("not a string"), "{message}");
    assert!(
        !message.contains("refused"),
        "the server refused nothing: {message}"
    );
    assert!(
        !message.contains("hunter2"),
        "the value is not quoted: {message}"
    );
    http.shutdown().await;
}

#[tokio::test]
async fn a_server_s_refusal_keeps_rmcp_s_error_as_its_source() {
    let (http, client) = shouter().await;
    let err = client.call_tool("nope", json!({})).await.unwrap_err();
    assert!(matches!(err, McpError::Protocol { .. }), "{err:?}");
    let chain = causes(&err);
    assert!(
        matches!(
            chain.first().and_then(|c| c.downcast_ref::<ServiceError>()),
            Some(ServiceError::McpError(_))
        ),
        "{chain:?}"
    );
    http.shutdown().await;
}

#[tokio::test]
async fn a_failed_reconnection_keeps_the_chain_down_to_rmcp_s_handshake_error() {
    // Starts the Python server once; every later start fails before the handshake.
    let once = std::env::temp_dir().join(format!(
        "agentry-mcp-once-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let launcher = format!(
        "if [ -e '{once}' ]; then echo 'no second start' >&2; exit 1; fi; touch '{once}'; exec '{python}' '{script}'",
        once = once.display(),
        python = python().display(),
        script = script("everything_server.py"),
    );
    let client = McpClient::stdio("once", "sh")
        .args(["-c", &launcher])
        .reconnect(Reconnect::OnNextCall {
            max_attempts: 2,
            backoff: Duration::from_millis(10),
        })
        .connect()
        .await
        .unwrap();
    let gone = client.call_tool("crash", json!({})).await.unwrap_err();
    assert!(matches!(gone, McpError::ServerGone { .. }), "{gone:?}");
    assert!(
        causes(&gone)
            .first()
            .is_some_and(|c| c.downcast_ref::<ServiceError>().is_some()),
        "{gone:?}"
    );

    let err = client
        .call_tool("echo", json!({ "text": "x" }))
        .await
        .unwrap_err();
    let _ = std::fs::remove_file(&once);
    assert!(
        matches!(&err, McpError::ReconnectFailed { attempts: 2, .. }),
        "{err:?}"
    );
    let chain = causes(&err);
    let last = chain
        .first()
        .and_then(|c| c.downcast_ref::<McpError>())
        .expect("the last attempt's error");
    assert!(matches!(last, McpError::Connect { .. }), "{last:?}");
    assert!(last.to_string().contains("no second start"), "{last}");
    assert!(
        chain
            .iter()
            .any(|c| c.downcast_ref::<ClientInitializeError>().is_some()),
        "{chain:?}"
    );
}

#[tokio::test]
async fn a_credential_in_the_url_stays_out_of_the_message() {
    // Nothing listens on this port once the listener is dropped.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let err = McpClient::http(
        "private",
        format!("http://agent:s3cret-token@127.0.0.1:{port}/mcp?key=s3cret-key"),
    )
    .connect_timeout(Duration::from_secs(10))
    .connect()
    .await
    .unwrap_err();
    assert!(matches!(err, McpError::Connect { .. }), "{err:?}");
    let message = err.to_string();
    assert!(!message.contains("s3cret"), "{message}");
    assert!(err.source().is_some(), "the cause is kept: {err:?}");
}
