//! Where tasks live: the [`TaskStore`] trait, and its in-memory implementation.

use std::collections::HashMap;
use std::fmt;

use crate::sync::Mutex;

use super::record::{TaskRecord, now_ms};

/// A change to a record, applied by [`TaskStore::update`]. It may be called more than once
/// (a store that retries on a conflicting write calls it again on the fresh record), so it
/// must only change the record it is given.
pub type TaskChange<'a> = &'a (dyn Fn(&mut TaskRecord) + Send + Sync);

/// Where a server's tasks are kept: shared by every replica that may answer for a task.
///
/// A store keeps each [`TaskRecord`] as one value under its id, and forgets it at its
/// [`expires_at_ms`](TaskRecord::expires_at_ms) (creation plus TTL): nothing else ever
/// deletes a task, and no operation needs state outside the store, so any process holding
/// the store answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task another
/// process runs. Three operations, each a few commands on a key-value store (Redis: the
/// record as JSON under `PREFIX:<id>`, expiry by the key's own):
///
/// - [`create`](Self::create): `SET key json NX PXAT expires_at_ms`;
/// - [`get`](Self::get): `GET key`;
/// - [`update`](Self::update): a read-modify-write, atomic against other updates of the same
///   record: `WATCH key`, `GET key`, apply, `MULTI`, `SET key json KEEPTTL`, `EXEC`, again on
///   conflict.
///
/// A record past its expiry is gone to every operation, even before the store reclaims its
/// memory. [`check_store`](super::check_store) checks an implementation against this
/// contract.
#[async_trait::async_trait]
pub trait TaskStore: Send + Sync + fmt::Debug {
    /// Stores `record`, new. Fails with [`TaskStoreError::Exists`] when its id is taken.
    async fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError>;

    /// The record of task `id`; `None` when there is none (never created, or expired).
    async fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError>;

    /// Applies `change` to the record of task `id` atomically and returns the record as
    /// stored after it; `None` (and no change) when there is no such task. The id, creation
    /// time and TTL are the record's own: a change to them is not stored.
    async fn update(
        &self,
        id: &str,
        change: TaskChange<'_>,
    ) -> Result<Option<TaskRecord>, TaskStoreError>;
}

/// Why a [`TaskStore`] operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// [`TaskStore::create`] of an id already stored.
    #[error("a task with id {0} exists already")]
    Exists(String),
    /// The store could not be reached or refused the operation (a network store's error).
    #[error("the task store failed: {0}")]
    Backend(String),
    /// A stored record could not be read back (another version's format, say).
    #[error("a stored task record is unreadable: {0}")]
    Corrupt(String),
}

/// The default [`TaskStore`]: this process's memory. Tasks are seen only by this process
/// and are lost when it exits; replicas need a shared store instead.
///
/// Expired records are dropped when met, and swept on each [`create`](TaskStore::create).
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    records: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many records it holds, expired ones not yet swept included.
    pub fn len(&self) -> usize {
        self.records.lock().len()
    }

    /// Whether it holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[async_trait::async_trait]
impl TaskStore for MemoryTaskStore {
    async fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let now = now_ms();
        let mut records = self.records.lock();
        records.retain(|_, stored| stored.expires_at_ms() > now);
        if records.contains_key(&record.id) {
            return Err(TaskStoreError::Exists(record.id.clone()));
        }
        records.insert(record.id.clone(), record.clone());
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let now = now_ms();
        let mut records = self.records.lock();
        match records.get(id) {
            Some(record) if record.expires_at_ms() > now => Ok(Some(record.clone())),
            Some(_) => {
                records.remove(id);
                Ok(None)
            }
            None => Ok(None),
        }
    }

    async fn update(
        &self,
        id: &str,
        change: TaskChange<'_>,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        let now = now_ms();
        let mut records = self.records.lock();
        let Some(record) = records.get_mut(id) else {
            return Ok(None);
        };
        if record.expires_at_ms() <= now {
            records.remove(id);
            return Ok(None);
        }
        let mut changed = record.clone();
        change(&mut changed);
        // What identifies the record and bounds its life stays the store's.
        changed.id.clone_from(&record.id);
        changed.created_at_ms = record.created_at_ms;
        changed.ttl_ms = record.ttl_ms;
        *record = changed;
        Ok(Some(record.clone()))
    }
}
