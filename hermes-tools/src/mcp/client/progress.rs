//! A server's progress reports for a call, passed to the caller: a call whose context follows
//! progress ([`ToolContext::with_progress`]: the CLI's bar, an MCP client of `serve`) has each
//! `notifications/progress` for its request's token become a [`ToolContext::progress`] report
//! of the call.
//!
//! [`ToolContext::with_progress`]: crate::ToolContext::with_progress
//! [`ToolContext::progress`]: crate::ToolContext::progress

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sync::Mutex;
use rmcp::model::{NumberOrString, ProgressNotificationParam, ProgressToken};

use crate::ToolContext;

/// The calls of one server whose progress someone follows, by the token each was sent with.
///
/// rmcp gives every request a progress token of its own (and overwrites any other), so a
/// call is routed by the token of its request. Tokens are counted per connection, so after a
/// reconnection a new call may get the token of an old one still unwinding: the newer call
/// takes the route, and the old call's end leaves it be.
#[derive(Default)]
pub(crate) struct ProgressRoutes {
    /// By token: the call's context, and which route it is.
    routes: Mutex<HashMap<i64, (u64, ToolContext)>>,
    /// The number of the next route.
    next: AtomicU64,
}

impl ProgressRoutes {
    /// Routes the reports for `token` (rmcp's token of a request just sent) to `ctx`, when
    /// its progress is followed; the route lasts as long as the returned [`Route`].
    pub(crate) fn follow(
        self: &Arc<Self>,
        ctx: &ToolContext,
        token: &ProgressToken,
    ) -> Option<Route> {
        let NumberOrString::Number(token) = token.0 else {
            return None;
        };
        if !ctx.follows_progress() {
            return None;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.routes.lock().insert(token, (id, ctx.clone()));
        Some(Route {
            routes: Arc::clone(self),
            token,
            id,
        })
    }

    /// Passes `params` to the call its token names; a report for no call (finished, or a
    /// token this client never sent) is dropped.
    pub(crate) fn report(&self, params: &ProgressNotificationParam) {
        let NumberOrString::Number(token) = params.progress_token.0 else {
            return;
        };
        let ctx = self.routes.lock().get(&token).map(|(_, ctx)| ctx.clone());
        if let Some(ctx) = ctx {
            ctx.progress(
                params.progress,
                params.total,
                params.message.clone().unwrap_or_default(),
            );
        }
    }
}

/// A followed call's route; dropping it (the call finished or was dropped) removes it.
pub(crate) struct Route {
    routes: Arc<ProgressRoutes>,
    token: i64,
    id: u64,
}

impl Drop for Route {
    fn drop(&mut self) {
        let mut routes = self.routes.routes.lock();
        // Only its own: a newer call may have the token now.
        if routes
            .get(&self.token)
            .is_some_and(|(id, _)| *id == self.id)
        {
            routes.remove(&self.token);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(token: ProgressToken, done: f64) -> ProgressNotificationParam {
        let mut params = ProgressNotificationParam::new(token, done);
        params.total = Some(2.0);
        params
    }

    /// What followers saw: each report's follower and how far it had come.
    type Seen = Arc<Mutex<Vec<(&'static str, f64)>>>;

    /// A call's context followed by `name`, its reports noted in `seen`.
    fn follower(seen: &Seen, name: &'static str) -> ToolContext {
        let seen = Arc::clone(seen);
        ToolContext::new().with_progress(move |p| seen.lock().push((name, p.done)))
    }

    #[test]
    fn reports_reach_their_own_call_until_it_ends() {
        let routes = Arc::new(ProgressRoutes::default());
        let seen = Seen::default();
        let follower = |name| follower(&seen, name);
        let token = |n: i64| ProgressToken(NumberOrString::Number(n));
        assert!(
            routes.follow(&ToolContext::new(), &token(0)).is_none(),
            "nobody follows"
        );
        let first = routes.follow(&follower("first"), &token(1)).unwrap();
        let _second = routes.follow(&follower("second"), &token(2)).unwrap();
        routes.report(&report(token(2), 1.0));
        routes.report(&report(token(1), 1.0));
        routes.report(&report(token(0), 1.0));
        drop(first);
        routes.report(&report(token(1), 2.0));
        let foreign = ProgressToken(NumberOrString::String("theirs".into()));
        routes.report(&report(foreign, 2.0));
        assert_eq!(*seen.lock(), [("second", 1.0), ("first", 1.0)]);
    }

    #[test]
    fn a_new_call_with_an_old_calls_token_keeps_its_route_when_the_old_one_ends() {
        let routes = Arc::new(ProgressRoutes::default());
        let seen = Seen::default();
        let follower = |name| follower(&seen, name);
        let token = ProgressToken(NumberOrString::Number(3));
        // The old connection's call 3 is unwinding as the new connection's call 3 starts.
        let old = routes.follow(&follower("old"), &token).unwrap();
        let new = routes.follow(&follower("new"), &token).unwrap();
        drop(old);
        routes.report(&report(token.clone(), 1.0));
        drop(new);
        routes.report(&report(token, 2.0));
        assert_eq!(*seen.lock(), [("new", 1.0)]);
        assert!(routes.routes.lock().is_empty());
    }
}
