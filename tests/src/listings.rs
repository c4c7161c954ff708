//! Tool listings for the search evaluation (`tests/search_eval.rs`) and the search benches
//! (`benches/search_tokens.rs`, `benches/search_latency.rs`): Hermes Agent 0.19's own tools,
//! as its registry holds them, and generated distractors.
//!
//! Hermes' tools come from PyPI `hermes-agent==0.19.0` itself: `tests/search-eval/hermes_tools.py`
//! imports it and prints its registry's schemas ([`dump_hermes_agent_tools`]), and
//! [`hermes_agent_tools`] turns that listing into runtime tools named `hermes__<name>` in
//! toolsets `hermes-<toolset>` (the prefix keeps them apart from `example_tools`' tools of the
//! same names, which reimplement some of them). They are listings to search and count, not
//! Hermes' implementations: calling one answers an error saying so.
//!
//! The distractors ([`generated_tools`]) are CRUD tools of forty made-up integrations with
//! real-sounding names, objects, descriptions and parameters, so that a search has to tell a
//! request's tool from many plausible neighbours.

use std::path::{Path, PathBuf};
use std::process::Command;

use hermes_tools::config::{Config, McpProtocol, McpServerConfig};
use hermes_tools::mcp::client::{McpClients, ServerState};
use hermes_tools::tool::Tool;
use hermes_tools::toolsets::Selection;
use hermes_tools::{ToolContext, ToolRegistry};
use serde_json::{Value, json};

/// The prefix of Hermes' tools in our registry.
pub const HERMES_PREFIX: &str = "hermes__";

/// How to get the Hermes Agent virtualenv the listing needs.
const INSTALL_HERMES: &str = "run `bash .ci/test` (it installs .ci/hermes-agent-requirements.txt in a virtualenv and exports HERMES_AGENT_PYTHON)";

/// The `tests/search-eval` directory: the requests and the script that lists Hermes' tools.
pub fn search_eval_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("search-eval")
}

/// Hermes Agent 0.19's tool listing, as `tests/search-eval/hermes_tools.py` prints it from the
/// installed package (`HERMES_AGENT_PYTHON`, with a scratch `HERMES_HOME`).
///
/// # Panics
///
/// When `HERMES_AGENT_PYTHON` is not set or the script fails, saying how to install it.
pub fn dump_hermes_agent_tools() -> String {
    let python = std::env::var_os("HERMES_AGENT_PYTHON")
        .unwrap_or_else(|| panic!("HERMES_AGENT_PYTHON is not set: {INSTALL_HERMES}"));
    // Hermes keeps its config, logs and skills under HERMES_HOME: a scratch one, not the user's.
    let home = std::env::temp_dir().join(format!("hermes-agent-home-{}", std::process::id()));
    std::fs::create_dir_all(&home).expect("a scratch HERMES_HOME");
    let output = Command::new(&python)
        .arg(search_eval_dir().join("hermes_tools.py"))
        .env("HERMES_HOME", &home)
        .env("HERMES_QUIET", "1")
        .current_dir(&home)
        .output();
    let _ = std::fs::remove_dir_all(&home);
    let output = output.unwrap_or_else(|err| {
        panic!("cannot run HERMES_AGENT_PYTHON {python:?}: {err}; {INSTALL_HERMES}")
    });
    assert!(
        output.status.success(),
        "hermes_tools.py failed ({}): {}; {INSTALL_HERMES}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the listing is UTF-8")
}

/// Hermes' tools of `listing` (what [`dump_hermes_agent_tools`] prints) as runtime tools:
/// `hermes__<name>` in toolset `hermes-<toolset>`, with Hermes' description and parameters.
///
/// # Errors
///
/// When the listing is not a JSON array of `{name, toolset, schema}` entries, naming the entry.
pub fn hermes_agent_tools(listing: &str) -> Result<Vec<Tool>, String> {
    let entries: Vec<Value> = serde_json::from_str(listing)
        .map_err(|err| format!("the listing is not a JSON array: {err}"))?;
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let field = |key: &str| {
                entry[key]
                    .as_str()
                    .ok_or_else(|| format!("entry {index} has no string `{key}`: {entry}"))
            };
            let (name, toolset) = (field("name")?, field("toolset")?);
            let schema = &entry["schema"];
            let description = schema["description"].as_str().unwrap_or_default();
            let parameters = match &schema["parameters"] {
                Value::Null => json!({"type": "object", "properties": {}}),
                parameters => parameters.clone(),
            };
            let listed = name.to_owned();
            Ok(Tool::builder(format!("{HERMES_PREFIX}{name}"), format!("hermes-{toolset}"))
                .description(description)
                .parameters(parameters)
                .handler(move |_: Value, _: &ToolContext| {
                    json!({"error": format!("{listed} is Hermes Agent's tool, listed here to be searched, not run")})
                })
                .build())
        })
        .collect()
}

