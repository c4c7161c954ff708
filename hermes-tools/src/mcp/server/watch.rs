//! Telling connected clients that the tool listing changed.
//!
//! One watcher per server configuration, shared by all its sessions ([`ListingChanges`]): it
//! wakes when the registry changes ([`ToolRegistry::subscribe`]), and also every
//! [`poll_interval`](super::ToolServer::poll_interval), for what has no change signal: an
//! installed config, a check function whose answer expired. It then takes the listing (from
//! the definitions cache: a pointer comparison when nothing changed) and, only when the
//! listing differs from the one it last saw, tells the clients: registering an alias or a
//! tool outside the selection sends nothing.
//!
//! Two kinds of client wait on it:
//! - a session of the `initialize` era is [enrolled](ListingChanges::enrol) with its peer when
//!   it is initialized, and its enrolment ends with its server. On a change the watcher sends
//!   each enrolled session its notification, each from a task of its own so that one slow
//!   client holds up no other; changes made while a session's notification is being sent are
//!   told in one more notification, not one each, so a stalled client gathers no tasks. A
//!   session waits with no task and no timer: most sessions never see a change, and a task
//!   each cost every session a spawn, 1.4 KB and two wake-ups;
//! - a `subscriptions/listen` stream of the 2026-07-28 era waits on a published version
//!   ([`ListingChanges::subscribe`]), inside the request that holds the stream open.
//!
//! Why shared: the listing is the server's, not the session's, and a watcher per session
//! woke every idle session four times a second to compare it (1,000 idle sessions: 4,000
//! wake-ups a second), and outlived a session by up to a poll interval. The watcher runs
//! while any client waits on it, and ends at its next wake-up once none does.
//!
//! [`ToolRegistry::subscribe`]: crate::ToolRegistry::subscribe

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::sync::Mutex;
use rmcp::Peer;
use rmcp::service::RoleServer;
use tokio::sync::watch;
use tokio::time::MissedTickBehavior;

use super::{Listing, ToolServer};

/// The listing's changes, shared by the clones of a server (its sessions); see the module
/// docs.
#[derive(Default)]
pub(super) struct ListingChanges {
    /// Only ever changed under this lock, which the watcher also takes to decide to end.
    waiting: Mutex<Waiting>,
}

/// Who waits on the listing's changes.
#[derive(Default)]
struct Waiting {
    /// A receiver of the running watcher's versions, `None` when no watcher runs.
    versions: Option<watch::Receiver<u64>>,
    /// The enrolled sessions, by enrolment number.
    sessions: BTreeMap<u64, Enrolled>,
    /// The next enrolment's number.
    next: u64,
}

impl ListingChanges {
    /// The listing's changes from now on, as `server` lists its tools: starts the watcher
    /// (on the current Tokio runtime) if none runs.
    pub(super) fn subscribe(&self, server: &ToolServer) -> Changes {
        let mut waiting = self.waiting.lock();
        let mut versions = Self::watched(&mut waiting, server).clone();
        versions.mark_unchanged();
        Changes { versions }
    }

    /// Tells `peer` of the listing's changes, as `server` lists its tools, until the returned
    /// enrolment is dropped; starts the watcher (on the current Tokio runtime) if none runs.
    pub(super) fn enrol(
        self: &Arc<Self>,
        server: &ToolServer,
        peer: Peer<RoleServer>,
    ) -> Enrolment {
        let mut waiting = self.waiting.lock();
        Self::watched(&mut waiting, server);
        let number = waiting.next;
        waiting.next += 1;
        waiting.sessions.insert(
            number,
            Enrolled {
                peer,
                sending: false,
                again: false,
            },
        );
        Enrolment {
            changes: Arc::clone(self),
            number,
        }
    }

