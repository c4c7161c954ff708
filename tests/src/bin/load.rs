//! The load bench's servers and load generator (run by `bench/load`; see `bench/README.md`).
//!
//! - `load floor ADDR`: the floor, a minimal JSON-RPC endpoint answering `add` directly
//!   ([`hermes_tools_tests::load::floor`]);
//! - `load rmcp ADDR`: rmcp's `#[tool_router]` server with the same `add`
//!   ([`hermes_tools_tests::add_tools::RmcpServer`]) in its `StreamableHttpService`, served by
//!   axum with `TCP_NODELAY` set (as a tuned deployment would; without it every answer waits for
//!   the client's delayed acknowledgment);
//! - `load run URL --mode legacy|modern|fresh --clients N [--seconds S] [--warmup S] [--pid PID]
//!   [--label NAME]`: N concurrent keep-alive clients calling `add` for S seconds after a warm-up,
//!   each answer checked; prints one Markdown table row: calls/s, p50, p99, errors, the server's
//!   CPU per call and RSS (read from `/proc/PID`), and on stderr every call that succeeded,
//!   the warm-up's and those still in flight at the end included (what the server served: what
//!   `bench/session-instructions --http` divides its count by);
//! - `load sessions URL --count N --pid PID`: opens N sessions of the `initialize` era and leaves
//!   them idle; prints the server's RSS growth per session.
//!
//! The servers print `listening on URL` on stderr, as `serve --http` does.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hermes_tools_tests::add_tools::RmcpServer;
use hermes_tools_tests::load::{self, Client, LoadError, Mode};
use tokio::net::TcpListener;

/// Linux's unit of `/proc/PID/stat` CPU times (`USER_HZ`, 100 on every Linux ABI).
const TICKS_PER_SECOND: f64 = 100.0;

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("floor") => serve(&args, Server::Floor).await,
        Some("rmcp") => serve(&args, Server::Rmcp).await,
        Some("run") => run(&args[1..]).await,
        Some("sessions") => sessions(&args[1..]).await,
        _ => Err(USAGE.to_owned()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: load floor ADDR | load rmcp ADDR | \
    load run URL --mode legacy|modern|fresh --clients N [--seconds S] [--warmup S] [--pid PID] [--label NAME] | \
    load sessions URL --count N --pid PID";

enum Server {
    Floor,
    Rmcp,
}

async fn serve(args: &[String], server: Server) -> Result<(), String> {
    let addr = args.get(1).ok_or(USAGE)?;
    let listener = TcpListener::bind(addr.as_str())
        .await
        .map_err(|err| format!("{addr} could not be bound: {err}"))?;
    let url = format!(
        "http://{}/mcp",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    eprintln!("listening on {url}");
    match server {
        Server::Floor => load::floor::serve(listener).await,
        Server::Rmcp => {
            use axum::serve::ListenerExt;
            use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
            use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
            let service = StreamableHttpService::new(
                || Ok(RmcpServer),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = listener.tap_io(|stream| {
                let _ = stream.set_nodelay(true);
            });
            axum::serve(listener, router)
                .await
                .map_err(|err| err.to_string())?;
        }
    }
    Ok(())
}

/// The value after flag `name`, parsed.
fn flag<T: std::str::FromStr>(args: &[String], name: &str) -> Result<Option<T>, String> {
    let Some(at) = args.iter().position(|arg| arg == name) else {
        return Ok(None);
    };
    let value = args
        .get(at + 1)
        .ok_or_else(|| format!("{name} needs a value"))?;
    value
        .parse()
        .map(Some)
        .map_err(|_| format!("{name} {value} is not valid"))
}

/// A server's CPU time so far (seconds) and resident memory (bytes).
fn usage(pid: u32) -> Result<(f64, u64), String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|err| format!("/proc/{pid}/stat: {err}"))?;
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |index: usize| fields.get(index - 3).and_then(|f| f.parse::<u64>().ok());
    let cpu = match (ticks(14), ticks(15)) {
        (Some(user), Some(system)) => (user + system) as f64 / TICKS_PER_SECOND,
        _ => return Err(format!("/proc/{pid}/stat has no CPU times")),
    };
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|err| format!("/proc/{pid}/status: {err}"))?;
    let rss = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .ok_or_else(|| format!("/proc/{pid}/status has no VmRSS"))?;
    Ok((cpu, rss * 1024))
}

/// What the clients measured.
#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    /// Every call that succeeded, timed or not (warm-up, and in flight at the end).
    served: u64,
    errors: u64,
    first_error: Option<String>,
}

