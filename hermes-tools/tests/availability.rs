//! Availability with an injected clock: the TTL, Hermes' flapping window, shared checks probed
//! once per pass, panicking checks and `requires_env`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use hermes_tools::toolsets::availability::{FLAP_GRACE, ManualClock, Unavailable};
use hermes_tools::{ToolRegistry, tool, tool::Tool};

struct Flaky {
    up: AtomicBool,
    calls: AtomicUsize,
}

fn flaky_registry(ttl: Duration) -> (ToolRegistry, Arc<ManualClock>, Arc<Flaky>) {
    let clock = Arc::new(ManualClock::new());
    let registry = ToolRegistry::with_clock(clock.clone());
    registry.availability().set_ttl(Some(ttl));
    let flaky = Arc::new(Flaky {
        up: AtomicBool::new(true),
        calls: AtomicUsize::new(0),
    });
    let state = Arc::clone(&flaky);
    let tool = Tool::builder("flaky", "net")
        .check(move || {
            state.calls.fetch_add(1, Ordering::SeqCst);
            state.up.load(Ordering::SeqCst)
        })
        .build();
    registry.register(tool).unwrap();
    (registry, clock, flaky)
}

fn status(registry: &ToolRegistry) -> Result<(), Unavailable> {
    let tool = registry.get("flaky").unwrap();
    registry.availability().probe().check(&tool)
}

#[test]
fn results_are_cached_for_the_ttl() {
    let ttl = Duration::from_secs(30);
    let (registry, clock, flaky) = flaky_registry(ttl);
    assert_eq!(status(&registry), Ok(()));
    clock.advance(ttl - Duration::from_millis(1));
    assert_eq!(status(&registry), Ok(()));
    assert_eq!(
        flaky.calls.load(Ordering::SeqCst),
        1,
        "served from the cache"
    );
    clock.advance(Duration::from_millis(1));
    assert_eq!(status(&registry), Ok(()));
    assert_eq!(
        flaky.calls.load(Ordering::SeqCst),
        2,
        "probed again at the TTL"
    );
}

#[test]
fn a_failure_soon_after_a_success_is_reported_available_and_probed_again() {
    let ttl = Duration::from_secs(30);
    let (registry, clock, flaky) = flaky_registry(ttl);
    assert_eq!(status(&registry), Ok(()));
    flaky.up.store(false, Ordering::SeqCst);
    clock.advance(ttl);
    // 30 s after the success: within the 60 s grace.
    assert_eq!(status(&registry), Ok(()));
    assert_eq!(status(&registry), Ok(()));
    assert_eq!(
        flaky.calls.load(Ordering::SeqCst),
        3,
        "a failure in the grace window is not cached"
    );
    // Past the grace window the failure counts and is cached for the TTL.
    clock.advance(FLAP_GRACE - ttl);
    assert_eq!(status(&registry), Err(Unavailable::CheckFailed));
    clock.advance(ttl - Duration::from_millis(1));
    assert_eq!(status(&registry), Err(Unavailable::CheckFailed));
    assert_eq!(flaky.calls.load(Ordering::SeqCst), 4);
    // Recovery is seen once the cached failure expires.
    flaky.up.store(true, Ordering::SeqCst);
    clock.advance(Duration::from_millis(1));
    assert_eq!(status(&registry), Ok(()));
}

#[test]
fn a_pass_knows_until_when_it_holds() {
    let ttl = Duration::from_secs(30);
    let (registry, clock, flaky) = flaky_registry(ttl);
    let tool = registry.get("flaky").unwrap();
    let mut probe = registry.availability().probe();
    probe.check(&tool).unwrap();
    assert_eq!(probe.valid_until(), Some(clock_now(&clock) + ttl));
    flaky.up.store(false, Ordering::SeqCst);
    clock.advance(ttl);
    let mut probe = registry.availability().probe();
    probe.check(&tool).unwrap();
    assert_eq!(
        probe.valid_until(),
        Some(clock_now(&clock)),
        "grace answers hold only now"
    );
}

fn clock_now(clock: &ManualClock) -> std::time::Instant {
    use hermes_tools::toolsets::availability::Clock;
    clock.now()
}

static SHARED_CALLS: AtomicUsize = AtomicUsize::new(0);

fn shared_check() -> bool {
    SHARED_CALLS.fetch_add(1, Ordering::SeqCst);
    true
}

/// First tool sharing a check.
#[tool(toolset = "shared", check = shared_check)]
fn first_shared() {}

/// Second tool sharing a check.
#[tool(toolset = "shared", check = shared_check)]
fn second_shared() {}

#[test]
fn a_shared_check_runs_once_per_pass() {
    // The linked tools of this test binary, in a registry of their own: the two sharing a check.
    let registry = ToolRegistry::linked();
    registry.availability().set_ttl(Some(Duration::ZERO));
    assert_eq!(
        registry.snapshot().names().collect::<Vec<_>>(),
        ["first_shared", "second_shared"]
    );
    let before = SHARED_CALLS.load(Ordering::SeqCst);
    let mut probe = registry.availability().probe();
    for tool in registry.snapshot().tools() {
        assert_eq!(probe.check(tool), Ok(()));
    }
    assert_eq!(SHARED_CALLS.load(Ordering::SeqCst) - before, 1);
    let _ = (first_shared(), second_shared());
}

