//! The cases every store backend must pass.

use std::collections::BTreeSet;
use std::time::Duration;

use agentry::Store;
use agentry::store::{Filter, SearchItem, SearchQuery};
use serde_json::json;

fn keys(items: &[SearchItem]) -> Vec<String> {
    items.iter().map(|i| i.key.clone()).collect()
}

fn key_set(items: &[SearchItem]) -> BTreeSet<String> {
    items.iter().map(|i| i.key.clone()).collect()
}

pub async fn put_get_delete_and_list_by_namespace(store: &Store) {
    assert_eq!(store.get(&["u", "7"], "prefs").await.unwrap(), None);
    store
        .put(&["u", "7"], "prefs", json!({"units": "c"}))
        .await
        .unwrap();
    store
        .put(&["u", "7"], "prefs", json!({"units": "f"}))
        .await
        .unwrap();
    store.put(&["u", "7"], "a", json!([1, 2])).await.unwrap();
    store
        .put(&["u", "8"], "prefs", json!("other user"))
        .await
        .unwrap();
    store
        .put(&["u", "7", "deeper"], "x", json!(null))
        .await
        .unwrap();
    store.put(&[], "root", json!(true)).await.unwrap();

    assert_eq!(
        store.get(&["u", "7"], "prefs").await.unwrap(),
        Some(json!({"units": "f"}))
    );
    assert_eq!(
        store.get(&["u", "8"], "prefs").await.unwrap(),
        Some(json!("other user"))
    );
    assert_eq!(
        store.get(&["u", "7", "deeper"], "x").await.unwrap(),
        Some(json!(null))
    );
    assert_eq!(store.get(&[], "root").await.unwrap(), Some(json!(true)));
    // Listing is the namespace itself, not its children, ordered by key.
    assert_eq!(
        store.list(&["u", "7"]).await.unwrap(),
        vec![
            ("a".to_string(), json!([1, 2])),
            ("prefs".to_string(), json!({"units": "f"}))
        ]
    );
    assert!(store.list(&["u"]).await.unwrap().is_empty());

    assert!(store.delete(&["u", "7"], "prefs").await.unwrap());
    assert!(!store.delete(&["u", "7"], "prefs").await.unwrap());
    assert_eq!(store.get(&["u", "7"], "prefs").await.unwrap(), None);
    assert_eq!(store.list(&["u", "7"]).await.unwrap().len(), 1);
}

async fn fill_users(store: &Store) {
    for (ns, key, doc) in [
        (
            vec!["users", "7"],
            "k1",
            json!({"name": "Ada", "stars": 5, "prefs": {"units": "celsius"}, "vip": true}),
        ),
        (
            vec!["users", "7"],
            "k2",
            json!({"name": "Bob", "stars": 4.0, "prefs": {"units": "fahrenheit"}, "vip": false}),
        ),
        (
            vec!["users", "8"],
            "k3",
            json!({"name": "Cy", "stars": "5", "prefs": {"units": "celsius"}, "note": null}),
        ),
        (vec!["users"], "k4", json!({"name": "Di", "stars": 2})),
        (vec!["users2"], "k5", json!({"name": "Ed", "stars": 5})),
        (vec!["teams"], "k6", json!({"name": "Fox", "stars": 3})),
    ] {
        store.put(&ns, key, doc).await.unwrap();
    }
}

