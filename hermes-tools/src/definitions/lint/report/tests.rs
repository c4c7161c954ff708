//! The registry's lint over real registries: provider limits at their boundary, and
//! acknowledgements that silence one rule on one tool.

use serde_json::json;

use super::*;
use crate::tool::ToolBuilder;

const GOOD: &str = "Search the web for pages matching a query.";

fn clean(name: &str, toolset: &str) -> ToolBuilder {
    Tool::builder(name.to_owned(), toolset.to_owned())
        .description(GOOD)
        .parameters(json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What to look for."}}
        }))
}

fn registry(tools: impl IntoIterator<Item = ToolBuilder>) -> ToolRegistry {
    let registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool.build()).unwrap();
    }
    registry
}

fn rules(findings: &[Finding]) -> Vec<(&str, Rule)> {
    findings.iter().map(|f| (f.tool.as_str(), f.rule)).collect()
}

#[test]
fn tools_per_request_one_under_passes_one_over_fails() {
    let tools = |count: usize| (0..count).map(|i| clean(&format!("tool_{i:03}"), "web"));
    assert_eq!(registry(tools(128)).lint(), []);
    let findings = registry(tools(129)).lint();
    // OpenAI's chat formats and Gemini: one finding each, on the first tool past the limit.
    assert_eq!(
        rules(&findings),
        [
            ("tool_128", Rule::ProviderLimit),
            ("tool_128", Rule::ProviderLimit)
        ],
        "{findings:#?}"
    );
    assert!(
        findings.iter().any(|f| f.message.contains("OpenAI")),
        "{findings:#?}"
    );
    assert!(
        findings.iter().any(|f| f.message.contains("Gemini")),
        "{findings:#?}"
    );
}

#[test]
fn a_selection_under_the_limit_passes_where_the_whole_registry_does_not() {
    let web = (0..100).map(|i| clean(&format!("web_{i:03}"), "web"));
    let files = (0..100).map(|i| clean(&format!("files_{i:03}"), "files"));
    let registry = registry(web.chain(files));
    assert!(rules(&registry.lint()).contains(&("web_028", Rule::ProviderLimit)));
    let selection = Selection {
        enabled: vec!["web".into()],
        disabled: Vec::new(),
    };
    assert_eq!(registry.lint_selection(&selection).unwrap().findings, []);
    let unknown = Selection {
        enabled: vec!["nope".into()],
        disabled: Vec::new(),
    };
    assert!(registry.lint_selection(&unknown).is_err());
}

#[test]
fn description_length_one_under_passes_one_over_fails() {
    let described = |chars: usize| {
        let text = format!("{GOOD} {}", "a".repeat(chars - GOOD.len() - 1));
        clean("web_search", "web").description(text)
    };
    assert_eq!(registry([described(1024)]).lint(), []);
    let findings = registry([described(1025)]).lint();
    assert_eq!(rules(&findings), [("web_search", Rule::ProviderLimit)]);
    assert!(
        findings[0].message.contains("1025 characters"),
        "{findings:#?}"
    );
}

#[test]
fn an_acknowledgement_silences_its_rule_on_its_tool_and_nothing_else() {
    let free_form = json!({"type": "object", "properties": {
        "options": {"type": "object", "additionalProperties": true, "description": "Options."}
    }});
    let registry = registry([
        clean("convert", "docs")
            .parameters(free_form.clone())
            .acknowledge("strict-mode", "free-form by design"),
        // The same finding, unacknowledged on another tool.
        clean("render", "docs").parameters(free_form),
        // Acknowledges a rule that does not fire here, and one that is no rule.
        clean("fetch", "web")
            .acknowledge("summary", "was a fragment")
            .acknowledge("strict-mod", "typo"),
    ]);
    let report = registry.lint_selection(&Selection::default()).unwrap();
    assert_eq!(
        rules(&report.findings),
        [
            ("fetch", Rule::StaleAcknowledgement),
            ("fetch", Rule::StaleAcknowledgement),
            ("render", Rule::StrictMode)
        ],
        "{report:#?}"
    );
    assert!(
        report.findings[0]
            .message
            .contains("`summary`, which no longer fires")
    );
    assert!(
        report.findings[1]
            .message
            .contains("`strict-mod`, which is no rule")
    );
    assert_eq!(report.acknowledged.len(), 1, "{report:#?}");
    assert_eq!(report.acknowledged[0].finding.tool, "convert");
    assert_eq!(report.acknowledged[0].finding.rule, Rule::StrictMode);
    assert_eq!(report.acknowledged[0].reason, "free-form by design");
    assert_eq!(registry.lint(), report.findings);
}

#[test]
fn a_stale_acknowledgement_cannot_be_acknowledged() {
    let registry = registry([clean("fetch", "web")
        .acknowledge("summary", "was a fragment")
        .acknowledge("stale-acknowledgement", "hide it")]);
    let findings = registry.lint();
    assert_eq!(
        rules(&findings),
        [
            ("fetch", Rule::StaleAcknowledgement),
            ("fetch", Rule::StaleAcknowledgement)
        ],
        "{findings:#?}"
    );
}
