//! The [`TaskStore`] contract as one reusable check, run against the in-memory store here and
//! against any other implementation (a Redis one) by its own tests.

use std::time::Duration;

use rmcp::model::TaskStatus;

use super::record::{TaskProgress, TaskRecord, now_ms};
use super::store::{TaskStore, TaskStoreError};

/// Checks `store` against the [`TaskStore`] contract, panicking with what broke it: create,
/// get and update round-trip a record; an id is created once; an unknown id is `None` to get
/// and update; an update cannot move a record's id, creation or TTL; concurrent updates of a
/// record all land; a record is gone once its TTL elapsed (the check sleeps for about a
/// second of real time for this); a lapsed lease is seen, and failed, by any reader.
///
/// `prefix` starts every id the check creates, so runs against a shared store do not meet.
/// For a store's own tests; not part of the stable API.
#[doc(hidden)]
pub async fn check_store(store: &dyn TaskStore, prefix: &str) {
    let now = now_ms();
    let id = format!("{prefix}-roundtrip");
    let record = TaskRecord::new(&id, "slow", now, 60_000, 500, "owner-a", now + 10_000);
    store
        .create(&record)
        .await
        .expect("create stores a new record");
    let stored = store
        .get(&id)
        .await
        .expect("get")
        .expect("a created record is found");
    assert_eq!(stored, record, "get returns the record as created");

    let again = store.create(&record).await;
    assert!(
        matches!(again, Err(TaskStoreError::Exists(ref taken)) if *taken == id),
        "a second create of one id is refused: {again:?}"
    );

    let unknown = format!("{prefix}-never-created");
    assert_eq!(store.get(&unknown).await.expect("get"), None);
    let touched = store
        .update(&unknown, &|record| record.cancel_requested = true)
        .await
        .expect("update");
    assert_eq!(touched, None, "updating an unknown id changes nothing");
    assert_eq!(store.get(&unknown).await.expect("get"), None);

    let updated = store
        .update(&id, &|record| {
            record.report_progress(
                TaskProgress {
                    done: 1.0,
                    total: Some(2.0),
                    message: Some("half".into()),
                },
                now + 1,
            );
            record.id = "moved".into();
            record.created_at_ms = 0;
            record.ttl_ms = u64::MAX;
        })
        .await
        .expect("update")
        .expect("the record is there");
    assert_eq!(updated.id, id, "an update keeps the id");
    assert_eq!(
        updated.created_at_ms, now,
        "an update keeps the creation time"
    );
    assert_eq!(updated.ttl_ms, 60_000, "an update keeps the TTL");
    assert_eq!(updated.status_message.as_deref(), Some("half (1/2)"));
    assert_eq!(
        store.get(&id).await.expect("get").as_ref(),
        Some(&updated),
        "update returns the record as stored"
    );
    assert_eq!(store.get("moved").await.expect("get"), None);

    // Concurrent read-modify-writes of one record: none is lost.
    let counter = format!("{prefix}-counter");
    let record = TaskRecord::new(&counter, "slow", now, 60_000, 500, "owner-a", now + 10_000);
    store.create(&record).await.expect("create");
    let bump = |record: &mut TaskRecord| {
        let done = record
            .progress
            .as_ref()
            .map_or(0.0, |progress| progress.done);
        record.progress = Some(TaskProgress {
            done: done + 1.0,
            total: None,
            message: None,
        });
    };
    let updates = (0..16).map(|_| store.update(&counter, &bump));
    for result in futures_util::future::join_all(updates).await {
        result.expect("update").expect("the record is there");
    }
    let counted = store.get(&counter).await.expect("get").expect("found");
    assert_eq!(
        counted.progress.map(|progress| progress.done),
        Some(16.0),
        "every concurrent update landed"
    );

    // A lapsed lease: any reader sees it, and failing the task is stored for all.
    let orphan = format!("{prefix}-orphan");
    let record = TaskRecord::new(&orphan, "slow", now, 60_000, 500, "owner-dead", now - 1);
    store.create(&record).await.expect("create");
    let read = store.get(&orphan).await.expect("get").expect("found");
    assert!(
        read.lease_lapsed(now_ms()),
        "the lapsed lease shows on a read"
    );
    let failed = store
        .update(&orphan, &|record| {
            record.fail_if_lapsed(now_ms());
        })
        .await
        .expect("update")
        .expect("found");
    assert_eq!(failed.status, TaskStatus::Failed);
    assert_eq!(
        store.get(&orphan).await.expect("get").map(|r| r.status),
        Some(TaskStatus::Failed),
        "the failure is stored"
    );

    // TTL: gone for every operation once creation plus TTL has passed.
    let brief = format!("{prefix}-brief");
    let record = TaskRecord::new(&brief, "slow", now_ms(), 400, 500, "owner-a", u64::MAX);
    store.create(&record).await.expect("create");
    assert!(store.get(&brief).await.expect("get").is_some());
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(
        store.get(&brief).await.expect("get"),
        None,
        "an expired record is gone"
    );
    let touched = store
        .update(&brief, &|record| record.cancel_requested = true)
        .await
        .expect("update");
    assert_eq!(touched, None, "an expired record cannot be updated");
    let record = TaskRecord::new(&brief, "slow", now_ms(), 60_000, 500, "owner-a", u64::MAX);
    store
        .create(&record)
        .await
        .expect("an expired record's id is free again");
}

#[cfg(test)]
mod tests {
    use super::super::MemoryTaskStore;
    use super::*;

    #[tokio::test]
    async fn the_memory_store_keeps_the_contract() {
        check_store(&MemoryTaskStore::new(), "memory").await;
    }

    #[tokio::test]
    async fn the_memory_store_sweeps_expired_records_on_create() {
        let store = MemoryTaskStore::new();
        let now = now_ms();
        store
            .create(&TaskRecord::new("a", "slow", now - 1_000, 10, 500, "o", 0))
            .await
            .unwrap();
        store
            .create(&TaskRecord::new("b", "slow", now, 60_000, 500, "o", 0))
            .await
            .unwrap();
        assert_eq!(store.len(), 1, "the expired record was swept");
    }
}