/// How to get the MCP servers [`start_real_mcp_servers`] runs.
const INSTALL_MCP: &str = "run `bash .ci/test` (it installs .ci/requirements.txt and .ci/package.json and exports HERMES_PYTHON and HERMES_NODE_MODULES)";

/// The real MCP servers whose tools the evaluation and the token bench list, by the names our
/// client gives them: `everything` (npm `@modelcontextprotocol/server-everything`), `fetch`
/// and `time` (PyPI `mcp-server-fetch`, `mcp-server-time`).
pub const REAL_MCP_SERVERS: [&str; 3] = ["everything", "fetch", "time"];

/// Starts [`REAL_MCP_SERVERS`] through our MCP client, their tools registered in `registry`
/// (`mcp__<server>__<tool>`, toolsets `mcp-<server>`), each listed live.
///
/// # Panics
///
/// When `HERMES_PYTHON` or `HERMES_NODE_MODULES` is not set, or a server does not run.
pub async fn start_real_mcp_servers(registry: &ToolRegistry) -> McpClients {
    let python = std::env::var("HERMES_PYTHON")
        .unwrap_or_else(|_| panic!("HERMES_PYTHON is not set: {INSTALL_MCP}"));
    let modules = std::env::var_os("HERMES_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("HERMES_NODE_MODULES is not set: {INSTALL_MCP}"));
    let everything = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        everything.is_file(),
        "{} is missing: {INSTALL_MCP}",
        everything.display()
    );
    let everything = everything.display().to_string();
    let servers = [
        (
            "everything",
            "node".to_owned(),
            vec![everything.as_str(), "stdio"],
        ),
        ("fetch", python.clone(), vec!["-m", "mcp_server_fetch"]),
        ("time", python, vec!["-m", "mcp_server_time"]),
    ];
    let config = Config {
        mcp_servers: servers
            .into_iter()
            .map(|(name, command, args)| {
                let mut server = McpServerConfig::stdio(command, args);
                // Generous: the machine may be loaded, and node starts slowly.
                server.connect_timeout_secs = 120;
                // The Python servers speak the `initialize` era only. Under `auto`, rmcp 3.11
                // waits 10 s for `server/discover`, then sends `initialize`; a server still
                // importing then (12 s on a loaded machine) answers the probe late, and rmcp
                // takes that answer for the handshake's ("conflict initialized response id").
                if name != "everything" {
                    server.protocol = McpProtocol::Legacy;
                }
                (name.to_owned(), server)
            })
            .collect(),
        ..Config::default()
    };
    let clients = McpClients::start(registry, &config, &Selection::default()).await;
    for name in REAL_MCP_SERVERS {
        let status = clients.status(name).expect("a configured server");
        assert!(
            matches!(status.state, ServerState::Running { .. }),
            "{status}; {INSTALL_MCP}"
        );
    }
    clients
}

/// A kind of object an integration holds: its name in tool names, and its plural in prose.
type Object = (&'static str, &'static str);

/// An integration: its name in tool names, how people write it, and five kinds of object.
type Service = (&'static str, &'static str, [Object; 5]);