    /// The running watcher's versions, starting one if none runs (borrowed: a session's
    /// enrolment needs only the watcher running, not a receiver of its own).
    fn watched<'a>(waiting: &'a mut Waiting, server: &ToolServer) -> &'a watch::Receiver<u64> {
        waiting.versions.get_or_insert_with(|| Self::start(server))
    }

    /// Starts a watcher of `server`'s listing, returning a receiver of its versions.
    fn start(server: &ToolServer) -> watch::Receiver<u64> {
        let (publish, versions) = watch::channel(0);
        // The baseline is taken now, before anything is awaited, so that a change made right
        // after the session began is not mistaken for the baseline.
        let watcher = Watcher {
            server: server.clone(),
            listing: server.listing().ok(),
        };
        tokio::spawn(watcher.run(publish));
        versions
    }

    /// Whether a watcher runs (for tests).
    #[cfg(test)]
    pub(super) fn is_running(&self) -> bool {
        self.waiting.lock().versions.is_some()
    }

    /// How many sessions are enrolled (for tests).
    #[cfg(test)]
    pub(super) fn enrolled(&self) -> usize {
        self.waiting.lock().sessions.len()
    }
}

/// An enrolled session: its peer, and where its notification stands (kept under the
/// `waiting` lock, so that enrolling allocates nothing more).
struct Enrolled {
    peer: Peer<RoleServer>,
    /// A task is sending it the notification.
    sending: bool,
    /// The listing changed again meanwhile: the task sends one more.
    again: bool,
}

/// A session's place among those told of the listing's changes: dropping it (with the
/// session's server, which `rmcp` drops when the session ends) takes the session out.
pub(super) struct Enrolment {
    changes: Arc<ListingChanges>,
    number: u64,
}

impl Drop for Enrolment {
    fn drop(&mut self) {
        // Already gone if its transport closed first (see `Watcher::run`). The peer is
        // dropped outside the lock.
        let enrolled = self.changes.waiting.lock().sessions.remove(&self.number);
        drop(enrolled);
    }
}

/// One `subscriptions/listen` stream's view of the listing's changes.
pub(super) struct Changes {
    versions: watch::Receiver<u64>,
}

impl Changes {
    /// Waits for the next change: `true` when the listing changed, `false` once the watcher
    /// is gone.
    pub(super) async fn next(&mut self) -> bool {
        self.versions.changed().await.is_ok()
    }
}

/// The shared watcher: a clone of the server (its configuration, not a session's state) and
/// the listing it last saw.
struct Watcher {
    server: ToolServer,
    listing: Option<Listing>,
}

