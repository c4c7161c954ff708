//! Availability: whether a tool can run here, why not, and how long that answer is trusted.
//!
//! A tool is available when its check function returns true, its check of the configuration
//! (if any) finds nothing wrong with the registry's config, and every `requires_env`
//! variable is set (Hermes only displays `requires_env`; here it is enforced). A check that
//! panics means unavailable. Results are cached per check function for a TTL (30 s by default,
//! [`Config::check_ttl_secs`](crate::config::Config::check_ttl_secs)), and a [`Probe`] runs each
//! check function at most once per pass even when tools share it.
//!
//! Flapping is damped as in Hermes: a failure within [`FLAP_GRACE`] of the check's last success
//! is reported available and is not cached, so the next pass probes again; after that window a
//! failure is cached for the TTL like a success. The [`Clock`] is injectable so tests can walk
//! through these windows exactly.

use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::sync::Mutex;

use crate::config::Config;
use crate::tool::{ConfigCheckFn, Tool};

/// How long after a check's last success a failure is still reported available.
pub const FLAP_GRACE: Duration = Duration::from_secs(60);

/// Why a tool is unavailable.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unavailable {
    /// Its check function returned false.
    CheckFailed,
    /// Its check function panicked.
    CheckPanicked,
    /// A required environment variable is not set.
    MissingEnv(String),
    /// Its check of the configuration said why it cannot run (in its own words).
    Explained(String),
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::CheckFailed => f.write_str("check failed"),
            Unavailable::CheckPanicked => f.write_str("check panicked"),
            Unavailable::MissingEnv(var) => write!(f, "missing env {var}"),
            Unavailable::Explained(reason) => f.write_str(reason),
        }
    }
}

/// A source of the current time.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Now.
    fn now(&self) -> Instant;
}

/// The system's monotonic clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to, for tests.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<Instant>,
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl ManualClock {
    /// A clock stopped at the present instant.
    pub fn new() -> Self {
        Self {
            now: Mutex::new(Instant::now()),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        *self.now.lock() += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock()
    }
}

/// Runs `tool`'s availability rules now, with no caching, under the default configuration.
pub fn check_now(tool: &Tool) -> Result<(), Unavailable> {
    check_now_under(tool, Config::shared_default())
}

/// Runs `tool`'s availability rules now, with no caching, under `config`.
pub fn check_now_under(tool: &Tool, config: &Config) -> Result<(), Unavailable> {
    missing_env(tool)?;
    run_check(tool)?;
    run_config_check(tool, config).map(drop)
}

/// The tool's check of the configuration; a panic there is a failed check.
fn run_config_check(tool: &Tool, config: &Config) -> Result<Option<String>, Unavailable> {
    match tool.config_check() {
        None => Ok(None),
        Some(check) => match catch_unwind(AssertUnwindSafe(|| check(config))) {
            Ok(Ok(note)) => Ok(note),
            Ok(Err(reason)) => Err(Unavailable::Explained(reason)),
            Err(_) => Err(Unavailable::CheckPanicked),
        },
    }
}

fn missing_env(tool: &Tool) -> Result<(), Unavailable> {
    match tool
        .requires_env()
        .iter()
        .find(|var| std::env::var_os(var.as_str()).is_none_or(|v| v.is_empty()))
    {
        Some(var) => Err(Unavailable::MissingEnv(var.clone())),
        None => Ok(()),
    }
}

fn run_check(tool: &Tool) -> Result<(), Unavailable> {
    match tool.check() {
        None => Ok(()),
        Some(check) => match catch_unwind(AssertUnwindSafe(|| check())) {
            Ok(true) => Ok(()),
            Ok(false) => Err(Unavailable::CheckFailed),
            Err(_) => Err(Unavailable::CheckPanicked),
        },
    }
}

#[derive(Clone)]
struct Cached {
    result: Result<(), Unavailable>,
    at: Instant,
    /// Held so the function's address, the cache key, is not reused by another closure.
    _check: Option<crate::tool::CheckFn>,
}

/// The cache of check results, shared by every pass over one registry.
#[derive(Debug)]
pub struct Availability {
    clock: Arc<dyn Clock>,
    ttl: Mutex<Option<Duration>>,
    state: Mutex<State>,
    /// Changes when cached answers are forgotten or the TTL changes: lists computed from
    /// earlier answers (cached definitions) are stale.
    epoch: std::sync::atomic::AtomicU64,
    /// The registry config's TTL, used when no override is set.
    default_ttl: Mutex<Duration>,
}

/// A configuration check's answer, for one configuration.
struct ConfigCached {
    result: Result<Option<String>, Unavailable>,
    at: Instant,
    /// The configuration it was given; held so its address is not reused.
    config: Arc<Config>,
    /// Held so the function's address, the cache key, is not reused by another closure.
    _check: ConfigCheckFn,
}

#[derive(Default)]
struct State {
    cached: HashMap<usize, Cached>,
    last_success: HashMap<usize, Instant>,
    configured: HashMap<usize, ConfigCached>,
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("cached", &self.cached.len())
            .finish_non_exhaustive()
    }
}

