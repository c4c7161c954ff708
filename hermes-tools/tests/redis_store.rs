//! The shared store (`mcp::server::store`, feature `mcp-redis`) against a real `redis-server`,
//! started by each test on a free loopback port without persistence, in a directory of its own,
//! and killed when the test ends. `bash .ci/test` installs `redis-server`.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hermes_tools::mcp::server::tasks::TaskStore;
use hermes_tools::mcp::server::{RedisStore, RedisStoreConfig};
use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore};
use serde_json::json;

/// `redis-server` on a loopback port, killed and reaped when dropped.
struct Redis {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Redis {
    fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        Self::start_on(port)
    }

    fn start_on(port: u16) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server starts: run `bash .ci/test`, which installs it");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self {
            child,
            port,
            _dir: dir,
        }
    }

    fn config(&self) -> RedisStoreConfig {
        RedisStoreConfig::new(format!("redis://127.0.0.1:{}/0", self.port))
            .timeout(Duration::from_millis(500))
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

#[tokio::test]
#[ignore = "needs redis-server that `bash .ci/test` installs"]
async fn records_are_written_read_expired_deleted_and_compared_and_set() {
    let redis = Redis::start();
    let store = RedisStore::connect(redis.config()).await.unwrap();
    assert_eq!(store.get("task:1").await.unwrap(), None);
    let record = json!({"status": "working", "progress": [1, 2]});
    store.put("task:1", &record, None).await.unwrap();
    assert_eq!(store.get("task:1").await.unwrap(), Some(record.clone()));

    // Compare-and-set: only from the state the writer saw.
    let done = json!({"status": "completed"});
    let stale = json!({"status": "submitted"});
    assert!(
        !store
            .compare_and_set("task:1", Some(&stale), &done, None)
            .await
            .unwrap()
    );
    assert!(
        !store
            .compare_and_set("task:1", None, &done, None)
            .await
            .unwrap()
    );
    assert!(
        store
            .compare_and_set("task:1", Some(&record), &done, None)
            .await
            .unwrap()
    );
    assert_eq!(store.get("task:1").await.unwrap(), Some(done.clone()));
    assert!(
        store
            .compare_and_set("task:2", None, &stale, None)
            .await
            .unwrap()
    );

    // A TTL expires the record; a refresh keeps it longer.
    let ttl = Duration::from_millis(300);
    store.put("short", &json!(1), Some(ttl)).await.unwrap();
    store
        .compare_and_set("short-cas", None, &json!(2), Some(ttl))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(
        store
            .refresh("short", Duration::from_secs(5))
            .await
            .unwrap()
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        store.get("short").await.unwrap(),
        Some(json!(1)),
        "refreshed"
    );
    assert_eq!(store.get("short-cas").await.unwrap(), None, "expired");
    assert!(!store.refresh("short-cas", ttl).await.unwrap());

    assert!(store.delete("task:1").await.unwrap());
    assert!(!store.delete("task:1").await.unwrap());
    assert_eq!(store.get("task:1").await.unwrap(), None);

    // Fleets sharing a database keep apart by prefix.
    let other = RedisStore::connect(redis.config().key_prefix("other-fleet:"))
        .await
        .unwrap();
    assert_eq!(other.get("task:2").await.unwrap(), None);
    assert_eq!(store.get("task:2").await.unwrap(), Some(stale));
}

#[tokio::test]
#[ignore = "needs redis-server that `bash .ci/test` installs"]
async fn a_session_is_stored_loaded_kept_for_its_idle_timeout_and_deleted() {
    let redis = Redis::start();
    let store = RedisStore::connect(redis.config()).await.unwrap();
    let sessions = store.session_store(Duration::from_millis(400));
    let params = InitializeRequestParams::new(
        ClientCapabilities::default(),
        Implementation::new("fleet-test", "1"),
    );
    sessions
        .store("s-1", &SessionState::new(params.clone()))
        .await
        .unwrap();
    let loaded = sessions.load("s-1").await.unwrap().expect("stored");
    assert_eq!(loaded.initialize_params.client_info.name, "fleet-test");
    assert!(sessions.load("s-2").await.unwrap().is_none());
    // Unused past its idle timeout, the record goes, as the session would.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(sessions.load("s-1").await.unwrap().is_none(), "expired");
    sessions
        .store("s-3", &SessionState::new(params))
        .await
        .unwrap();
    sessions.delete("s-3").await.unwrap();
    assert!(sessions.load("s-3").await.unwrap().is_none());
    // A record another program wrote under the prefix is refused, saying so.
    store
        .put("session:s-4", &json!("junk"), None)
        .await
        .unwrap();
    let err = sessions.load("s-4").await.unwrap_err().to_string();
    assert!(err.contains("not one this server wrote"), "{err}");
}

#[tokio::test]
#[ignore = "needs redis-server that `bash .ci/test` installs"]
async fn redis_going_away_fails_each_operation_in_time_and_its_return_is_picked_up() {
    let mut redis = Redis::start();
    let port = redis.port;
    let store = RedisStore::connect(redis.config()).await.unwrap();
    store.put("k", &json!("v"), None).await.unwrap();
    redis.stop();
    for _ in 0..3 {
        let started = Instant::now();
        let err = store.get("k").await.unwrap_err().to_string();
        assert!(
            err.contains(&format!("the shared store at redis://127.0.0.1:{port}/0")),
            "{err}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "bounded: {err}");
    }
    // Back (empty: no persistence): the connection is made again by itself.
    let _back = Redis::start_on(port);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match store.get("k").await {
            Ok(value) => {
                assert_eq!(value, None);
                break;
            }
            Err(err) => assert!(Instant::now() < deadline, "not reconnected: {err}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
#[ignore = "needs redis-server that `bash .ci/test` installs"]
async fn the_redis_task_store_keeps_the_task_store_contract() {
    let redis = Redis::start();
    let store = RedisStore::connect(redis.config().key_prefix("fleet-t:"))
        .await
        .unwrap();
    let tasks = store.task_store();
    hermes_tools::mcp::server::tasks::check_store(&tasks, "redis").await;

    // The record is where the docs say, as JSON, and Redis itself expires it at its TTL.
    let raw = store.get("task:redis-roundtrip").await.unwrap();
    assert_eq!(
        raw.as_ref().and_then(|record| record["id"].as_str()),
        Some("redis-roundtrip"),
        "{raw:?}"
    );
    let mut connection = redis::Client::open(format!("redis://127.0.0.1:{}/0", redis.port))
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let ttl: i64 = redis::cmd("PTTL")
        .arg("fleet-t:task:redis-counter")
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(
        (50_000..=60_000).contains(&ttl),
        "updates kept the key's expiry (creation + 60 s): PTTL {ttl}"
    );

    // Something else under the prefix is refused as unreadable, not taken for a task.
    redis::cmd("SET")
        .arg("fleet-t:task:alien")
        .arg("{\"not\":\"a task\"}")
        .query_async::<()>(&mut connection)
        .await
        .unwrap();
    let err = tasks.get("alien").await.unwrap_err().to_string();
    assert!(
        err.contains("task alien") && err.contains("prefix"),
        "{err}"
    );
}

#[tokio::test]
#[ignore = "needs redis-server that `bash .ci/test` installs"]
async fn the_redis_task_store_fails_in_time_saying_so_while_redis_is_gone() {
    let mut redis = Redis::start();
    let store = RedisStore::connect(redis.config()).await.unwrap();
    let tasks = store.task_store();
    redis.stop();
    let started = Instant::now();
    let err = tasks.get("any").await.unwrap_err().to_string();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "bounded by the timeout"
    );
    assert!(
        err.contains("task store failed") && err.contains("shared store at redis://127.0.0.1"),
        "{err}"
    );
}
