//! The store conformance suite, run against every backend (in-memory, SQLite, Postgres on a
//! real server the harness starts).

mod cases;

use agentry::Store;
use agentry::testing::PostgresServer;

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

            case!(put_get_delete_and_list_by_namespace);
            case!(search_by_namespace_prefix_with_limit_and_offset);
            case!(search_filters_on_json_fields);
            case!(full_text_search_finds_every_word_and_follows_updates);
            case!(a_document_with_a_ttl_disappears_after_it);
            case!(bad_input_is_a_store_error);
        }
    };
}

suite!(memory);
suite!(sqlite);
suite!(postgres);

/// A backend written before search and TTL existed keeps compiling and says what it lacks.
mod older_backend {
    use agentry::Store;
    use agentry::store::{SearchQuery, StoreBackend, StoreError};
    use futures::future::BoxFuture;
    use serde_json::Value;

    struct KeyValueOnly;

    impl StoreBackend for KeyValueOnly {
        fn get<'a>(
            &'a self,
            _: &'a [&'a str],
            _: &'a str,
        ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
            Box::pin(async { Ok(None) })
        }
        fn put<'a>(
            &'a self,
            _: &'a [&'a str],
            _: &'a str,
            _: Value,
        ) -> BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async { Ok(()) })
        }
        fn delete<'a>(
            &'a self,
            _: &'a [&'a str],
            _: &'a str,
        ) -> BoxFuture<'a, Result<bool, StoreError>> {
            Box::pin(async { Ok(false) })
        }
        fn list<'a>(
            &'a self,
            _: &'a [&'a str],
        ) -> BoxFuture<'a, Result<Vec<(String, Value)>, StoreError>> {
            Box::pin(async { Ok(Vec::new()) })
        }
    }

    #[tokio::test]
    async fn search_and_ttl_are_typed_errors_not_silent() {
        let store = Store::new(KeyValueOnly);
        let err = store.search(&SearchQuery::new(&[])).await.unwrap_err();
        assert!(err.to_string().contains("does not support search"), "{err}");
        let err = store
            .put_with_ttl(&["a"], "k", Value::Null, std::time::Duration::from_secs(1))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("time to live"), "{err}");
    }
}