/// The integrations the distractors belong to.
const SERVICES: [Service; 40] = [
    (
        "jira",
        "Jira",
        [
            ("issue", "issues"),
            ("sprint", "sprints"),
            ("worklog", "worklogs"),
            ("version", "versions"),
            ("component", "components"),
        ],
    ),
    (
        "confluence",
        "Confluence",
        [
            ("page", "pages"),
            ("space", "spaces"),
            ("label", "labels"),
            ("blog_post", "blog posts"),
            ("template", "templates"),
        ],
    ),
    (
        "salesforce",
        "Salesforce",
        [
            ("lead", "leads"),
            ("opportunity", "opportunities"),
            ("account", "accounts"),
            ("contact", "contacts"),
            ("case", "cases"),
        ],
    ),
    (
        "hubspot",
        "HubSpot",
        [
            ("deal", "deals"),
            ("company", "companies"),
            ("ticket", "tickets"),
            ("note", "notes"),
            ("pipeline", "pipelines"),
        ],
    ),
    (
        "zendesk",
        "Zendesk",
        [
            ("ticket", "tickets"),
            ("macro", "macros"),
            ("organization", "organizations"),
            ("view", "views"),
            ("article", "articles"),
        ],
    ),
    (
        "stripe",
        "Stripe",
        [
            ("charge", "charges"),
            ("customer", "customers"),
            ("invoice", "invoices"),
            ("refund", "refunds"),
            ("subscription", "subscriptions"),
        ],
    ),
    (
        "shopify",
        "Shopify",
        [
            ("product", "products"),
            ("order", "orders"),
            ("collection", "collections"),
            ("discount", "discounts"),
            ("fulfillment", "fulfillments"),
        ],
    ),
    (
        "quickbooks",
        "QuickBooks",
        [
            ("bill", "bills"),
            ("vendor", "vendors"),
            ("payment", "payments"),
            ("estimate", "estimates"),
            ("journal_entry", "journal entries"),
        ],
    ),
    (
        "github",
        "GitHub",
        [
            ("pull_request", "pull requests"),
            ("release", "releases"),
            ("workflow_run", "workflow runs"),
            ("gist", "gists"),
            ("deploy_key", "deploy keys"),
        ],
    ),
    (
        "gitlab",
        "GitLab",
        [
            ("merge_request", "merge requests"),
            ("pipeline", "pipelines"),
            ("runner", "runners"),
            ("milestone", "milestones"),
            ("snippet", "snippets"),
        ],
    ),
    (
        "linear",
        "Linear",
        [
            ("issue", "issues"),
            ("cycle", "cycles"),
            ("team", "teams"),
            ("label", "labels"),
            ("roadmap", "roadmaps"),
        ],
    ),
    (
        "asana",
        "Asana",
        [
            ("project", "projects"),
            ("section", "sections"),
            ("portfolio", "portfolios"),
            ("goal", "goals"),
            ("tag", "tags"),
        ],
    ),
    (
        "notion",
        "Notion",
        [
            ("page", "pages"),
            ("database", "databases"),
            ("block", "blocks"),
            ("comment", "comments"),
            ("workspace_user", "workspace users"),
        ],
    ),
    (
        "gmail",
        "Gmail",
        [
            ("message", "messages"),
            ("draft", "drafts"),
            ("label", "labels"),
            ("thread", "threads"),
            ("filter", "filters"),
        ],
    ),
    (
        "outlook",
        "Outlook Calendar",
        [
            ("event", "events"),
            ("calendar", "calendars"),
            ("room", "rooms"),
            ("invitation", "invitations"),
            ("category", "categories"),
        ],
    ),
    (
        "slack",
        "Slack",
        [
            ("message", "messages"),
            ("channel", "channels"),
            ("user_group", "user groups"),
            ("emoji", "custom emoji"),
            ("bookmark", "bookmarks"),
        ],
    ),
    (
        "teams",
        "Microsoft Teams",
        [
            ("chat", "chats"),
            ("meeting", "meetings"),
            ("channel", "channels"),
            ("tab", "tabs"),
            ("member", "members"),
        ],
    ),
    (
        "zoom",
        "Zoom",
        [
            ("meeting", "meetings"),
            ("webinar", "webinars"),
            ("recording", "recordings"),
            ("participant", "participants"),
            ("room", "rooms"),
        ],
    ),
    (
        "twilio",
        "Twilio",
        [
            ("sms", "SMS messages"),
            ("call", "calls"),
            ("phone_number", "phone numbers"),
            ("conference", "conferences"),
            ("recording", "recordings"),
        ],
    ),
    (
        "mailchimp",
        "Mailchimp",
        [
            ("audience", "audiences"),
            ("campaign", "campaigns"),
            ("segment", "segments"),
            ("tag", "tags"),
            ("automation", "automations"),
        ],
    ),
    (
        "postgres",
        "PostgreSQL",
        [
            ("table", "tables"),
            ("index", "indexes"),
            ("role", "roles"),
            ("schema", "schemas"),
            ("extension", "extensions"),
        ],
    ),
    (
        "mongodb",
        "MongoDB",
        [
            ("collection", "collections"),
            ("document", "documents"),
            ("index", "indexes"),
            ("user", "users"),
            ("cluster", "clusters"),
        ],
    ),
    (
        "s3",
        "Amazon S3",
        [
            ("bucket", "buckets"),
            ("object", "objects"),
            ("lifecycle_rule", "lifecycle rules"),
            ("policy", "bucket policies"),
            ("presigned_url", "presigned URLs"),
        ],
    ),
    (
        "ec2",
        "Amazon EC2",
        [
            ("instance", "instances"),
            ("volume", "volumes"),
            ("snapshot", "snapshots"),
            ("security_group", "security groups"),
            ("key_pair", "key pairs"),
        ],
    ),
    (
        "kubernetes",
        "Kubernetes",
        [
            ("pod", "pods"),
            ("deployment", "deployments"),
            ("service", "services"),
            ("config_map", "config maps"),
            ("namespace", "namespaces"),
        ],
    ),
    (
        "docker",
        "Docker",
        [
            ("container", "containers"),
            ("image", "images"),
            ("volume", "volumes"),
            ("network", "networks"),
            ("registry_login", "registry logins"),
        ],
    ),
    (
        "terraform",
        "Terraform Cloud",
        [
            ("workspace", "workspaces"),
            ("run", "runs"),
            ("state_version", "state versions"),
            ("variable", "variables"),
            ("module", "modules"),
        ],
    ),
    (
        "datadog",
        "Datadog",
        [
            ("monitor", "monitors"),
            ("dashboard", "dashboards"),
            ("metric", "metrics"),
            ("incident", "incidents"),
            ("slo", "SLOs"),
        ],
    ),
    (
        "pagerduty",
        "PagerDuty",
        [
            ("incident", "incidents"),
            ("schedule", "on-call schedules"),
            ("escalation_policy", "escalation policies"),
            ("service", "services"),
            ("override", "overrides"),
        ],
    ),
    (
        "sentry",
        "Sentry",
        [
            ("release", "releases"),
            ("project", "projects"),
            ("alert_rule", "alert rules"),
            ("event", "events"),
            ("team", "teams"),
        ],
    ),
    (
        "grafana",
        "Grafana",
        [
            ("dashboard", "dashboards"),
            ("panel", "panels"),
            ("alert", "alerts"),
            ("datasource", "data sources"),
            ("folder", "folders"),
        ],
    ),
    (
        "okta",
        "Okta",
        [
            ("user", "users"),
            ("group", "groups"),
            ("application", "applications"),
            ("policy", "policies"),
            ("factor", "factors"),
        ],
    ),
    (
        "workday",
        "Workday",
        [
            ("employee", "employees"),
            ("time_off_request", "time-off requests"),
            ("position", "positions"),
            ("payroll_run", "payroll runs"),
            ("review", "performance reviews"),
        ],
    ),
    (
        "greenhouse",
        "Greenhouse",
        [
            ("candidate", "candidates"),
            ("job", "job openings"),
            ("interview", "interviews"),
            ("offer", "offers"),
            ("scorecard", "scorecards"),
        ],
    ),
    (
        "airtable",
        "Airtable",
        [
            ("base", "bases"),
            ("table", "tables"),
            ("record", "records"),
            ("view", "views"),
            ("field", "fields"),
        ],
    ),
    (
        "docusign",
        "DocuSign",
        [
            ("envelope", "envelopes"),
            ("template", "templates"),
            ("recipient", "recipients"),
            ("signature", "signatures"),
            ("folder", "folders"),
        ],
    ),
    (
        "figma",
        "Figma",
        [
            ("file", "design files"),
            ("frame", "frames"),
            ("component", "components"),
            ("comment", "comments"),
            ("version", "versions"),
        ],
    ),
    (
        "ups",
        "UPS",
        [
            ("shipment", "shipments"),
            ("label", "shipping labels"),
            ("pickup", "pickups"),
            ("tracking", "tracking events"),
            ("rate_quote", "rate quotes"),
        ],
    ),
    (
        "amadeus",
        "Amadeus",
        [
            ("flight_offer", "flight offers"),
            ("booking", "bookings"),
            ("seat_map", "seat maps"),
            ("airport", "airports"),
            ("airline", "airlines"),
        ],
    ),
    (
        "yelp",
        "Yelp",
        [
            ("business", "businesses"),
            ("review", "reviews"),
            ("photo", "photos"),
            ("event", "events"),
            ("category", "categories"),
        ],
    ),
];

