//! Unit tests of one upstream server: how its listing is planned (include, exclude, utilities,
//! names), what a call in a reconnection gap answers, and how commands are shown.
use serde_json::json;

use super::*;

fn listed(names: &[&str]) -> Vec<rmcp::model::Tool> {
    names
        .iter()
        .map(|name| {
            let schema = json!({"type": "object", "properties": {}});
            let Value::Object(schema) = schema else {
                unreachable!()
            };
            rmcp::model::Tool::new(name.to_string(), format!("Do {name}."), Arc::new(schema))
        })
        .collect()
}

fn config(include: &[&str], exclude: &[&str]) -> McpServerConfig {
    let mut config = McpServerConfig::stdio("x", [""; 0]);
    config.include = include.iter().map(|name| (*name).to_owned()).collect();
    config.exclude = exclude.iter().map(|name| (*name).to_owned()).collect();
    config
}

fn names(planned: &[Planned]) -> Vec<&str> {
    planned.iter().map(|p| p.local.as_str()).collect()
}

#[test]
fn a_servers_tools_run_concurrently_only_when_the_operator_says_so() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for parallel in [true, false] {
        let mut config = config(&[], &[]);
        config.parallel_tool_calls = parallel;
        let server = Arc::new(Server::new(
            "s",
            &config,
            &McpOptions::default(),
            runtime.handle().clone(),
            ServerState::Starting,
        ));
        let (planned, _) = plan("s", &config, listed(&["look"]), &[]);
        let tool = server.build_tool(&planned[0]);
        assert_eq!(tool.is_parallel_safe(), parallel, "{config:?}");
    }
}

#[test]
fn include_and_exclude_filter_and_exclude_wins() {
    let (planned, rejected) = plan(
        "s",
        &config(&["a", "b"], &["b"]),
        listed(&["a", "b", "c"]),
        &[],
    );
    assert_eq!(names(&planned), ["mcp__s__a"]);
    assert!(rejected.is_empty());
    let (planned, _) = plan("s", &config(&[], &["c"]), listed(&["c", "b", "a"]), &[]);
    assert_eq!(names(&planned), ["mcp__s__a", "mcp__s__b"]);
}

#[test]
fn utilities_follow_include_and_exclude_and_give_way_to_a_tool_of_their_name() {
    let all = [
        Utility::ListResources,
        Utility::ReadResource,
        Utility::ListPrompts,
        Utility::GetPrompt,
    ];
    let (planned, rejected) = plan("s", &config(&[], &["get_prompt"]), listed(&["a"]), &all);
    assert_eq!(
        names(&planned),
        [
            "mcp__s__a",
            "mcp__s__list_resources",
            "mcp__s__read_resource",
            "mcp__s__list_prompts"
        ]
    );
    assert!(rejected.is_empty(), "{rejected:?}");
    assert_eq!(planned[1].kind, Kind::Utility(Utility::ListResources));
    assert!(planned[1].description.contains("mcp__s__read_resource"));

    // Named in `include`, a utility is no unknown tool.
    let (planned, rejected) = plan("s", &config(&["read_resource"], &[]), listed(&["a"]), &all);
    assert_eq!(names(&planned), ["mcp__s__read_resource"]);
    assert!(rejected.is_empty(), "{rejected:?}");

    let (planned, rejected) = plan("s", &config(&[], &[]), listed(&["list_prompts"]), &all);
    assert_eq!(planned[0].kind, Kind::Tool { typed: false });
    assert_eq!(planned.len(), 4);
    assert_eq!(rejected.len(), 1);
    assert!(
        rejected[0]
            .reason
            .contains("utility tool for the server's prompts"),
        "{rejected:?}"
    );
}

#[test]
fn an_include_naming_no_tool_is_reported() {
    let (planned, rejected) = plan("s", &config(&["a", "typo"], &[]), listed(&["a"]), &[]);
    assert_eq!(names(&planned), ["mcp__s__a"]);
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].name, "typo");
}

#[test]
fn names_equal_after_sanitising_keep_the_first_in_name_order() {
    let (planned, rejected) = plan(
        "s",
        &config(&[], &[]),
        listed(&["get_time", "get-time", ""]),
        &[],
    );
    assert_eq!(names(&planned), ["mcp__s__get_time"]);
    assert_eq!(planned[0].remote, "get-time");
    let reasons: Vec<(&str, &str)> = rejected
        .iter()
        .map(|r| (r.name.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 2);
    assert!(reasons[0].1.contains("empty name"));
    assert_eq!(reasons[1].0, "get_time");
    assert!(
        reasons[1].1.contains("\"get-time\", which is kept"),
        "{reasons:?}"
    );
}

#[test]
fn retry_times_round_up_to_whole_seconds_and_never_say_zero() {
    let secs = |millis| retry_secs(Duration::from_millis(millis));
    assert_eq!(
        [secs(0), secs(1), secs(1000), secs(1001), secs(2999)],
        [1, 1, 1, 2, 3]
    );
}

#[tokio::test(start_paused = true)]
async fn a_reconnecting_server_names_its_last_error_and_when_it_is_expected_back() {
    let registry = ToolRegistry::new();
    let server = Server::new(
        "time",
        &config(&[], &[]),
        &McpOptions::default(),
        Handle::current(),
        ServerState::Running { tools: Vec::new() },
    );
    assert_eq!(server.reconnecting(), None);
    server.connected_in(Duration::from_millis(1500));
    server.set_reconnecting(
        &registry,
        2,
        "the connection closed".into(),
        Duration::from_secs(4),
    );
    let told = |server: &Server| server.reconnecting().unwrap();
    assert_eq!(
        told(&server),
        "MCP server \"time\" is reconnecting (last error: the connection closed); retry in 6 s."
    );
    tokio::time::advance(Duration::from_secs(5)).await;
    assert!(
        told(&server).ends_with("retry in 1 s."),
        "{}",
        told(&server)
    );
    // An attempt slower than the last: still a second, never zero or negative.
    tokio::time::advance(Duration::from_secs(10)).await;
    assert!(
        told(&server).ends_with("retry in 1 s."),
        "{}",
        told(&server)
    );
    server.set_state(&registry, ServerState::Running { tools: Vec::new() });
    assert_eq!(server.reconnecting(), None);
}

#[test]
fn command_lines_quote_what_needs_it() {
    assert_eq!(
        display_command("python", &["-m".into(), "x y".into(), "".into()]),
        r#"python -m "x y" """#
    );
}