pub async fn search_by_namespace_prefix_with_limit_and_offset(store: &Store) {
    fill_users(store).await;
    let all = store
        .search(&SearchQuery::new(&["users"]).limit(100))
        .await
        .unwrap();
    // Ordered by namespace then key; `users2` is not under `users`.
    assert_eq!(keys(&all), ["k4", "k1", "k2", "k3"]);
    assert_eq!(all[1].namespace, ["users", "7"]);
    assert_eq!(all[1].value["name"], "Ada");
    let seven = store
        .search(&SearchQuery::new(&["users", "7"]))
        .await
        .unwrap();
    assert_eq!(keys(&seven), ["k1", "k2"]);
    let everything = store
        .search(&SearchQuery::new(&[]).limit(100))
        .await
        .unwrap();
    assert_eq!(everything.len(), 6);
    let page = store
        .search(&SearchQuery::new(&["users"]).limit(2).offset(1))
        .await
        .unwrap();
    assert_eq!(keys(&page), ["k1", "k2"]);
    assert!(
        store
            .search(&SearchQuery::new(&["nobody"]))
            .await
            .unwrap()
            .is_empty()
    );
}

pub async fn search_filters_on_json_fields(store: &Store) {
    fill_users(store).await;
    let q = |f: Filter| SearchQuery::new(&["users"]).filter(f).limit(100);
    let units = store
        .search(&q(Filter::eq(["prefs", "units"], json!("celsius"))))
        .await
        .unwrap();
    assert_eq!(key_set(&units), BTreeSet::from(["k1".into(), "k3".into()]));
    // Numbers compare by value (4 == 4.0); the string "5" is not the number 5.
    let four = store
        .search(&q(Filter::eq(["stars"], json!(4))))
        .await
        .unwrap();
    assert_eq!(keys(&four), ["k2"]);
    let five = store
        .search(&q(Filter::eq(["stars"], json!(5))))
        .await
        .unwrap();
    assert_eq!(keys(&five), ["k1"]);
    let text_five = store
        .search(&q(Filter::eq(["stars"], json!("5"))))
        .await
        .unwrap();
    assert_eq!(keys(&text_five), ["k3"]);
    let vip = store
        .search(&q(Filter::eq(["vip"], json!(true))))
        .await
        .unwrap();
    assert_eq!(keys(&vip), ["k1"]);
    let not_vip = store
        .search(&q(Filter::eq(["vip"], json!(false))))
        .await
        .unwrap();
    assert_eq!(keys(&not_vip), ["k2"]);
    let null_note = store
        .search(&q(Filter::eq(["note"], json!(null))))
        .await
        .unwrap();
    assert_eq!(keys(&null_note), ["k3"], "a missing field is not null");
    let gte4 = store.search(&q(Filter::gte(["stars"], 4.0))).await.unwrap();
    assert_eq!(key_set(&gte4), BTreeSet::from(["k1".into(), "k2".into()]));
    let gt4 = store.search(&q(Filter::gt(["stars"], 4.0))).await.unwrap();
    assert_eq!(keys(&gt4), ["k1"]);
    let lt4 = store.search(&q(Filter::lt(["stars"], 4.0))).await.unwrap();
    assert_eq!(keys(&lt4), ["k4"]);
    let lte4 = store.search(&q(Filter::lte(["stars"], 4.0))).await.unwrap();
    assert_eq!(key_set(&lte4), BTreeSet::from(["k2".into(), "k4".into()]));
    // Filters combine with AND.
    let both = store
        .search(
            &SearchQuery::new(&["users"])
                .filter(Filter::eq(["prefs", "units"], json!("celsius")))
                .filter(Filter::gte(["stars"], 5.0)),
        )
        .await
        .unwrap();
    assert_eq!(keys(&both), ["k1"]);
    let missing = store
        .search(&q(Filter::eq(["prefs", "nope"], json!("x"))))
        .await
        .unwrap();
    assert!(missing.is_empty());
}