/// `n` distractor tools, the same ones on every call: the first 1,000 are the five CRUD
/// operations on five objects of forty integrations (`jira_create_issue`, ...); past 1,000 the
/// same shapes repeat for numbered regional instances (`jira_eu2_create_issue`, ...).
pub fn generated_tools(n: usize) -> Vec<Tool> {
    let per_round = SERVICES.len() * 25;
    (0..n)
        .map(|index| {
            let (round, within) = (index / per_round, index % per_round);
            let (service, display, objects) = SERVICES[within / 25];
            let (object, objects_text) = objects[within % 25 / 5];
            let verb = ["list", "get", "create", "update", "delete"][within % 5];
            let (service, display) = if round == 0 {
                (service.to_owned(), display.to_owned())
            } else {
                (
                    format!("{service}_eu{round}"),
                    format!("{display} (EU instance {round})"),
                )
            };
            generated_tool(&service, &display, object, objects_text, verb)
        })
        .collect()
}

/// One distractor: `verb` on `object` of `service`.
fn generated_tool(service: &str, display: &str, object: &str, objects: &str, verb: &str) -> Tool {
    let object_text = object.replace('_', " ");
    let id = format!("{object}_id");
    let (description, parameters) = match verb {
        "list" => (
            format!("List the {objects} in {display}, newest first, a page at a time."),
            json!({"type": "object", "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "How many to return (default 50)."},
                "cursor": {"type": "string", "description": "The cursor of the next page, from the previous answer."},
                "filter": {"type": "string", "description": format!("Only {objects} whose fields match this expression.")}
            }}),
        ),
        "get" => (
            format!("Fetch one {display} {object_text} by its id, with every field."),
            json!({"type": "object", "properties": {
                id.clone(): {"type": "string", "description": format!("The {object_text}'s id in {display}.")}
            }, "required": [id]}),
        ),
        "create" => (
            format!("Create a {object_text} in {display} from the given fields and return its id."),
            json!({"type": "object", "properties": {
                "fields": {"type": "object", "description": format!("The new {object_text}'s fields, by {display}'s field names.")},
                "idempotency_key": {"type": "string", "description": "Makes a retried request create nothing twice."}
            }, "required": ["fields"]}),
        ),
        "update" => (
            format!(
                "Change fields of an existing {display} {object_text}; fields left out keep their values."
            ),
            json!({"type": "object", "properties": {
                id.clone(): {"type": "string", "description": format!("The {object_text}'s id in {display}.")},
                "fields": {"type": "object", "description": "The fields to change, by name."}
            }, "required": [id, "fields"]}),
        ),
        _ => (
            format!("Permanently remove a {object_text} from {display}. This cannot be undone."),
            json!({"type": "object", "properties": {
                id.clone(): {"type": "string", "description": format!("The {object_text}'s id in {display}.")},
                "confirm": {"type": "boolean", "description": "Must be true."}
            }, "required": [id, "confirm"]}),
        ),
    };
    let name = format!("{service}_{verb}_{object}");
    Tool::builder(name.clone(), format!("gen-{service}"))
        .description(description)
        .parameters(parameters)
        .handler(move |_: Value, _: &ToolContext| {
            json!({"error": format!("{name} is a generated distractor: it only exists to be searched")})
        })
        .build()
}