#[test]
fn a_panicking_check_means_unavailable() {
    let registry = ToolRegistry::new();
    let tool = Tool::builder("fragile", "x")
        .check(|| panic!("probe exploded"))
        .build();
    registry.register(tool).unwrap();
    let tool = registry.get("fragile").unwrap();
    assert_eq!(
        registry.availability().probe().check(&tool),
        Err(Unavailable::CheckPanicked)
    );
    assert_eq!(Unavailable::CheckPanicked.to_string(), "check panicked");
}

#[test]
fn requires_env_is_enforced() {
    let registry = ToolRegistry::new();
    let var = "HERMES_TOOLS_TEST_SURELY_UNSET_VARIABLE";
    let tool = Tool::builder("needs_env", "x")
        .requires_env([var, "PATH"])
        .build();
    registry.register(tool).unwrap();
    let tool = registry.get("needs_env").unwrap();
    let reason = registry.availability().probe().check(&tool).unwrap_err();
    assert_eq!(reason, Unavailable::MissingEnv(var.to_owned()));
    assert_eq!(reason.to_string(), format!("missing env {var}"));
    let present = Tool::builder("has_env", "x").requires_env(["PATH"]).build();
    assert_eq!(registry.availability().probe().check(&present), Ok(()));
}

#[test]
fn an_answer_read_from_the_environment_holds_for_the_ttl() {
    let clock = Arc::new(ManualClock::new());
    let registry = ToolRegistry::with_clock(clock.clone());
    registry
        .availability()
        .set_ttl(Some(Duration::from_secs(30)));
    let tool = Tool::builder("env_only", "x")
        .requires_env(["PATH"])
        .build();
    let mut probe = registry.availability().probe();
    assert_eq!(probe.check(&tool), Ok(()));
    assert_eq!(
        probe.valid_until(),
        Some(clock_now(&clock) + Duration::from_secs(30))
    );
}

/// `[tools.gated] open = true` opens the gate; anything else keeps it shut, saying why.
fn gate(config: &hermes_tools::config::Config) -> Result<Option<String>, String> {
    match config.tool_setting::<bool>("gated", "open") {
        Some(true) => Ok(Some("open by the config".into())),
        _ => Err("`[tools.gated] open` is not true".into()),
    }
}

/// Gated by the registry's config.
#[tool(toolset = "gates", config_check = gate, unlisted)]
fn gated() {}

#[test]
fn a_config_check_reads_the_registrys_config_and_says_why() {
    use hermes_tools::config::Config;
    use hermes_tools::{DefinitionsRequest, ToolRegistry};

    let clock = Arc::new(ManualClock::new());
    let registry = ToolRegistry::with_clock(clock.clone());
    registry.register(Tool::from_decl(&GATED_TOOL)).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let built = Tool::builder("built", "gates")
        .config_check(move |config| {
            counted.fetch_add(1, Ordering::SeqCst);
            gate(config)
        })
        .build();
    registry.register(built).unwrap();
    let offered = |registry: &ToolRegistry| -> Vec<String> {
        let definitions = registry.definitions(&DefinitionsRequest::all()).unwrap();
        definitions
            .iter()
            .map(|d| d["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let explained = Err(Unavailable::Explained(
        "`[tools.gated] open` is not true".into(),
    ));
    for name in ["gated", "built"] {
        let tool = registry.get(name).unwrap();
        let mut probe = registry.availability().probe_under(registry.config());
        assert_eq!(probe.check(&tool), explained);
        assert_eq!(probe.note(&tool), None);
    }
    assert!(offered(&registry).is_empty());
    assert_eq!(
        explained.clone().unwrap_err().to_string(),
        "`[tools.gated] open` is not true"
    );
    // Cached for the TTL under one config...
    let before = calls.load(Ordering::SeqCst);
    let built = registry.get("built").unwrap();
    let _ = registry
        .availability()
        .probe_under(registry.config())
        .check(&built);
    assert_eq!(calls.load(Ordering::SeqCst), before);
    // ...and asked again under a new one, which opens the gate.
    registry.set_config(Config::from_toml_str("[tools.gated]\nopen = true\n").unwrap());
    let mut probe = registry.availability().probe_under(registry.config());
    for name in ["gated", "built"] {
        let tool = registry.get(name).unwrap();
        assert_eq!(probe.check(&tool), Ok(()));
        assert_eq!(probe.note(&tool), Some("open by the config"));
    }
    assert_eq!(calls.load(Ordering::SeqCst), before + 1);
    let mut names = offered(&registry);
    names.sort();
    assert_eq!(names, ["built", "gated"]);
    // A probe under the default config (no registry's) sees the gate shut.
    assert_eq!(registry.availability().probe().check(&built), explained);
}
