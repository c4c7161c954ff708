//! The few future combinators the runtime needs, written on `std` so that a library of tools
//! does not build `futures-util` (about a tenth of a featureless build's CPU time;
//! `bench/README.md`, "Build cost"). The MCP features, which bring it anyway through rmcp,
//! use it directly.

use std::any::Any;
use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::Poll;

/// An owned, boxed, `Send` future: the same type as `futures::future::BoxFuture`, so the two
/// names are interchangeable.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Awaits `future`, catching a panic in any of its polls (as `FutureExt::catch_unwind`).
pub(crate) async fn caught<T>(mut future: BoxFuture<'_, T>) -> Result<T, Box<dyn Any + Send>> {
    poll_fn(
        |cx| match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic)),
        },
    )
    .await
}

/// Awaits `work` unless `stop` completes first: `Some` with `work`'s output, `None` when
/// stopped. `work` is polled first, so an output ready at the same time as the stop is kept.
pub(crate) async fn unless<T>(
    work: Pin<&mut (impl Future<Output = T> + ?Sized)>,
    stop: Pin<&mut (impl Future<Output = ()> + ?Sized)>,
) -> Option<T> {
    let (mut work, mut stop) = (work, stop);
    poll_fn(|cx| {
        if let Poll::Ready(value) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(value));
        }
        stop.as_mut().poll(cx).map(|()| None)
    })
    .await
}

/// Runs `futures` concurrently, at most `limit` (at least one) of them started at a time, in
/// order, and returns their outputs at their indices (as `buffer_unordered`, collected).
#[cfg(test)]
pub(crate) async fn bounded<F: Future>(futures: Vec<F>, limit: usize) -> Vec<F::Output> {
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    let jobs = futures.into_iter().enumerate();
    let start = |future, _| Started::Running(future);
    bounded_by(jobs, limit, start, |i, output| outputs[i] = Some(output)).await;
    outputs.into_iter().flatten().collect()
}

/// What starting one job of [`bounded_by`] gave: its output at once, or a future to await.
pub(crate) enum Started<F: Future> {
    /// Done as it started (a job cheaper than a future's allocation).
    Done(F::Output),
    /// Running: awaited with the others.
    Running(F),
}

