//! Every answer the model receives is redacted: the catalogue of credential formats, each in an
//! error, in a successful result (a real `read_file`, `search_files` and a plain `String`
//! result) and in real terminal output, through `ToolRegistry::call`.

use hermes_tools::{ToolAnswer, ToolContext, ToolRegistry, config::Config, tool};
use serde_json::Value;
use tempfile::TempDir;

use example_tools::Workspace;

#[path = "../../hermes-tools/src/secrets/tests/catalogue.rs"]
mod catalogue;

use catalogue::CATALOGUE;

/// Fail with the text given: the credential reaches the model inside an error.
#[tool(toolset = "redaction-test")]
fn fail_with(
    /// The error message.
    text: String,
) -> Result<String, String> {
    Err(text)
}

/// Answer the text given: the credential reaches the model inside a successful result.
#[tool(toolset = "redaction-test")]
fn echo_text(
    /// The text to answer.
    text: String,
) -> String {
    text
}

/// Answer the text given, unredacted by declaration.
#[tool(toolset = "redaction-test", raw_output)]
fn echo_raw(
    /// The text to answer.
    text: String,
) -> String {
    text
}

struct Fixture {
    _dir: TempDir,
    registry: ToolRegistry,
    ctx: ToolContext,
}

/// A registry of everything linked, the terminal's approval lifted by config (as an operator
/// of a disposable container would), and a workspace holding one file per catalogue row.
fn fixture(config: &str) -> Fixture {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir(dir.path().join("secrets")).unwrap();
    for (i, (_, sample, _)) in CATALOGUE.iter().enumerate() {
        std::fs::write(dir.path().join(format!("secrets/{i}.txt")), sample).unwrap();
    }
    let registry = ToolRegistry::linked();
    let text = format!("{config}\n[tools.terminal]\napproval = false\n");
    registry.set_config(Config::from_toml_str(&text).unwrap());
    let ctx = ToolContext::new()
        .with_session_id("redaction")
        .with_extension(Workspace::new(dir.path()));
    Fixture {
        _dir: dir,
        registry,
        ctx,
    }
}

/// Every string of the answer, decoded, and its raw text: a secret may hide in either form.
fn texts(answer: &ToolAnswer) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(members) => members.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = answer.as_str().to_owned();
    out.push('\n');
    walk(&answer.to_value(), &mut out);
    out
}

fn args(text: &str) -> String {
    serde_json::json!({ "text": text }).to_string()
}

/// Calls `tool` once per catalogue row and lists the rows whose secret survived.
fn leaks(f: &Fixture, tool: &str, args_of: impl Fn(usize, &str) -> String) -> Vec<String> {
    let mut leaked = Vec::new();
    for (i, (name, sample, secret)) in CATALOGUE.iter().enumerate() {
        let answer = f.registry.call_blocking(tool, &args_of(i, sample), &f.ctx);
        assert!(
            serde_json::from_str::<Value>(answer.as_str()).is_ok(),
            "{tool} answered non-JSON for {name}: {answer}"
        );
        if texts(&answer).contains(secret) {
            leaked.push(format!("{name}: {answer}"));
        }
    }
    leaked
}

#[test]
fn the_catalogue_is_large_enough() {
    assert!(CATALOGUE.len() >= 60, "{} formats", CATALOGUE.len());
}

#[test]
fn no_credential_survives_in_an_error() {
    let f = fixture("");
    let leaked = leaks(&f, "fail_with", |_, sample| args(sample));
    assert!(leaked.is_empty(), "leaked:\n{}", leaked.join("\n"));
}

