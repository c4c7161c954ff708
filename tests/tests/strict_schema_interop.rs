//! The `openai-strict` format against openai-python (PyPI `openai`, pinned in `.ci/`), whose
//! `_ensure_strict_json_schema` (what `to_strict_json_schema` runs) the format ports rule for
//! rule. Every parameter schema published with `"strict": true`, for realistic schemars types
//! and for hand-written schemas that exercise each of its rules, must be one openai-python
//! leaves exactly as it is: what hermes sends is what openai-python would send.
//!
//! This test needs `HERMES_PYTHON`, which `bash .ci/test` sets after installing the pinned
//! packages; without it, it fails and says so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hermes_tools::{DefinitionsRequest, Format, ToolRegistry, tool::Tool};
use schemars::JsonSchema;
use serde_json::{Value, json};

/// The openai-python release the format follows, as pinned in `.ci/requirements.txt`.
const OPENAI_VERSION: &str = "3.57.0";

/// The realistic shapes the format's unit tests use: one file, shared by path.
#[allow(dead_code)]
#[path = "../../hermes-tools/src/definitions/formats/tests/shapes.rs"]
mod shapes;

use shapes::*;

/// schemars' Draft 2020-12 schema for `T` (the registry makes it a tool's parameter schema).
fn schema_of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    generator.into_root_schema_for::<T>().to_value()
}

/// Every realistic shape, and hand-written schemas for the rules no derive reaches (`allOf`, a
/// `$ref` with siblings, a `null` default, `definitions`), named.
fn inputs() -> Vec<(&'static str, Value)> {
    vec![
        ("primitives", schema_of::<Primitives>()),
        ("optionals", schema_of::<Optionals>()),
        ("constrained", schema_of::<Constrained>()),
        ("nested", schema_of::<Nested>()),
        ("enums", schema_of::<Enums>()),
        ("tree", schema_of::<Tree>()),
        ("forest", schema_of::<Forest>()),
        ("maps", schema_of::<Maps>()),
        ("no_args", schema_of::<NoArgs>()),
        ("misc", schema_of::<Misc>()),
        (
            "rules",
            json!({
                "type": "object",
                "properties": {
                    "one": {"allOf": [{"$ref": "#/$defs/B"}], "description": "Just B."},
                    "list": {"type": "array", "items": {"$ref": "#/$defs/B", "title": "B"}},
                    "either": {"anyOf": [{"$ref": "#/$defs/B", "description": "b"}, {"type": "null"}]},
                    "none": {"type": ["string", "null"], "default": null},
                },
                "$defs": {"B": {"type": "object", "properties": {"b": {"type": "integer", "default": 1}}}},
            }),
        ),
        (
            "definitions",
            json!({
                "type": "object",
                "properties": {"p": {"$ref": "#/definitions/P", "description": "A point."}},
                "definitions": {"P": {"type": "object", "properties": {"x": {"type": "number"}}}},
            }),
        ),
    ]
}

/// The Python that `bash .ci/test` installs the pinned openai-python into.
fn python() -> PathBuf {
    let Some(path) = std::env::var_os("HERMES_PYTHON") else {
        panic!(
            "HERMES_PYTHON is not set: this test needs openai-python (PyPI `openai`, \
             {OPENAI_VERSION}). Run `bash .ci/test`, which installs the pinned \
             .ci/requirements.txt under target/ and sets HERMES_PYTHON."
        );
    };
    let path = PathBuf::from(path);
    assert!(
        path.exists(),
        "HERMES_PYTHON={} does not exist; run `bash .ci/test` to install it",
        path.display()
    );
    path
}

/// openai-python's `_ensure_strict_json_schema` on each schema, as `to_strict_json_schema`
/// calls it, with the openai version.
fn openai_strict(python: &Path, schemas: &[Value]) -> (Vec<Value>, String) {
    const SCRIPT: &str = "
import json, sys, openai
from openai.lib._pydantic import _ensure_strict_json_schema
out = [_ensure_strict_json_schema(s, path=(), root=s) for s in json.load(sys.stdin)]
json.dump({'version': openai.__version__, 'schemas': out}, sys.stdout)
";
    let mut child = Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    let input = serde_json::to_vec(schemas).expect("schemas serialize");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &input).expect("write");
    let output = child.wait_with_output().expect("python runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "openai-python failed (pinned: openai=={OPENAI_VERSION}): {stderr}"
    );
    let mut answer: Value = serde_json::from_slice(&output.stdout).expect("python prints JSON");
    let version = answer["version"].as_str().unwrap_or_default().to_owned();
    let Value::Array(schemas) = answer["schemas"].take() else {
        panic!("no schemas in {answer}");
    };
    (schemas, version)
}

#[test]
#[ignore = "needs the OpenAI Python SDK that `bash .ci/test` installs"]
fn strict_parameters_are_what_openai_python_makes_of_them() {
    let python = python();
    let registry = ToolRegistry::new();
    let inputs = inputs();
    for (name, schema) in &inputs {
        let tool = Tool::builder(*name, "interop")
            .description("A schema for openai-python.")
            .parameters(schema.clone())
            .build();
        registry.register(tool).expect("the tool registers");
    }
    let definitions = registry
        .definitions(&DefinitionsRequest::all().format(Format::OpenAiStrict))
        .expect("every tool is selected");
    assert_eq!(definitions.len(), inputs.len());
    // A schema strict mode cannot express goes out with `"strict": false`, as given: openai-python
    // has nothing to say about it.
    let (names, ours): (Vec<&str>, Vec<Value>) = definitions
        .iter()
        .filter(|definition| definition["function"]["strict"] == json!(true))
        .map(|definition| {
            let function = &definition["function"];
            let name = function["name"].as_str().expect("a name");
            (name, function["parameters"].clone())
        })
        .unzip();
    assert!(
        names.contains(&"primitives") && names.contains(&"rules"),
        "plain schemas are published strict: {names:?}"
    );
    let (theirs, version) = openai_strict(&python, &ours);
    assert_eq!(theirs.len(), ours.len());
    for ((name, ours), theirs) in names.iter().zip(&ours).zip(theirs) {
        assert_eq!(
            ours, &theirs,
            "{name}: openai-python {version} changes what hermes publishes"
        );
    }
}
