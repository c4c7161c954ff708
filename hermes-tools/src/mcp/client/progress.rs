//! A server's progress reports for a call, passed to the caller: a call whose context follows
//! progress ([`ToolContext::with_progress`]: the CLI's bar, an MCP client of `serve`) has each
//! `notifications/progress` for its request's token become a [`ToolContext::progress`] report
//! of the call.
//!
//! [`ToolContext::with_progress`]: crate::ToolContext::with_progress
//! [`ToolContext::progress`]: crate::ToolContext::progress

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use rmcp::model::{NumberOrString, ProgressNotificationParam, ProgressToken};

use crate::ToolContext;

/// The calls of one server whose progress someone follows, by the token each was sent with.
///
/// rmcp gives every request a progress token of its own (and overwrites any other), so a
/// call is routed by the token of its request.
#[derive(Default)]
pub(crate) struct ProgressRoutes {
    routes: Mutex<HashMap<i64, ToolContext>>,
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
        self.routes.lock().insert(token, ctx.clone());
        Some(Route {
            routes: Arc::clone(self),
            token,
        })
    }

    /// Passes `params` to the call its token names; a report for no call (finished, or a
    /// token this client never sent) is dropped.
    pub(crate) fn report(&self, params: &ProgressNotificationParam) {
        let NumberOrString::Number(token) = params.progress_token.0 else {
            return;
        };
        let ctx = self.routes.lock().get(&token).cloned();
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
}

impl Drop for Route {
    fn drop(&mut self) {
        self.routes.routes.lock().remove(&self.token);
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

    #[test]
    fn reports_reach_their_own_call_until_it_ends() {
        let routes = Arc::new(ProgressRoutes::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let follower = |name: &'static str| {
            let seen = Arc::clone(&seen);
            ToolContext::new().with_progress(move |p| seen.lock().push((name, p.done)))
        };
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
}
