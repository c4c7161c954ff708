//! Telling connected clients that the tool listing changed.
//!
//! The registry has no change subscription, so each connection polls two counters (the
//! registry generation and the config version: an atomic read each) every
//! [`poll_interval`](super::ToolServer::poll_interval). Only when one moved is the listing
//! computed again (from the definitions cache), and only when the listing differs from the
//! one last seen is the client notified: registering an alias or a tool outside the selection
//! sends nothing.

use std::future::Future;

use tokio::time::MissedTickBehavior;

use super::{Listing, ToolServer};

/// What a connection's client was last shown, to compare against.
pub(super) struct ListingWatch {
    server: ToolServer,
    stamp: (u64, u64),
    listing: Option<Listing>,
}

impl ListingWatch {
    /// Takes the baseline now, before anything is awaited, so that a change made right after
    /// the session began is not mistaken for the baseline.
    pub(super) fn new(server: &ToolServer) -> Self {
        Self {
            server: server.clone(),
            stamp: server.stamp(),
            listing: server.listing().ok(),
        }
    }

    /// Calls `notify` each time the listing changes, while `open` says the connection is,
    /// until `notify` reports that the client can no longer be reached.
    pub(super) async fn run<Notify, Sent>(mut self, open: impl Fn() -> bool, mut notify: Notify)
    where
        Notify: FnMut() -> Sent,
        Sent: Future<Output = bool>,
    {
        let mut ticks = tokio::time::interval(self.server.poll_interval);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if !open() {
                return;
            }
            let stamp = self.server.stamp();
            if stamp == self.stamp {
                continue;
            }
            self.stamp = stamp;
            let listing = self.server.listing().ok();
            if listing == self.listing {
                continue;
            }
            self.listing = listing;
            if !notify().await {
                return;
            }
        }
    }
}