/// Starts `jobs` (each a key and a job) in order with `start`, at most `limit` (at least one)
/// running at a time, polls those running in the order they started, and hands each job's
/// output to `done` with its key as the job ends (in any order; every job has ended when this
/// returns). A job that `start` finishes at once never takes a place (nor an allocation).
///
/// The outputs go to `done` rather than into a vector of this function's so that the caller
/// puts them straight where it keeps them.
///
/// Every wake-up polls the running futures again, which costs nothing next to a tool call for
/// the handful a turn runs at once.
///
/// `start` is told whether anything ran since it was last called (`true` for the first job,
/// and after any poll of the running futures or wait): `false` means the previous job's start
/// ended just now, so a caller timing its jobs can take the previous one's end as this one's
/// start (a clock read saved per job).
pub(crate) async fn bounded_by<K: Copy, T, F: Future>(
    jobs: impl IntoIterator<Item = (K, T)>,
    limit: usize,
    mut start: impl FnMut(T, bool) -> Started<F>,
    mut done: impl FnMut(K, F::Output),
) {
    let mut waiting = jobs.into_iter();
    let mut running: Vec<(K, Pin<Box<F>>)> = Vec::new();
    poll_fn(|cx| {
        // Whether anything ran since the last start: a new poll follows a wait.
        let mut ran_between = true;
        loop {
            while running.len() < limit.max(1) {
                let Some((key, job)) = waiting.next() else {
                    break;
                };
                let started = start(job, ran_between);
                ran_between = false;
                match started {
                    Started::Done(output) => done(key, output),
                    Started::Running(future) => running.push((key, Box::pin(future))),
                }
            }
            if running.is_empty() {
                return Poll::Ready(());
            }
            let before = running.len();
            ran_between = true;
            // Polled in the order they started, which stays so (`retain_mut`, not
            // `swap_remove`): a job's first poll may do its ordered work (a turn's call runs its
            // pre-call hooks and approval gate there), so a later job must not overtake it.
            running.retain_mut(|(key, future)| match future.as_mut().poll(cx) {
                Poll::Ready(output) => {
                    done(*key, output);
                    false
                }
                Poll::Pending => true,
            });
            // Slots freed: start the next futures now rather than at the next wake-up.
            if running.len() == before {
                return Poll::Pending;
            }
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn bounded_keeps_order_and_the_limit() {
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let futures: Vec<_> = (0..7u64)
            .map(|i| {
                let (now, most) = (now.clone(), most.clone());
                async move {
                    let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(running, Ordering::SeqCst);
                    // Later futures finish first: the outputs still come back in order.
                    tokio::time::sleep(Duration::from_millis(70 - 10 * i)).await;
                    now.fetch_sub(1, Ordering::SeqCst);
                    i * 2
                }
            })
            .collect();
        assert_eq!(bounded(futures, 3).await, vec![0, 2, 4, 6, 8, 10, 12]);
        assert_eq!(most.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn bounded_by_starts_in_order_and_hands_each_output_with_its_key() {
        let started = Arc::new(crate::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&started);
        // Odd jobs are done at once, even ones sleep (later ones less); jobs start in order.
        let mut outputs = Vec::new();
        let jobs = (0..6u64).map(|i| (i, i));
        let start = move |i: u64, ran_between| {
            log.lock().push((i, ran_between));
            if i % 2 == 1 {
                Started::Done(i * 10)
            } else {
                Started::Running(Box::pin(async move {
                    tokio::time::sleep(Duration::from_millis(50 - 10 * i)).await;
                    i * 10
                }) as BoxFuture<'static, u64>)
            }
        };
        bounded_by(jobs, 2, start, |key, output| outputs.push((key, output))).await;
        // Each output with its job's key as the job ended: a job done at once as it started,
        // a sleeping one as it woke (2 at 30 ms, 4 at 40 ms, 0 at 50 ms).
        let ended = [(1, 10), (2, 20), (3, 30), (4, 40), (5, 50), (0, 0)];
        assert_eq!(outputs, ended);
        // Started in order; told whether the running futures were polled since the previous
        // start (job 2 ends first, at 30 ms, and 3 and 4 start; 4 ends at 40 ms and 5 starts).
        let expected = [
            (0, true),
            (1, false),
            (2, false),
            (3, true),
            (4, false),
            (5, true),
        ];
        assert_eq!(*started.lock(), expected);
    }

    #[tokio::test]
    async fn bounded_by_polls_in_the_order_jobs_started() {
        // Job 0 ends at its first poll; 1 and 2 note theirs. Moving 2 into 0's freed place
        // (`swap_remove`) would poll it before 1.
        let polled = Arc::new(crate::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&polled);
        let start = move |i: u8, _| {
            let log = Arc::clone(&log);
            Started::Running(Box::pin(async move {
                log.lock().push(i);
                if i > 0 {
                    tokio::task::yield_now().await;
                }
                i
            }) as BoxFuture<'static, u8>)
        };
        let mut ended = Vec::new();
        let jobs = (0..3u8).map(|i| (i, i));
        bounded_by(jobs, 3, start, |key, _| ended.push(key)).await;
        assert_eq!(*polled.lock(), [0, 1, 2]);
        assert_eq!(ended, [0, 1, 2]);
    }

    #[tokio::test]
    async fn bounded_of_nothing_and_a_zero_limit() {
        assert!(
            bounded(Vec::<std::future::Ready<u8>>::new(), 4)
                .await
                .is_empty()
        );
        let one = vec![std::future::ready(1u8), std::future::ready(2)];
        assert_eq!(bounded(one, 0).await, vec![1, 2]);
    }

    #[tokio::test]
    async fn caught_turns_a_panic_in_a_poll_into_an_error() {
        let panics: BoxFuture<'_, u8> = Box::pin(async {
            tokio::task::yield_now().await;
            panic!("in the second poll")
        });
        let panic = caught(panics).await.unwrap_err();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"in the second poll"));
        assert_eq!(caught(Box::pin(async { 5 })).await.unwrap(), 5);
    }

    #[tokio::test(start_paused = true)]
    async fn unless_keeps_the_work_or_stops() {
        let work = std::pin::pin!(tokio::time::sleep(Duration::from_secs(5)));
        let stop = std::pin::pin!(tokio::time::sleep(Duration::from_secs(1)));
        assert_eq!(unless(work, stop).await, None);
        let work = std::pin::pin!(async { 3 });
        let stop = std::pin::pin!(std::future::ready(()));
        assert_eq!(
            unless(work, stop).await,
            Some(3),
            "work ready with the stop wins"
        );
    }
}