impl Watcher {
    /// Tells the waiting clients each time the listing changes, until none waits.
    async fn run(mut self, publish: watch::Sender<u64>) {
        let mut ticks = tokio::time::interval(self.server.shared.poll_interval);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut changes = self.server.shared.registry.subscribe();
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                changed = changes.changed() => {
                    if changed.is_err() {
                        // The registry is gone (unreachable while this watcher holds it):
                        // sessions stay enrolled, for a watcher that the next one starts.
                        self.end();
                        return;
                    }
                }
            }
            {
                // Sessions whose client is gone wait no more, though their servers may
                // outlive them a while (a tool still running).
                let mut waiting = self.server.shared.listing_changes.waiting.lock();
                waiting
                    .sessions
                    .retain(|_, enrolled| !enrolled.peer.is_transport_closed());
                // The receiver kept in `versions` is the only one left, and no session is
                // enrolled: no one waits.
                if publish.receiver_count() <= 1 && waiting.sessions.is_empty() {
                    waiting.versions = None;
                    return;
                }
            }
            let listing = self.server.listing().ok();
            if listing == self.listing {
                continue;
            }
            self.listing = listing;
            publish.send_modify(|version| *version += 1);
            self.tell_sessions();
        }
    }

    /// Sends every enrolled session's client `notifications/tools/list_changed`: from a new
    /// task for each session not being told already, once more by the running task for each
    /// that is.
    fn tell_sessions(&self) {
        let changes = &self.server.shared.listing_changes;
        let mut waiting = changes.waiting.lock();
        for (&number, enrolled) in &mut waiting.sessions {
            if enrolled.sending {
                enrolled.again = true;
                continue;
            }
            enrolled.sending = true;
            let (peer, changes) = (enrolled.peer.clone(), Arc::clone(changes));
            tokio::spawn(async move {
                loop {
                    // A client gone meanwhile: its session is ending, and so its enrolment.
                    let sent = peer.notify_tool_list_changed().await.is_ok();
                    let mut waiting = changes.waiting.lock();
                    let Some(enrolled) = waiting.sessions.get_mut(&number) else {
                        return;
                    };
                    if !sent || !std::mem::take(&mut enrolled.again) {
                        enrolled.sending = false;
                        return;
                    }
                }
            });
        }
    }

    /// Marks no watcher running, so that the next client starts one.
    fn end(&self) {
        self.server.shared.listing_changes.waiting.lock().versions = None;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use rmcp::ServiceExt as _;

    use super::*;
    use crate::tool::Tool;
    use crate::{ToolContext, ToolRegistry};

    fn tool(name: &str) -> Tool {
        Tool::builder(name, "demo")
            .description("A tool of the test.")
            .handler(|_: serde_json::Value, _: &ToolContext| "ok")
            .build()
    }

    #[tokio::test(start_paused = true)]
    async fn one_watcher_tells_every_stream_and_ends_when_none_waits() {
        let registry = ToolRegistry::new();
        registry.register(tool("first")).unwrap();
        let server = ToolServer::new(registry.clone()).poll_interval(Duration::from_millis(10));
        let (one, two) = (server.clone(), server.clone());
        let mut first = one.shared.listing_changes.subscribe(&one);
        let mut second = two.shared.listing_changes.subscribe(&two);
        // Clones share the watcher.
        assert!(server.shared.listing_changes.is_running());
        assert!(Arc::ptr_eq(
            &one.shared.listing_changes,
            &two.shared.listing_changes
        ));

        registry.register(tool("second")).unwrap();
        assert!(first.next().await);
        assert!(second.next().await);

        drop((first, second));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!server.shared.listing_changes.is_running());
        // The next stream starts a new one, which sees the next change.
        let mut third = server.shared.listing_changes.subscribe(&server);
        assert!(server.shared.listing_changes.is_running());
        registry.register(tool("third")).unwrap();
        assert!(third.next().await);
    }

    /// Polls `done` (with real time passing) until it holds, or panics after 20 s: a bound
    /// for a machine busy with other work, not a measure of speed.
    async fn eventually(what: &str, done: impl Fn() -> bool) {
        for _ in 0..2000 {
            if done() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("never: {what}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sessions_are_enrolled_while_they_last_and_keep_the_watcher_running() {
        let registry = ToolRegistry::new();
        registry.register(tool("first")).unwrap();
        let server = ToolServer::new(registry).poll_interval(Duration::from_millis(10));
        let changes = Arc::clone(&server.shared.listing_changes);
        let mut clients = Vec::new();
        for _ in 0..2 {
            let (server_io, client_io) = tokio::io::duplex(1 << 16);
            let session = server.clone();
            tokio::spawn(async move {
                if let Ok(running) = session.serve(server_io).await {
                    let _ = running.waiting().await;
                }
            });
            // rmcp's client proposes the 2026-07-28 era by default, which has no handshake.
            let info = rmcp::model::ClientConfig::default()
                .with_protocol_version(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE);
            clients.push(info.serve(client_io).await.expect("initializes"));
        }
        eventually("both sessions enrolled", || changes.enrolled() == 2).await;
        assert!(changes.is_running());
        // A second `notifications/initialized` enrols nothing more.
        clients[0].notify_initialized().await.expect("sent");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(changes.enrolled(), 2);

        // One session ends: it is taken out, the other stays, and so does the watcher.
        clients.remove(0).cancel().await.expect("closes");
        eventually("the ended session taken out", || changes.enrolled() == 1).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(changes.is_running(), "a session still waits");

        clients.remove(0).cancel().await.expect("closes");
        eventually("no session enrolled", || changes.enrolled() == 0).await;
        eventually("the watcher ended", || !changes.is_running()).await;
    }
}
