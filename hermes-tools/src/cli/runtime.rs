//! The multi-thread runtime a long-running command runs on (`serve`, or an embedding binary's
//! own command such as an agent loop), its worker count read from `TOKIO_WORKER_THREADS` here
//! rather than by tokio, which panics on a value it cannot use.

use std::process::ExitCode;

use tokio::runtime::{Builder, Runtime};

/// The environment variable that sets how many worker threads the runtime runs (tokio's own
/// name for it; unset, one per core).
pub const WORKER_THREADS_ENV: &str = "TOKIO_WORKER_THREADS";

/// The multi-thread runtime a long-running command runs on: every driver enabled, the worker
/// count [`WORKER_THREADS_ENV`] asks for.
///
/// # Errors
///
/// The exit code to return, once the reason is printed to stderr: status 2 for a value of
/// [`WORKER_THREADS_ENV`] that is not a whole number from 1 (the message names the value and
/// what to set), 1 when the runtime cannot start (the operating system refused its threads or
/// its I/O driver).
///
/// # Example
///
/// ```
/// let Ok(runtime) = hermes_tools::cli::runtime() else {
///     panic!("the reason is on stderr");
/// };
/// assert_eq!(runtime.block_on(async { 1 + 1 }), 2);
/// ```
pub fn runtime() -> Result<Runtime, ExitCode> {
    let mut builder = Builder::new_multi_thread();
    builder.enable_all();
    match worker_threads(std::env::var_os(WORKER_THREADS_ENV)) {
        Ok(Some(threads)) => {
            builder.worker_threads(threads);
        }
        Ok(None) => {}
        Err(err) => {
            eprintln!("error: {err}");
            return Err(ExitCode::from(2));
        }
    }
    builder.build().map_err(|err| {
        eprintln!("error: cannot start the async runtime: {err}");
        ExitCode::FAILURE
    })
}

/// The worker threads `value` of [`WORKER_THREADS_ENV`] asks for: `None` when unset (one per
/// core), an error saying what to set for anything but a whole number from 1.
fn worker_threads(value: Option<std::ffi::OsString>) -> Result<Option<usize>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.to_str().map(str::trim).map(str::parse::<usize>) {
        Some(Ok(threads)) if threads > 0 => Ok(Some(threads)),
        _ => Err(format!(
            "{WORKER_THREADS_ENV} is {value:?}: set it to how many worker threads to run (a \
             whole number, at least 1), or unset it for one per core"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::worker_threads;

    #[test]
    fn the_worker_count_is_a_whole_number_from_one_and_anything_else_says_what_to_set() {
        assert_eq!(worker_threads(None), Ok(None));
        assert_eq!(worker_threads(Some("1".into())), Ok(Some(1)));
        assert_eq!(worker_threads(Some(" 4 ".into())), Ok(Some(4)));
        for bad in ["", "0", "-1", "two", "1.5"] {
            let err = worker_threads(Some(bad.into())).unwrap_err();
            assert!(
                err.starts_with(&format!("TOKIO_WORKER_THREADS is {bad:?}:"))
                    && err.contains("at least 1")
                    && err.contains("unset it"),
                "{bad:?}: {err}"
            );
        }
    }
}