impl Default for Availability {
    fn default() -> Self {
        Self::new(Arc::new(SystemClock))
    }
}

impl Availability {
    /// A cache reading time from `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            clock,
            ttl: Mutex::new(None),
            default_ttl: Mutex::new(Duration::from_secs(crate::config::DEFAULT_CHECK_TTL_SECS)),
            state: Mutex::new(State::default()),
            epoch: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The TTL from the registry's config; an answer cached under another TTL is forgotten.
    pub(crate) fn set_default_ttl(&self, ttl: Duration) {
        let changed = std::mem::replace(&mut *self.default_ttl.lock(), ttl) != ttl;
        if changed {
            self.bump_epoch();
        }
    }

    /// Overrides the TTL from the config (`None` goes back to the config's).
    pub fn set_ttl(&self, ttl: Option<Duration>) {
        *self.ttl.lock() = ttl;
        self.bump_epoch();
    }

    /// A number that changes whenever cached answers are forgotten or the TTL changes.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(std::sync::atomic::Ordering::Acquire)
    }

    fn bump_epoch(&self) {
        self.epoch.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// The TTL in force.
    pub fn ttl(&self) -> Duration {
        self.ttl.lock().unwrap_or_else(|| *self.default_ttl.lock())
    }

    /// Now, by this cache's clock.
    pub fn now(&self) -> Instant {
        self.clock.now()
    }

    /// Forgets every cached result.
    pub fn invalidate(&self) {
        let mut state = self.state.lock();
        state.cached.clear();
        state.last_success.clear();
        state.configured.clear();
        drop(state);
        self.bump_epoch();
    }

    /// Starts a pass over many tools, under the default configuration.
    pub fn probe(&self) -> Probe<'_> {
        Probe {
            availability: self,
            now: self.clock.now(),
            ttl: self.ttl(),
            seen: HashMap::new(),
            valid_until: None,
            config: Arc::clone(Config::shared_default()),
            notes: HashMap::new(),
        }
    }

    /// Starts a pass over many tools whose configuration checks read `config` (the registry's).
    pub fn probe_under(&self, config: Arc<Config>) -> Probe<'_> {
        Probe {
            config,
            ..self.probe()
        }
    }
}

/// One pass over many tools (one definitions computation, one `list`): each check function
/// runs at most once, and the pass knows until when its answers hold.
pub struct Probe<'a> {
    availability: &'a Availability,
    now: Instant,
    ttl: Duration,
    seen: HashMap<usize, (Result<(), Unavailable>, Instant)>,
    valid_until: Option<Instant>,
    config: Arc<Config>,
    /// What the configuration checks of this pass said of how their tools run, by tool name.
    notes: HashMap<String, String>,
}