#[test]
fn no_credential_survives_in_a_result() {
    let f = fixture("");
    let leaked = leaks(&f, "echo_text", |_, sample| args(sample));
    assert!(
        leaked.is_empty(),
        "echo_text leaked:\n{}",
        leaked.join("\n")
    );
    let leaked = leaks(&f, "read_file", |i, _| {
        format!(r#"{{"path": "secrets/{i}.txt"}}"#)
    });
    assert!(
        leaked.is_empty(),
        "read_file leaked:\n{}",
        leaked.join("\n")
    );
}

#[test]
fn no_credential_survives_in_terminal_output() {
    let f = fixture("");
    let leaked = leaks(&f, "terminal", |i, _| {
        format!(r#"{{"command": "cat secrets/{i}.txt"}}"#)
    });
    assert!(leaked.is_empty(), "leaked:\n{}", leaked.join("\n"));
}

#[test]
fn reading_a_dotenv_answers_masked_values() {
    let f = fixture("");
    let env = "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n\
               DATABASE_URL=postgres://app:s3cr3t-pass@db.internal:5432/app\n\
               PASSWORD=\"correct horse battery staple\"\n\
               DEBUG=true\n";
    std::fs::write(f._dir.path().join(".env"), env).unwrap();
    let answer = f
        .registry
        .call_blocking("read_file", r#"{"path": ".env"}"#, &f.ctx);
    let content = answer.to_value()["content"].as_str().unwrap().to_owned();
    for secret in [
        "abcdefghijklmnopqrstuvwxyz0123456789",
        "s3cr3t-pass",
        "correct horse battery staple",
    ] {
        assert!(!content.contains(secret), "{secret} in {content}");
    }
    // What is not a secret is still read: the names, the host, the flag.
    for kept in ["OPENAI_API_KEY=", "db.internal:5432", "DEBUG=true"] {
        assert!(content.contains(kept), "{kept} missing from {content}");
    }
    // search_files quotes matching lines: masked too.
    let found = f.registry.call_blocking(
        "search_files",
        r#"{"pattern": "PASSWORD|DATABASE", "path": "."}"#,
        &f.ctx,
    );
    assert!(!found.is_error(), "{found}");
    let text = texts(&found);
    assert!(text.contains("DATABASE_URL"), "{text}");
    assert!(
        !text.contains("s3cr3t-pass") && !text.contains("battery staple"),
        "{text}"
    );
}

#[test]
fn hook_replacements_are_redacted_too() {
    let f = fixture("");
    f.registry.hooks().add_transform(None, |record| {
        (record.name == "echo_text").then(|| format!("replaced: token=ghp_{}", "A".repeat(36)))
    });
    let answer = f
        .registry
        .call_blocking("echo_text", &args("plain"), &f.ctx);
    assert!(answer.as_str().contains("replaced"), "{answer}");
    assert!(!answer.as_str().contains(&"A".repeat(36)), "{answer}");
}

#[test]
fn raw_output_is_an_explicit_opt_out() {
    let secret = format!("ghp_{}", "B".repeat(36));
    let text = format!("the token is {secret}");
    // Declared `#[tool(raw_output)]`: the answer is the tool's, as it wrote it.
    let f = fixture("");
    let raw = f.registry.call_blocking("echo_raw", &args(&text), &f.ctx);
    assert!(raw.as_str().contains(&secret), "{raw}");
    let masked = f.registry.call_blocking("echo_text", &args(&text), &f.ctx);
    assert!(!masked.as_str().contains(&secret), "{masked}");
    // The operator may give one tool raw output, or take it back from a declaring one.
    let f = fixture("[tools.echo_text]\nraw_output = true\n[tools.echo_raw]\nraw_output = false\n");
    let raw = f.registry.call_blocking("echo_text", &args(&text), &f.ctx);
    assert!(raw.as_str().contains(&secret), "{raw}");
    let masked = f.registry.call_blocking("echo_raw", &args(&text), &f.ctx);
    assert!(!masked.as_str().contains(&secret), "{masked}");
    // Or turn answer redaction off for every tool (errors are still redacted: they are ours).
    let f = fixture("redact_answers = false\n");
    let raw = f.registry.call_blocking("echo_text", &args(&text), &f.ctx);
    assert!(raw.as_str().contains(&secret), "{raw}");
}
