//! The test Postgres server starts, accepts connections on loopback and stops on drop.

use agentry::testing::PostgresServer;

#[test]
fn starts_creates_databases_and_stops_on_drop() {
    let server = PostgresServer::start().unwrap_or_else(|e| panic!("{e}"));
    let port = server.port();
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    let a = server.create_database().unwrap_or_else(|e| panic!("{e}"));
    let b = server.create_database().unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(a, b);
    assert!(a.starts_with(&format!("postgres://postgres@127.0.0.1:{port}/")));
    drop(server);
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the server still listens after drop"
    );
}