impl Probe<'_> {
    /// Whether `tool` is available, and if not why.
    pub fn check(&mut self, tool: &Tool) -> Result<(), Unavailable> {
        if !tool.requires_env().is_empty() {
            // The environment is read now; an answer based on it holds for the TTL.
            self.hold_until(self.now + self.ttl);
        }
        missing_env(tool)?;
        if let Some(key) = tool.check_key() {
            let (result, until) = match self.seen.get(&key) {
                Some(seen) => seen.clone(),
                None => {
                    let seen = self.lookup(key, tool);
                    self.seen.insert(key, seen.clone());
                    seen
                }
            };
            self.hold_until(until);
            result?;
        }
        self.check_config(tool)
    }

    /// The tool's check of this pass's configuration, cached for the TTL per configuration.
    fn check_config(&mut self, tool: &Tool) -> Result<(), Unavailable> {
        let Some(check) = tool.config_check() else {
            return Ok(());
        };
        let key = Arc::as_ptr(check).cast::<()>() as usize;
        let hit = {
            let state = self.availability.state.lock();
            state
                .configured
                .get(&key)
                .filter(|cached| {
                    Arc::ptr_eq(&cached.config, &self.config)
                        && self.now.saturating_duration_since(cached.at) < self.ttl
                })
                .map(|cached| (cached.result.clone(), cached.at + self.ttl))
        };
        if let Some((result, until)) = hit {
            self.hold_until(until);
            return self.noted(tool, result);
        }
        // Run with no lock held: it is user code and may take its time.
        let result = run_config_check(tool, &self.config);
        if let Err(reason) = &result {
            tracing::warn!(tool = tool.name(), reason = %crate::secrets::redact(&reason.to_string()), "tool unavailable");
        }
        self.availability.state.lock().configured.insert(
            key,
            ConfigCached {
                result: result.clone(),
                at: self.now,
                config: Arc::clone(&self.config),
                _check: Arc::clone(check),
            },
        );
        self.hold_until(self.now + self.ttl);
        self.noted(tool, result)
    }

    fn noted(
        &mut self,
        tool: &Tool,
        result: Result<Option<String>, Unavailable>,
    ) -> Result<(), Unavailable> {
        if let Some(note) = result? {
            self.notes.insert(tool.name().to_owned(), note);
        }
        Ok(())
    }

    /// What `tool`'s configuration check said of how it runs, once [`check`](Self::check)ed
    /// available in this pass (a sandbox in force, say).
    pub fn note(&self, tool: &Tool) -> Option<&str> {
        self.notes.get(tool.name()).map(String::as_str)
    }

    fn hold_until(&mut self, until: Instant) {
        self.valid_until = Some(self.valid_until.map_or(until, |v| v.min(until)));
    }

    /// Until when every answer given so far holds; `None` if no check was consulted.
    pub fn valid_until(&self) -> Option<Instant> {
        self.valid_until
    }

    fn lookup(&self, key: usize, tool: &Tool) -> (Result<(), Unavailable>, Instant) {
        let now = self.now;
        if let Some(cached) = self.availability.state.lock().cached.get(&key)
            && now.saturating_duration_since(cached.at) < self.ttl
        {
            return (cached.result.clone(), cached.at + self.ttl);
        }
        // The check runs with no lock held: it is user code and may take its time.
        let result = run_check(tool);
        let mut state = self.availability.state.lock();
        if result.is_ok() {
            state.last_success.insert(key, now);
        } else if let Some(&success) = state.last_success.get(&key)
            && now.saturating_duration_since(success) < FLAP_GRACE
        {
            tracing::debug!(
                tool = tool.name(),
                "check failed within the flap grace; still available"
            );
            // Not cached, and valid only now: the next pass probes again.
            return (Ok(()), now);
        }
        if let Err(reason) = &result {
            // A check explains itself in its own words, which may quote a credential.
            tracing::warn!(tool = tool.name(), reason = %crate::secrets::redact(&reason.to_string()), "tool unavailable");
        }
        state.cached.insert(
            key,
            Cached {
                result: result.clone(),
                at: now,
                _check: tool.check().cloned(),
            },
        );
        (result, now + self.ttl)
    }
}