pub async fn full_text_search_finds_every_word_and_follows_updates(store: &Store) {
    store
        .put(
            &["mem"],
            "hotel",
            json!({"text": "Prefers QUIET hotels near the Louvre", "tags": ["paris", "travel"]}),
        )
        .await
        .unwrap();
    store
        .put(
            &["mem"],
            "food",
            json!({"text": "Vegetarian; loves Paris bistros", "stars": 4}),
        )
        .await
        .unwrap();
    store
        .put(
            &["other"],
            "noise",
            json!({"text": "quiet hotels elsewhere"}),
        )
        .await
        .unwrap();
    let search = |text: &str| SearchQuery::new(&["mem"]).text(text).limit(50);

    let hits = store.search(&search("quiet")).await.unwrap();
    assert_eq!(
        keys(&hits),
        ["hotel"],
        "case-insensitive, namespace respected"
    );
    let hits = store.search(&search("paris")).await.unwrap();
    assert_eq!(
        key_set(&hits),
        BTreeSet::from(["hotel".into(), "food".into()]),
        "strings in arrays count"
    );
    let hits = store.search(&search("paris vegetarian")).await.unwrap();
    assert_eq!(keys(&hits), ["food"], "every word must occur");
    assert!(
        store
            .search(&search("paris submarine"))
            .await
            .unwrap()
            .is_empty()
    );
    // Query syntax characters are plain text, never an error.
    let hits = store
        .search(&search("\"quiet\" OR (hotels* -"))
        .await
        .unwrap();
    assert!(hits.iter().all(|h| h.key == "hotel"), "{hits:?}");
    // Text search combines with filters.
    let hits = store
        .search(&search("paris").filter(Filter::eq(["stars"], json!(4))))
        .await
        .unwrap();
    assert_eq!(keys(&hits), ["food"]);

    // The index follows updates and deletes.
    store
        .put(
            &["mem"],
            "hotel",
            json!({"text": "Now prefers lively hostels"}),
        )
        .await
        .unwrap();
    assert!(store.search(&search("quiet")).await.unwrap().is_empty());
    assert_eq!(
        keys(&store.search(&search("hostels")).await.unwrap()),
        ["hotel"]
    );
    store.delete(&["mem"], "hotel").await.unwrap();
    assert!(store.search(&search("hostels")).await.unwrap().is_empty());
}

pub async fn a_document_with_a_ttl_disappears_after_it(store: &Store) {
    store
        .put_with_ttl(
            &["s"],
            "short",
            json!({"text": "ephemeral note"}),
            Duration::from_millis(50),
        )
        .await
        .unwrap();
    store
        .put_with_ttl(
            &["s"],
            "long",
            json!({"text": "durable note"}),
            Duration::from_secs(600),
        )
        .await
        .unwrap();
    store
        .put_with_ttl(&["s"], "renewed", json!(1), Duration::from_millis(50))
        .await
        .unwrap();
    // A plain put replaces the document and its expiry.
    store.put(&["s"], "renewed", json!(2)).await.unwrap();
    // Only the direction time guarantees is asserted: after the TTL, the document is gone.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(store.get(&["s"], "short").await.unwrap(), None);
    assert_eq!(
        store.get(&["s"], "long").await.unwrap(),
        Some(json!({"text": "durable note"}))
    );
    assert_eq!(store.get(&["s"], "renewed").await.unwrap(), Some(json!(2)));
    let listed: Vec<String> = store
        .list(&["s"])
        .await
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(listed, ["long", "renewed"]);
    let found = store
        .search(&SearchQuery::new(&["s"]).text("note"))
        .await
        .unwrap();
    assert_eq!(keys(&found), ["long"]);
    assert!(
        !store.delete(&["s"], "short").await.unwrap(),
        "an expired document is already gone"
    );
}

pub async fn bad_input_is_a_store_error(store: &Store) {
    let err = store
        .search(&SearchQuery::new(&[]).limit(0))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("limit"), "{err}");
    let err = store
        .search(&SearchQuery::new(&[]).filter(Filter::eq(["a"], json!({"b": 1}))))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not {"), "{err}");
    let err = store
        .search(&SearchQuery::new(&[]).filter(Filter::eq(["a\"b"], json!(1))))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("field name"), "{err}");
    let err = store
        .search(&SearchQuery::new(&[]).filter(Filter::eq(Vec::<String>::new(), json!(1))))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("path"), "{err}");
}
