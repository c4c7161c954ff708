//! The store `serve --http` replicas share (feature `mcp-redis`): Redis, reached with redis-rs.
//!
//! A fleet of replicas behind a load balancer shares what one process would keep in memory (see
//! [Fleet](super#fleet)). This module holds the Redis half of it:
//!
//! - [`RedisStore`]: one connection (redis-rs' connection manager, which reconnects by itself
//!   after Redis restarts) under a key prefix, every command bounded by a timeout, and a small
//!   API of JSON records ([`get`](RedisStore::get), [`put`](RedisStore::put) with a TTL,
//!   [`delete`](RedisStore::delete), [`compare_and_set`](RedisStore::compare_and_set)) that
//!   other shared state (a task store) can sit on;
//! - [`RedisSessionStore`]: `rmcp`'s [`SessionStore`] over it, so that a session of the
//!   `initialize` era opened on one replica is continued on another (`rmcp` replays the
//!   client's `initialize` there);
//! - [`RedisTaskStore`]: the [`TaskStore`](super::tasks::TaskStore) over it, so that a task
//!   started on one replica is polled, answered and cancelled through any other.
//!
//! Redis unreachable when the server starts: [`RedisStore::connect`] fails saying where it
//! looked, and `serve` refuses to serve. Unreachable later: each operation fails within the
//! timeout with a [`StoreError`] saying so, which the endpoint answers as a JSON-RPC error;
//! nothing waits for Redis to come back.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use serde_json::Value;

mod task_store;

pub use task_store::RedisTaskStore;

/// The prefix of every key, unless set with [`RedisStoreConfig::key_prefix`].
pub const DEFAULT_KEY_PREFIX: &str = "hermes:mcp:";

/// How long a Redis command (or the first connection) may take, unless set with
/// [`RedisStoreConfig::timeout`].
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_secs(2);

/// Where the shared store is and how it is used (`serve --store URL --store-prefix P`).
///
/// ```
/// use std::time::Duration;
/// use hermes_tools::mcp::server::RedisStoreConfig;
///
/// let config = RedisStoreConfig::new("redis://127.0.0.1:6379/0")
///     .key_prefix("fleet-a:")
///     .timeout(Duration::from_millis(500));
/// assert_eq!(config.shown(), "redis://127.0.0.1:6379/0");
/// ```
#[derive(Clone)]
pub struct RedisStoreConfig {
    url: String,
    prefix: String,
    timeout: Duration,
}

impl RedisStoreConfig {
    /// Redis at `url`: `redis://[user:password@]host:port/db` (or `redis+unix:///path`).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            prefix: DEFAULT_KEY_PREFIX.to_owned(),
            timeout: DEFAULT_STORE_TIMEOUT,
        }
    }

    /// The prefix of every key written ([`DEFAULT_KEY_PREFIX`] unless set): fleets sharing
    /// one Redis database keep apart by prefix.
    #[must_use]
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long the first connection, and then each command, may take before it fails
    /// ([`DEFAULT_STORE_TIMEOUT`] unless set; at least 1 ms).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// The URL as it may be shown: without its password.
    pub fn shown(&self) -> String {
        match self.url.split_once("://") {
            Some((scheme, rest)) => match rest.split_once('@') {
                // Only an `@` before the path is userinfo.
                Some((userinfo, host)) if !userinfo.contains('/') => {
                    format!("{scheme}://***@{host}")
                }
                _ => self.url.clone(),
            },
            None => self.url.clone(),
        }
    }
}

// By hand: the URL may carry a password.
impl fmt::Debug for RedisStoreConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStoreConfig")
            .field("url", &self.shown())
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why the shared store failed: what happened and where, never its password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(String);

impl StoreError {
    pub(crate) fn from_message(message: String) -> Self {
        Self(message)
    }
}

/// A connection to the shared store (see the [module docs](self)); clones share it.
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: Arc<str>,
    timeout: Duration,
    shown: Arc<str>,
}