async fn run(args: &[String]) -> Result<(), String> {
    let url = args.first().ok_or(USAGE)?.clone();
    let mode_name: String = flag(args, "--mode")?.ok_or("--mode is required")?;
    let mode = Mode::parse(&mode_name)
        .ok_or_else(|| format!("--mode {mode_name}: legacy, modern or fresh"))?;
    let clients: usize = flag(args, "--clients")?.ok_or("--clients is required")?;
    let seconds: f64 = flag(args, "--seconds")?.unwrap_or(5.0);
    let warmup: f64 = flag(args, "--warmup")?.unwrap_or(1.0);
    let pid: Option<u32> = flag(args, "--pid")?;
    let label: String = flag(args, "--label")?.unwrap_or_default();

    let recording = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let ready = Arc::new(tokio::sync::Barrier::new(clients + 1));
    let setup_errors = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::with_capacity(clients);
    for index in 0..clients {
        let (url, recording, stop, ready, setup_errors) = (
            url.clone(),
            Arc::clone(&recording),
            Arc::clone(&stop),
            Arc::clone(&ready),
            Arc::clone(&setup_errors),
        );
        tasks.push(tokio::spawn(async move {
            let mut tally = Tally::default();
            let client = match setup(&url, mode).await {
                Ok(client) => Some(client),
                Err(err) => {
                    setup_errors.fetch_add(1, Ordering::Relaxed);
                    tally.first_error = Some(format!("setup: {err}"));
                    None
                }
            };
            ready.wait().await;
            let Some(mut client) = client else {
                return tally;
            };
            let a = i64::try_from(index).unwrap_or_default();
            let mut b = 0;
            while !stop.load(Ordering::Relaxed) {
                b += 1;
                let started = Instant::now();
                let outcome = one_call(&mut client, mode, a, b).await;
                let took = started.elapsed();
                let counted = recording.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed);
                match outcome {
                    Ok(()) => {
                        tally.served += 1;
                        if counted {
                            tally.latencies.push(took);
                        }
                    }
                    Err(err) => {
                        tally.errors += 1;
                        tally.first_error.get_or_insert(err.0);
                        // A broken connection is replaced, as a client would.
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        let _ = client.reconnect().await;
                        if mode == Mode::Legacy {
                            let _ = client.initialize().await;
                        }
                    }
                }
            }
            if mode == Mode::Legacy {
                let _ = client.delete().await;
            }
            tally
        }));
    }
    ready.wait().await;
    tokio::time::sleep(Duration::from_secs_f64(warmup)).await;
    let before = pid.map(usage).transpose()?;
    recording.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let after = pid.map(usage).transpose()?;

    let mut total = Tally::default();
    for task in tasks {
        let tally = task.await.map_err(|err| err.to_string())?;
        total.latencies.extend(tally.latencies);
        total.served += tally.served;
        total.errors += tally.errors;
        if total.first_error.is_none() {
            total.first_error = tally.first_error;
        }
    }
    total.errors += setup_errors.load(Ordering::Relaxed);
    total.latencies.sort_unstable();
    let calls = total.latencies.len();
    let percentile = |p: f64| {
        total
            .latencies
            .get(((calls as f64 * p) as usize).min(calls.saturating_sub(1)))
            .map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
    };
    let (cpu, rss) = match (before, after) {
        (Some((cpu0, _)), Some((cpu1, rss))) if calls > 0 => (
            format!("{:.0}", (cpu1 - cpu0) / calls as f64 * 1e6),
            format!("{:.1}", rss as f64 / (1 << 20) as f64),
        ),
        _ => ("-".to_owned(), "-".to_owned()),
    };
    println!(
        "| {label} | {mode_name} | {clients} | {:.0} | {:.3} | {:.3} | {} | {cpu} | {rss} |",
        calls as f64 / elapsed,
        percentile(0.50),
        percentile(0.99),
        total.errors,
    );
    eprintln!(
        "{label} {clients} clients: {} calls served in all",
        total.served
    );
    if let Some(err) = total.first_error {
        eprintln!("{label} {clients} clients, first error: {err}");
    }
    Ok(())
}

/// A client ready to call in `mode`.
async fn setup(url: &str, mode: Mode) -> Result<Client, LoadError> {
    let mut client = Client::connect(url).await?;
    if mode == Mode::Legacy {
        client.initialize().await?;
    }
    Ok(client)
}

/// One call as `mode` makes it (in fresh mode: initialize, the call, DELETE).
async fn one_call(client: &mut Client, mode: Mode, a: i64, b: i64) -> Result<(), LoadError> {
    if mode == Mode::Fresh {
        client.initialize().await?;
        client.add(a, b).await?;
        return client.delete().await;
    }
    client.add(a, b).await.map(drop)
}

async fn sessions(args: &[String]) -> Result<(), String> {
    let url = args.first().ok_or(USAGE)?.clone();
    let count: usize = flag(args, "--count")?.ok_or("--count is required")?;
    let pid: u32 = flag(args, "--pid")?.ok_or("--pid is required")?;
    // A first session, so that what every session shares is already allocated.
    let mut client = Client::connect(&url).await.map_err(|e| e.0)?;
    client.initialize().await.map_err(|e| e.0)?;
    client.add(1, 2).await.map_err(|e| e.0)?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, before) = usage(pid)?;
    for opened in 0..count {
        client
            .initialize()
            .await
            .map_err(|err| format!("session {}: {err}", opened + 1))?;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (_, after) = usage(pid)?;
    let per = (after as f64 - before as f64) / count as f64;
    println!(
        "{count} idle sessions: RSS {:.1} -> {:.1} MiB, {:.1} KiB per session",
        before as f64 / (1 << 20) as f64,
        after as f64 / (1 << 20) as f64,
        per / 1024.0
    );
    Ok(())
}
