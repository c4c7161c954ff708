//! Tasks in the shared store: [`RedisTaskStore`], the [`TaskStore`] replicas of a fleet share,
//! so that a task started on one is polled, answered and cancelled through any other.

use super::{RedisStore, StoreError};
use crate::mcp::server::tasks::{TaskChange, TaskRecord, TaskStore, TaskStoreError, now_ms};

/// Writes the new text only if the stored one is still the expected text, keeping the key's
/// expiry (`KEEPTTL`); 1 when written, 0 when the record changed (or vanished) meanwhile.
const UPDATE_IF_UNCHANGED: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
";

/// How many times an update is tried against records that other writers keep changing before
/// it gives up: far more than the writers of one task (its owner's renewals and progress, a
/// few clients) ever make collide.
const UPDATE_ATTEMPTS: usize = 100;

/// A [`TaskStore`] in Redis, over a [`RedisStore`] ([`RedisStore::task_store`]): each task is
/// its [`TaskRecord`] as JSON at `<prefix>task:<id>`, and Redis forgets it at the record's
/// [expiry](TaskRecord::expires_at_ms).
///
/// - `create`: `SET key json NX PXAT expires_at_ms`;
/// - `get`: `GET key`;
/// - `update`: `GET key`, the change applied here, then a script writing the new record with
///   `KEEPTTL` only if the stored text is still the one read, again from the read when another
///   writer came first. (A script rather than `WATCH`/`MULTI`: the store's one connection is
///   multiplexed among requests, and a `WATCH` would watch for all of them.)
///
/// Every command is bounded by the store's timeout; a failure is a
/// [`TaskStoreError::Backend`] saying which command failed against which store.
#[derive(Clone, Debug)]
pub struct RedisTaskStore {
    store: RedisStore,
}

impl RedisTaskStore {
    fn key(&self, id: &str) -> String {
        self.store.key(&format!("task:{id}"))
    }

    /// The stored text of task `id`, and the record it holds; `None` when there is none or it
    /// expired.
    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let text: Option<String> = self
            .store
            .run("GET", redis::cmd("GET").arg(self.key(id)).clone())
            .await
            .map_err(backend)?;
        let Some(text) = text else {
            return Ok(None);
        };
        let record: TaskRecord = serde_json::from_str(&text).map_err(|err| {
            TaskStoreError::Corrupt(format!(
                "task {id} in the shared store at {} is not a task record this server reads \
                 ({err}); another program (or version) writes under the prefix {:?}: give this \
                 fleet a prefix of its own",
                self.store.shown, &*self.store.prefix
            ))
        })?;
        // Gone at its expiry even if Redis has not reclaimed it yet (its clock may lag ours).
        if record.expires_at_ms() <= now_ms() {
            return Ok(None);
        }
        Ok(Some((text, record)))
    }
}

impl RedisStore {
    /// The [`TaskStore`] over this store, for
    /// [`ToolServer::task_store`](crate::mcp::server::ToolServer::task_store) (which
    /// [`shared_store`](crate::mcp::server::ToolServer::shared_store) sets to it): tasks at
    /// `<prefix>task:<id>`. See [`RedisTaskStore`].
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore {
            store: self.clone(),
        }
    }
}

#[async_trait::async_trait]
impl TaskStore for RedisTaskStore {
    async fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let text = serde_json::to_string(record).map_err(|err| {
            TaskStoreError::Backend(format!("task {} cannot be written: {err}", record.id))
        })?;
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(&record.id))
            .arg(text)
            .arg("NX")
            .arg("PXAT")
            // PXAT 0 is refused; a record expired already is simply gone at once.
            .arg(record.expires_at_ms().max(1));
        // `OK`, or nil when the key exists.
        let written: Option<String> = self.store.run("SET", command).await.map_err(backend)?;
        match written {
            Some(_) => Ok(()),
            None => Err(TaskStoreError::Exists(record.id.clone())),
        }
    }

    async fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        Ok(self.read(id).await?.map(|(_, record)| record))
    }

    async fn update(
        &self,
        id: &str,
        change: TaskChange<'_>,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        for _ in 0..UPDATE_ATTEMPTS {
            let Some((text, stored)) = self.read(id).await? else {
                return Ok(None);
            };
            let mut changed = stored.clone();
            change(&mut changed);
            // What identifies the record and bounds its life stays the store's.
            changed.id.clone_from(&stored.id);
            changed.created_at_ms = stored.created_at_ms;
            changed.ttl_ms = stored.ttl_ms;
            let new = serde_json::to_string(&changed).map_err(|err| {
                TaskStoreError::Backend(format!("task {id} cannot be written: {err}"))
            })?;
            let mut command = redis::cmd("EVAL");
            command
                .arg(UPDATE_IF_UNCHANGED)
                .arg(1)
                .arg(self.key(id))
                .arg(text)
                .arg(new);
            let written: u64 = self.store.run("EVAL", command).await.map_err(backend)?;
            if written == 1 {
                return Ok(Some(changed));
            }
        }
        Err(TaskStoreError::Backend(format!(
            "task {id} in the shared store at {} kept changing under {UPDATE_ATTEMPTS} \
             attempts to update it",
            self.store.shown
        )))
    }
}

fn backend(err: StoreError) -> TaskStoreError {
    TaskStoreError::Backend(err.to_string())
}