/// Compares the stored text with the expected one and writes the new one only if they match
/// (`ARGV`: whether a value is expected, the expected text, the new text, the TTL in ms or 0).
const COMPARE_AND_SET: &str = r"
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[4] == '0' then
  redis.call('SET', KEYS[1], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
end
return 1
";

impl RedisStore {
    /// Connects to the store of `config` and checks that it answers (`PING`).
    ///
    /// # Errors
    ///
    /// An invalid URL, or Redis not reached or not answering within the timeout: the error
    /// names the address tried.
    pub async fn connect(config: RedisStoreConfig) -> Result<Self, StoreError> {
        let shown = config.shown();
        let client = redis::Client::open(config.url.as_str()).map_err(|err| {
            StoreError(format!(
                "the store URL {shown} is not a Redis URL ({err}); write it as \
                 redis://host:port/db"
            ))
        })?;
        let manager = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.timeout))
            .set_response_timeout(Some(config.timeout))
            // Fail fast: a request must not wait for Redis to come back; the manager keeps
            // reconnecting in the background after a failure.
            .set_number_of_retries(1)
            .set_max_delay(config.timeout);
        let unreachable = |why: String| {
            StoreError(format!(
                "cannot reach the shared store at {shown}: {why}; is redis-server running \
                 there (and is the URL right)?"
            ))
        };
        let connection = tokio::time::timeout(
            config.timeout,
            client.get_connection_manager_with_config(manager),
        )
        .await
        .map_err(|_| {
            unreachable(format!(
                "no connection within {} ms",
                config.timeout.as_millis()
            ))
        })?
        .map_err(|err| unreachable(err.to_string()))?;
        let store = Self {
            connection,
            prefix: Arc::from(config.prefix),
            timeout: config.timeout,
            shown: Arc::from(shown),
        };
        store
            .run::<String>("PING", redis::cmd("PING"))
            .await
            .map_err(|StoreError(why)| StoreError(format!("{why}; is the URL right?")))?;
        Ok(store)
    }

    /// The record at `key` (under the prefix), if there is one.
    ///
    /// # Errors
    ///
    /// Redis failed or did not answer in time, or the record is not JSON.
    pub async fn get(&self, key: &str) -> Result<Option<Value>, StoreError> {
        let text: Option<String> = self
            .run("GET", redis::cmd("GET").arg(self.key(key)).clone())
            .await?;
        text.map(|text| {
            serde_json::from_str(&text).map_err(|err| {
                StoreError(format!(
                    "the record {key} in the shared store at {} is not JSON ({err}); another \
                     program writes under the prefix {:?}: give this fleet a prefix of its own",
                    self.shown, &*self.prefix
                ))
            })
        })
        .transpose()
    }

    /// Writes `value` at `key`, kept for `ttl` (forever with `None`).
    ///
    /// # Errors
    ///
    /// Redis failed or did not answer in time.
    pub async fn put(
        &self,
        key: &str,
        value: &Value,
        ttl: Option<Duration>,
    ) -> Result<(), StoreError> {
        let mut command = redis::cmd("SET");
        command.arg(self.key(key)).arg(value.to_string());
        if let Some(ttl) = ttl {
            command.arg("PX").arg(millis(ttl));
        }
        self.run::<()>("SET", command).await
    }

    /// Deletes the record at `key`; whether there was one.
    ///
    /// # Errors
    ///
    /// Redis failed or did not answer in time.
    pub async fn delete(&self, key: &str) -> Result<bool, StoreError> {
        let removed: u64 = self
            .run("DEL", redis::cmd("DEL").arg(self.key(key)).clone())
            .await?;
        Ok(removed > 0)
    }

    /// Writes `new` at `key` (kept for `ttl`) only if the record there is still `expected`
    /// (`None`: only if there is none), atomically; whether it was written. `expected` is
    /// compared as the JSON text this store wrote, so pass what [`get`](Self::get) returned.
    ///
    /// # Errors
    ///
    /// Redis failed or did not answer in time.
    pub async fn compare_and_set(
        &self,
        key: &str,
        expected: Option<&Value>,
        new: &Value,
        ttl: Option<Duration>,
    ) -> Result<bool, StoreError> {
        let mut command = redis::cmd("EVAL");
        command
            .arg(COMPARE_AND_SET)
            .arg(1)
            .arg(self.key(key))
            .arg(if expected.is_some() { "1" } else { "0" })
            .arg(expected.map(Value::to_string).unwrap_or_default())
            .arg(new.to_string())
            .arg(ttl.map_or(0, millis));
        let written: u64 = self.run("EVAL", command).await?;
        Ok(written == 1)
    }

    /// Keeps the record at `key` for `ttl` more from now; whether there is one.
    ///
    /// # Errors
    ///
    /// Redis failed or did not answer in time.
    pub async fn refresh(&self, key: &str, ttl: Duration) -> Result<bool, StoreError> {
        let kept: u64 = self
            .run(
                "PEXPIRE",
                redis::cmd("PEXPIRE")
                    .arg(self.key(key))
                    .arg(millis(ttl))
                    .clone(),
            )
            .await?;
        Ok(kept == 1)
    }

    /// `rmcp`'s [`SessionStore`] over this store: a session's record is kept for `idle` after
    /// its last request (the endpoint refreshes it), as the session itself is.
    pub fn session_store(&self, idle: Duration) -> RedisSessionStore {
        RedisSessionStore {
            store: self.clone(),
            idle,
        }
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// Sends `command`, bounded by the timeout.
    async fn run<T: redis::FromRedisValue>(
        &self,
        what: &str,
        command: redis::Cmd,
    ) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        bounded(self.timeout, &self.shown, what, async move {
            command.query_async::<T>(&mut connection).await
        })
        .await
    }
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("url", &self.shown)
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// `future`, failed with a message naming the store if it errs or outlives `timeout`.
async fn bounded<T>(
    timeout: Duration,
    shown: &str,
    what: &str,
    future: impl Future<Output = redis::RedisResult<T>>,
) -> Result<T, StoreError> {
    match tokio::time::timeout(timeout, future).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(StoreError(format!(
            "the shared store at {shown} failed ({what}): {err}"
        ))),
        Err(_) => Err(StoreError(format!(
            "the shared store at {shown} did not answer ({what}) within {} ms",
            timeout.as_millis()
        ))),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// `rmcp`'s [`SessionStore`] over a [`RedisStore`]: the `initialize` parameters of each
/// session of the `initialize` era, at `<prefix>session:<id>`, kept while the session is used
/// (see [`RedisStore::session_store`]).
#[derive(Clone, Debug)]
pub struct RedisSessionStore {
    store: RedisStore,
    idle: Duration,
}

impl RedisSessionStore {
    fn key(session_id: &str) -> String {
        format!("session:{session_id}")
    }

    /// Keeps the session's record for another idle timeout from now; whether there is one.
    pub(crate) async fn touch(&self, session_id: &str) -> Result<bool, StoreError> {
        self.store.refresh(&Self::key(session_id), self.idle).await
    }

    /// Whether the store holds the session.
    pub(crate) async fn holds(&self, session_id: &str) -> Result<bool, StoreError> {
        Ok(self.store.get(&Self::key(session_id)).await?.is_some())
    }
}

#[async_trait::async_trait]
impl SessionStore for RedisSessionStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let Some(record) = self.store.get(&Self::key(session_id)).await? else {
            return Ok(None);
        };
        // Restored here now: the session is in use again.
        self.touch(session_id).await?;
        Ok(Some(serde_json::from_value(record).map_err(|err| {
            StoreError(format!(
                "the shared store's record of session {session_id} is not one this server \
                 wrote ({err})"
            ))
        })?))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let record = serde_json::to_value(state).map_err(|err| StoreError(err.to_string()))?;
        self.store
            .put(&Self::key(session_id), &record, Some(self.idle))
            .await?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.store.delete(&Self::key(session_id)).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_the_url_is_never_shown() {
        let config = RedisStoreConfig::new("redis://:hunter2@10.0.0.5:6379/2");
        assert_eq!(config.shown(), "redis://***@10.0.0.5:6379/2");
        assert!(!format!("{config:?}").contains("hunter2"));
        let plain = RedisStoreConfig::new("redis://127.0.0.1:6379/0");
        assert_eq!(plain.shown(), "redis://127.0.0.1:6379/0");
    }

    #[tokio::test]
    async fn a_bad_url_or_an_unreachable_redis_is_refused_saying_where() {
        let err = RedisStore::connect(RedisStoreConfig::new("http://nowhere"))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a Redis URL"), "{err}");
        // A port nothing listens on: bound, then freed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("redis://127.0.0.1:{port}/0");
        let started = std::time::Instant::now();
        let err =
            RedisStore::connect(RedisStoreConfig::new(&url).timeout(Duration::from_millis(300)))
                .await
                .unwrap_err()
                .to_string();
        assert!(
            err.contains(&format!("cannot reach the shared store at {url}")),
            "{err}"
        );
        assert!(started.elapsed() < Duration::from_secs(5), "fails fast");
    }
}
