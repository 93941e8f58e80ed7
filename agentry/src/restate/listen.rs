//! The service endpoint's listener, with `TCP_NODELAY` on its connections.
//!
//! The engine talks to a service over one HTTP/2 connection per invocation, and each journaled
//! step is a small frame the service sends and then waits on. `restate_sdk`'s
//! `HttpServer::listen_and_serve` leaves Nagle's algorithm on, so such a frame can wait for the
//! acknowledgement of the previous one, which the engine's side delays: measured by
//! `agentry/benches/restate_overhead.rs`, a 12-step run took 1,437 ms that way and 91 ms with
//! `TCP_NODELAY` (13 model requests and 24 tool calls, 49 journal entries).

use std::io;
use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket};

/// A listener on `addr` for a Restate service endpoint, whose accepted connections have
/// `TCP_NODELAY` set (they inherit it from the listening socket), and `SO_REUSEADDR`, so a
/// service restarted after a crash binds its port again at once. Serve it with
/// `restate_sdk::http_server::HttpServer::serve`; call it inside a Tokio runtime.
///
/// ```no_run
/// # async fn demo(endpoint: restate_sdk::endpoint::Endpoint) -> std::io::Result<()> {
/// use restate_sdk::http_server::HttpServer;
///
/// let listener = agentry::restate::listener("127.0.0.1:9080".parse().unwrap())?;
/// HttpServer::new(endpoint).serve(listener).await;
/// # Ok(()) }
/// ```
pub fn listener(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.set_nodelay(true)?;
    socket.bind(addr)?;
    socket.listen(1024)
}
