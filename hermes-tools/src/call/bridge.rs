//! Running a future to completion from synchronous code, whatever runtime (if any) the caller
//! is on.
//!
//! | caller | how the future runs |
//! |---|---|
//! | no tokio runtime | on a current-thread runtime kept per thread |
//! | a multi-thread runtime | in place, with `tokio::task::block_in_place` (feature `multi-thread`, on by default; without it as on a current-thread runtime) |
//! | a current-thread runtime | on a scoped helper thread with its own runtime (blocking in place would stall the only worker) |
//!
//! Agents should prefer the async entry points; this is for CLIs, tests and sync callers.

use std::cell::OnceCell;
use std::future::Future;
use std::io;

use tokio::runtime::{Builder, Handle, Runtime};

thread_local! {
    static THREAD_RUNTIME: OnceCell<Runtime> = const { OnceCell::new() };
}

fn new_runtime() -> io::Result<Runtime> {
    Builder::new_current_thread().enable_all().build()
}

/// Runs `future` to completion from synchronous code.
///
/// Fails only when a runtime cannot be created (the OS refused a thread or a file descriptor).
///
/// (Example: the unit test `block_on_example_holds`.)
pub(crate) fn block_on<F>(future: F) -> io::Result<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    match Handle::try_current() {
        #[cfg(feature = "multi-thread")]
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(|| handle.block_on(future)))
        }
        Ok(_) => std::thread::scope(|scope| {
            scope
                .spawn(|| new_runtime().map(|runtime| runtime.block_on(future)))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }),
        Err(_) => THREAD_RUNTIME.with(|cell| {
            let runtime = match cell.get() {
                Some(runtime) => runtime,
                None => {
                    let _ = cell.set(new_runtime()?);
                    cell.get()
                        .ok_or_else(|| io::Error::other("thread runtime unavailable"))?
                }
            };
            Ok(runtime.block_on(future))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn yielded() -> u32 {
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        7
    }

    #[test]
    fn without_runtime() {
        assert_eq!(block_on(yielded()).unwrap(), 7);
        // The per-thread runtime is reused.
        assert_eq!(block_on(yielded()).unwrap(), 7);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn inside_multi_thread_runtime() {
        assert_eq!(block_on(yielded()).unwrap(), 7);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn inside_current_thread_runtime() {
        assert_eq!(block_on(yielded()).unwrap(), 7);
    }

    #[test]
    fn nested_inside_thread_runtime() {
        let outer = block_on(async { block_on(yielded()).unwrap() + 1 }).unwrap();
        assert_eq!(outer, 8);
    }

    #[test]
    fn block_on_example_holds() {
        let answer = crate::call::bridge::block_on(async { 6 * 7 }).unwrap();
        assert_eq!(answer, 42);
    }
}
