//! Redaction of arbitrary text with a credential planted in it. Properties: the planted secret
//! never survives `redact`, an error answer or `redact_json`; `redact_json` of a JSON document is
//! a JSON document; text with no marker comes back unchanged.
//!
//! The input's first byte picks a catalogue row, the second where the sample goes; the rest
//! is the text around it. The sample is set apart by newlines: glued to other characters a
//! credential may stop being one (`xsk-…` is no `sk-` key).

#![no_main]

use hermes_tools::__private::redact_json;
use hermes_tools::secrets::redact;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[path = "../../hermes-tools/src/secrets/tests/catalogue.rs"]
mod catalogue;

use catalogue::CATALOGUE;

/// Every string of a JSON value, decoded, each on its own line.
fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(members) => members.iter().for_each(|(k, v)| {
            out.push_str(k);
            out.push('\n');
            strings(v, out);
        }),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some((&at, rest)) = rest.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);

    // Any text: never a panic, and an answer that is JSON stays JSON.
    let _ = redact(&text);
    if serde_json::from_str::<Value>(&text).is_ok() {
        let out = redact_json(&text);
        serde_json::from_str::<Value>(&out).expect("redact_json keeps a JSON document valid");
    }

    // A planted credential never survives, in text, in an error, in a JSON answer.
    let (name, sample, secret) = CATALOGUE[usize::from(pick) % CATALOGUE.len()];
    // The fuzzer learns the secrets (from comparisons it watches the target make, and from
    // earlier inputs) and may write one bare into the surrounding text, where nothing marks it
    // as a credential: no redactor can know it is one, so the property only holds for text that
    // does not already hold it.
    if text.contains(secret) {
        return;
    }
    let cut = text
        .char_indices()
        .map(|(i, _)| i)
        .nth(usize::from(at))
        .unwrap_or(text.len());
    let planted = format!("{}\n{sample}\n{}", &text[..cut], &text[cut..]);
    let masked = redact(&planted);
    assert!(!masked.contains(secret), "{name} survived redact: {masked:?}");
    let error = hermes_tools::ToolAnswer::error(&planted).to_value();
    let mut decoded = String::new();
    strings(&error, &mut decoded);
    assert!(!decoded.contains(secret), "{name} survived an error answer: {error}");
    let answer = serde_json::json!({ "output": planted }).to_string();
    let out = redact_json(&answer);
    let value: Value = serde_json::from_str(&out).expect("redact_json keeps JSON valid");
    let mut decoded = String::new();
    strings(&value, &mut decoded);
    assert!(!decoded.contains(secret), "{name} survived redact_json: {out}");
});
