//! Definitions: selection errors, caching keyed by generation, config and availability,
//! dynamic overrides, immutability, and every format for a tool without parameters.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hermes_tools::toolsets::availability::ManualClock;
use hermes_tools::{
    CallOptions, DefinitionsRequest, Format, ToolContext, ToolRegistry, tool::SchemaContext,
    tool::SchemaOverride, tool::Tool, toolsets::Composite, toolsets::SelectionError,
};
use serde_json::{Value, json};

/// The documented bound of the definitions cache (64 selections).
const CACHE_CAPACITY: usize = 64;

fn params(property: &str) -> Value {
    json!({
        "type": "object",
        "properties": {property: {"type": "string", "description": "A value."}},
        "required": [property]
    })
}

fn tool(name: &str, toolset: &str) -> Tool {
    Tool::builder(name, toolset)
        .description("Do one small thing for the test.")
        .parameters(params("value"))
        .handler(|args, _| args)
        .build()
}

fn names(registry: &ToolRegistry, request: &DefinitionsRequest) -> Vec<String> {
    registry
        .definitions(request)
        .unwrap()
        .iter()
        .map(|d| d["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

fn sample() -> ToolRegistry {
    let registry = ToolRegistry::new();
    for (name, toolset) in [
        ("read_file", "files"),
        ("write_file", "files"),
        ("terminal", "terminal"),
        ("web_search", "web"),
    ] {
        registry.register(tool(name, toolset)).unwrap();
    }
    registry
        .register_toolset(
            Composite::new("coding", "Files and a shell.").with_includes(["files", "terminal"]),
        )
        .unwrap();
    registry
}

#[test]
fn unknown_toolsets_are_errors_with_suggestions() {
    let registry = sample();
    let err = registry
        .definitions(&DefinitionsRequest::all().enable(["fils"]))
        .unwrap_err();
    match &err {
        SelectionError::UnknownToolset {
            name, suggestions, ..
        } => {
            assert_eq!(name, "fils");
            assert_eq!(suggestions[0], "files");
        }
        other => panic!("unexpected {other:?}"),
    }
    let err = registry
        .definitions(&DefinitionsRequest::all().disable(["termnal"]))
        .unwrap_err();
    assert!(err.to_string().contains("terminal"), "{err}");
    let both = registry
        .definitions(&DefinitionsRequest::all().enable(["web"]).disable(["web"]))
        .unwrap_err();
    assert!(matches!(both, SelectionError::EnabledAndDisabled { .. }));
}

#[test]
fn disabling_a_composite_keeps_explicitly_enabled_toolsets() {
    let registry = sample();
    // Hermes wiped explicitly enabled tools when a composite containing them was disabled.
    let request = DefinitionsRequest::all()
        .enable(["terminal", "web"])
        .disable(["coding"]);
    assert_eq!(names(&registry, &request), ["terminal", "web_search"]);
    let request = DefinitionsRequest::all()
        .enable(["coding"])
        .disable(["files"]);
    assert_eq!(names(&registry, &request), ["terminal"]);
    let request = DefinitionsRequest::all().enable(["all"]).disable(["web"]);
    assert_eq!(
        names(&registry, &request),
        ["read_file", "terminal", "write_file"]
    );
}

#[test]
fn cached_lists_are_shared_and_registering_makes_new_tools_visible() {
    let registry = sample();
    let request = DefinitionsRequest::all().enable(["coding"]);
    let first = registry.definitions(&request).unwrap();
    let second = registry.definitions(&request).unwrap();
    assert!(first.ptr_eq(&second));
    // A caller's copy is its own: changing it changes nothing the next caller gets.
    let mut mine = first.to_vec();
    mine.push(json!({"injected": true}));
    assert_eq!(registry.definitions(&request).unwrap().len(), 3);

    registry.register(tool("search_files", "files")).unwrap();
    let third = registry.definitions(&request).unwrap();
    assert!(!third.ptr_eq(&first));
    assert_eq!(
        names(&registry, &request),
        ["read_file", "search_files", "terminal", "write_file"]
    );
    registry.deregister("terminal");
    assert_eq!(
        names(&registry, &request),
        ["read_file", "search_files", "write_file"]
    );
}

#[test]
fn the_cache_is_bounded() {
    let registry = sample();
    for format in Format::ALL {
        for extra in 0..12 {
            let mut request = DefinitionsRequest::all().format(format);
            if extra % 2 == 1 {
                request = request.disable(["web"]);
            }
            if extra >= 6 {
                request = request.enable(["files", "terminal"]);
            }
            let _ = registry.definitions(&request.enable((0..extra).map(|_| "files")));
        }
    }
    assert!(registry.cached_definitions() <= CACHE_CAPACITY);
    assert!(registry.cached_definitions() > 0);
}

#[test]
fn an_expired_check_result_recomputes_the_cached_list() {
    let clock = Arc::new(ManualClock::new());
    let registry = ToolRegistry::with_clock(clock.clone());
    registry
        .availability()
        .set_ttl(Some(Duration::from_secs(30)));
    let up = Arc::new(AtomicBool::new(true));
    let probe = Arc::clone(&up);
    let net = Tool::builder("fetch_url", "web")
        .description("Fetch a web page by its address.")
        .check(move || probe.load(Ordering::SeqCst))
        .build();
    registry.register(net).unwrap();
    let request = DefinitionsRequest::all();
    assert_eq!(names(&registry, &request), ["fetch_url"]);
    up.store(false, Ordering::SeqCst);
    clock.advance(Duration::from_secs(29));
    assert_eq!(
        names(&registry, &request),
        ["fetch_url"],
        "cached within the TTL"
    );
    // Past the TTL and past the flap grace: the failure shows.
    clock.advance(Duration::from_secs(61));
    assert_eq!(names(&registry, &request), Vec::<String>::new());
}

fn renaming_override(_: &SchemaContext<'_>) -> SchemaOverride {
    SchemaOverride {
        description: Some("Now with a live description.".into()),
        parameters: Some(json!({
            "properties": {"count": {"type": "integer", "description": "How many."}},
            "required": ["value", "count"]
        })),
    }
}

#[test]
fn an_override_merges_over_the_static_schema_and_cannot_rename() {
    let registry = ToolRegistry::new();
    let seen_count: Arc<parking_lot::Mutex<Option<Value>>> = Arc::default();
    let sink = Arc::clone(&seen_count);
    let live = Tool::builder("live", "demo")
        .description("A tool with a live description.")
        .parameters(params("value"))
        .dynamic_schema(renaming_override)
        .handler(move |args, _| {
            *sink.lock() = Some(args["count"].clone());
            json!("ok")
        })
        .build();
    registry.register(live).unwrap();
    let definitions = registry.definitions(&DefinitionsRequest::all()).unwrap();
    let function = &definitions[0]["function"];
    assert_eq!(function["name"], "live", "the name is the registered one");
    assert_eq!(function["description"], "Now with a live description.");
    assert_eq!(
        function["parameters"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["value", "count"]
    );
    // A call with the definitions the model saw is repaired against their schema: "3"
    // becomes 3 for `count`.
    let answer = registry.call_blocking_with(
        "live",
        r#"{"value":"v","count":"3"}"#,
        &ToolContext::new(),
        &CallOptions::new().definitions(definitions.clone()),
    );
    assert!(!answer.is_error(), "{answer}");
    assert_eq!(*seen_count.lock(), Some(json!(3)));
}

#[test]
fn a_panicking_or_invalid_override_falls_back_to_the_static_definition() {
    let registry = ToolRegistry::new();
    let panicking = Tool::builder("fragile", "demo")
        .description("Static description of the fragile tool.")
        .dynamic_schema(|_| panic!("override bug"))
        .build();
    let invalid = Tool::builder("odd", "demo")
        .description("Static description of the odd tool.")
        .dynamic_schema(|_| SchemaOverride {
            description: None,
            parameters: Some(json!({"type": "array"})),
        })
        .build();
    registry.register(panicking).unwrap();
    registry.register(invalid).unwrap();
    let definitions = registry.definitions(&DefinitionsRequest::all()).unwrap();
    assert_eq!(
        definitions[0]["function"]["description"],
        "Static description of the fragile tool."
    );
    assert_eq!(definitions[1]["function"]["parameters"]["type"], "object");
}

#[test]
fn an_override_sees_the_selected_tools() {
    let registry = sample();
    let pointer = Tool::builder("helper", "terminal")
        .description("Point at the file reader when it is there.")
        .dynamic_schema(|ctx| SchemaOverride {
            description: ctx
                .selected
                .contains("read_file")
                .then(|| "Use read_file to read files.".to_owned()),
            parameters: None,
        })
        .build();
    registry.register(pointer).unwrap();
    let description = |request: DefinitionsRequest| {
        let definitions = registry.definitions(&request).unwrap();
        definitions
            .iter()
            .find(|d| d["function"]["name"] == "helper")
            .unwrap()["function"]["description"]
            .clone()
    };
    assert_eq!(
        description(DefinitionsRequest::all().enable(["coding"])),
        "Use read_file to read files."
    );
    assert_eq!(
        description(DefinitionsRequest::all().enable(["terminal"])),
        "Point at the file reader when it is there."
    );
}

#[test]
fn a_tool_without_parameters_publishes_an_empty_object_schema_in_every_format() {
    let registry = ToolRegistry::new();
    registry
        .register(
            Tool::builder("ping", "net")
                .description("Check that the agent is alive.")
                .build(),
        )
        .unwrap();
    for format in Format::ALL {
        let definitions = registry
            .definitions(&DefinitionsRequest::all().format(format))
            .unwrap();
        let definition = &definitions[0];
        let parameters = [
            &definition["function"]["parameters"],
            &definition["parameters"],
            &definition["input_schema"],
            &definition["inputSchema"],
        ]
        .into_iter()
        .find(|p| !p.is_null())
        .unwrap_or_else(|| panic!("{format}: no parameters in {definition}"));
        assert_eq!(parameters["type"], "object", "{format}");
        assert_eq!(parameters["properties"], json!({}), "{format}");
        let _ = BTreeSet::<String>::new();
    }
}

#[test]
fn forgetting_check_results_recomputes_the_cached_list() {
    let registry = ToolRegistry::new();
    let up = Arc::new(AtomicBool::new(true));
    let probe = Arc::clone(&up);
    let tool = Tool::builder("fetch_url", "web")
        .description("Fetch a web page by its address.")
        .check(move || probe.load(Ordering::SeqCst))
        .build();
    registry.register(tool).unwrap();
    let request = DefinitionsRequest::all();
    assert_eq!(names(&registry, &request), ["fetch_url"]);
    up.store(false, Ordering::SeqCst);
    // No flap grace after an explicit reset: the next list reflects the check now.
    registry.availability().invalidate();
    assert_eq!(names(&registry, &request), Vec::<String>::new());
}

#[test]
fn each_list_judges_calls_by_the_schema_it_showed() {
    let registry = ToolRegistry::new();
    let counted = Tool::builder("counted", "demo")
        .description("Count things, with a count field only when the web is there.")
        .parameters(params("value"))
        .dynamic_schema(|ctx| {
            SchemaOverride {
            description: None,
            parameters: ctx.selected.contains("web_search").then(|| {
                json!({"properties": {"count": {"type": "integer", "description": "How many."}}})
            }),
        }
        })
        .handler(|args, _| args["count"].clone())
        .build();
    registry.register(counted).unwrap();
    registry.register(tool("web_search", "web")).unwrap();
    let with_web = DefinitionsRequest::all();
    let without_web = DefinitionsRequest::all().enable(["demo"]);
    let first = registry.definitions(&with_web).unwrap();
    let shown_without = registry.definitions(&without_web).unwrap();
    // A cache hit for the list with `count` judges by that list's schema: `count` repaired.
    let shown_with = registry.definitions(&with_web).unwrap();
    assert!(shown_with.ptr_eq(&first));
    let call = |options: &CallOptions| {
        registry.call_blocking_with(
            "counted",
            r#"{"value":"v","count":"7"}"#,
            &ToolContext::new(),
            options,
        )
    };
    let answer = call(&CallOptions::new().definitions(shown_with));
    assert_eq!(answer.to_value(), json!(7));
    // The list without `count` (and the static schema, with no list) knows no `count`: refused.
    for options in [
        CallOptions::new().definitions(shown_without),
        CallOptions::new(),
    ] {
        let answer = call(&options);
        assert!(answer.is_error(), "{answer}");
        let error = answer.to_value()["error"].as_str().unwrap().to_owned();
        assert!(error.contains(r#"Unknown argument "count""#), "{error}");
    }
}
