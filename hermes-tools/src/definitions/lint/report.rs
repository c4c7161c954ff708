//! The registry's lint: the rules over the tools a selection sends, the provider limits over the
//! lists it would send in each format, and the findings the tools' authors acknowledged.
//!
//! An acknowledgement (`#[tool(acknowledge(rule = "strict-mode", reason = "…"))]` or
//! [`ToolBuilder::acknowledge`](crate::tool::ToolBuilder::acknowledge)) moves that rule's
//! findings on that tool from [`LintReport::findings`] to [`LintReport::acknowledged`]; any other
//! rule still fails. One that no longer matches a finding (the tool was fixed, or the rule name
//! is wrong) is itself a finding ([`Rule::StaleAcknowledgement`]), so it cannot outlive its use.

use std::sync::Arc;

use super::{Finding, LintTool, Rule, arguments, lint, sort};
use crate::ToolRegistry;
use crate::definitions::formats::{Format, strict_inexpressible};
use crate::definitions::limits;
use crate::definitions::list::DefinitionsRequest;
use crate::tool::Tool;
use crate::toolsets::{Selection, SelectionError};

/// A finding its tool's author accepted, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acknowledged {
    /// The finding.
    pub finding: Finding,
    /// The reason given with the acknowledgement.
    pub reason: String,
}

/// What [`ToolRegistry::lint_selection`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintReport {
    /// What fails lint: the findings no acknowledgement covers, and stale acknowledgements.
    pub findings: Vec<Finding>,
    /// The findings acknowledged where their tool is declared (`lint --all` prints them).
    pub acknowledged: Vec<Acknowledged>,
}

/// The formats whose providers document limits (`mcp` has none).
const LIMITED: [Format; 5] = [
    Format::OpenAi,
    Format::OpenAiStrict,
    Format::Responses,
    Format::Anthropic,
    Format::Gemini,
];

impl ToolRegistry {
    /// Lints every registered tool ([`lint`](super::lint) and the registry's own rules, the
    /// provider limits over the whole list among them); empty means clean. Acknowledged
    /// findings are left out (see [`lint_selection`](Self::lint_selection)).
    ///
    /// A crate's own test can assert that its tools are clean:
    ///
    /// ```
    /// let findings = hermes_tools::ToolRegistry::global().lint();
    /// assert!(findings.is_empty(), "{findings:#?}");
    /// ```
    pub fn lint(&self) -> Vec<Finding> {
        self.lint_selection(&Selection::default())
            .map(|report| report.findings)
            .unwrap_or_default()
    }

    /// Lints the tools `selection` sends: with an empty selection every registered tool, else
    /// the available tools of the selected toolsets. [`Rule::ProviderLimit`] is checked over the
    /// list the selection sends in each provider format.
    ///
    /// # Errors
    ///
    /// A [`SelectionError`] when the selection names an unknown toolset.
    pub fn lint_selection(&self, selection: &Selection) -> Result<LintReport, SelectionError> {
        let request = |format| DefinitionsRequest {
            selection: selection.clone(),
            format,
            ..DefinitionsRequest::default()
        };
        let listed = self.definitions(&request(Format::OpenAi))?;
        let whole = selection.enabled.is_empty() && selection.disabled.is_empty();
        let snapshot = self.snapshot();
        let tools: Vec<&Arc<Tool>> = snapshot
            .tools()
            .filter(|tool| whole || listed.contains(tool.name()))
            .collect();
        let mut findings = tool_rules(&tools);
        for format in LIMITED {
            let definitions = self.definitions(&request(format))?;
            let Err(violations) = limits::check(format, definitions.iter()) else {
                continue;
            };
            for violation in violations {
                let name = violation.tool.unwrap_or_default();
                let location = tools
                    .iter()
                    .find(|tool| tool.name() == name)
                    .map(|tool| tool.provenance().location())
                    .unwrap_or_default();
                let finding = Finding {
                    tool: name,
                    rule: Rule::ProviderLimit,
                    message: violation.message,
                    location,
                };
                // OpenAI's formats share their name rule: one finding, not three.
                if !findings.contains(&finding) {
                    findings.push(finding);
                }
            }
        }
        let mut report = acknowledge(&tools, findings);
        sort(&mut report.findings);
        report
            .acknowledged
            .sort_by(|a, b| a.finding.tool.cmp(&b.finding.tool));
        Ok(report)
    }
}

/// The description rules, then strict mode and schema mismatches, on each tool.
fn tool_rules(tools: &[&Arc<Tool>]) -> Vec<Finding> {
    let described: Vec<LintTool<'_>> = tools
        .iter()
        .map(|tool| LintTool {
            name: tool.name(),
            toolset: tool.toolset(),
            description: tool.description(),
            parameters: tool.parameters(),
            location: tool.provenance().location(),
        })
        .collect();
    let mut findings = lint(&described);
    for tool in tools {
        let location = tool.provenance().location();
        let mut add = |rule, message| {
            findings.push(Finding {
                tool: tool.name().to_owned(),
                rule,
                message,
                location: location.clone(),
            })
        };
        if let Some(what) = strict_inexpressible(tool.parameters()) {
            add(
                Rule::StrictMode,
                format!(
                    "{what}, which OpenAI strict mode cannot express; the tool is published \
                     there with \"strict\": false (declare the keys, or acknowledge it)"
                ),
            );
        }
        if let Some(message) = arguments::mismatch(tool) {
            add(Rule::SchemaMismatch, message);
        }
    }
    findings
}

/// Splits `findings` by the tools' acknowledgements, and reports the stale ones.
fn acknowledge(tools: &[&Arc<Tool>], findings: Vec<Finding>) -> LintReport {
    let mut report = LintReport::default();
    for finding in findings {
        let reason = tools
            .iter()
            .filter(|tool| tool.name() == finding.tool)
            .flat_map(|tool| tool.acknowledged())
            .find(|ack| ack.rule == finding.rule.as_str() && finding.rule.can_be_acknowledged())
            .map(|ack| ack.reason.to_string());
        match reason {
            Some(reason) => report.acknowledged.push(Acknowledged { finding, reason }),
            None => report.findings.push(finding),
        }
    }
    for tool in tools {
        for ack in tool.acknowledged() {
            let fired = report.acknowledged.iter().any(|done| {
                done.finding.tool == tool.name() && done.finding.rule.as_str() == ack.rule
            });
            if fired {
                continue;
            }
            let known = Rule::ALL
                .iter()
                .any(|rule| rule.can_be_acknowledged() && rule.as_str() == ack.rule);
            let message = if known {
                format!(
                    "acknowledges `{}`, which no longer fires on this tool; remove the \
                     acknowledgement",
                    ack.rule
                )
            } else {
                let rules: Vec<&str> = Rule::ALL
                    .iter()
                    .filter(|rule| rule.can_be_acknowledged())
                    .map(|rule| rule.as_str())
                    .collect();
                format!(
                    "acknowledges `{}`, which is no rule it can acknowledge (one of: {}); fix \
                     or remove it",
                    ack.rule,
                    rules.join(", ")
                )
            };
            report.findings.push(Finding {
                tool: tool.name().to_owned(),
                rule: Rule::StaleAcknowledgement,
                message,
                location: tool.provenance().location(),
            });
        }
    }
    report
}

#[cfg(test)]
mod tests;
