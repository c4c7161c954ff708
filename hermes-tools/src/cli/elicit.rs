//! The CLI's [`Asker`] for MCP servers' questions: each asked on the terminal.
//!
//! Each property of the requested form is asked in turn on stderr (stdout carries the answer),
//! read from stdin and checked against its type: `y`/`n` for a boolean, a number, one of an
//! enum's values, or text. An empty line takes the property's default, or leaves an optional
//! property out; a required one is asked again. At the end the user sends the answers, declines,
//! or cancels. End of input cancels. The CLI offers it only when stdin is a terminal.

use std::io::{self, BufRead, Write};

use serde_json::{Map, Value};

use crate::call::{AskError, Asker, BoxFuture, Elicitation, ElicitationReply};

/// How many times a property is asked before the question is cancelled.
const TRIES: usize = 3;

/// Asks on the terminal (stdin and stderr).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct TerminalElicitor;

impl Asker for TerminalElicitor {
    fn can_elicit(&self) -> bool {
        true
    }

    fn elicit(
        &self,
        request: Elicitation,
    ) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
        Box::pin(async move {
            // Reading the terminal blocks: never on the runtime's worker.
            // stderr is locked per write (not for the whole question), so a log line written
            // meanwhile does not wait for the user.
            Ok(tokio::task::spawn_blocking(move || {
                ask(&mut io::stdin().lock(), &mut io::stderr(), &request)
            })
            .await
            .unwrap_or(ElicitationReply::Cancel))
        })
    }
}

/// Asks `request` on `output`, reading the answers from `input`.
pub(crate) fn ask(
    input: &mut impl BufRead,
    output: &mut impl Write,
    request: &Elicitation,
) -> ElicitationReply {
    let asker = request.server.as_deref().unwrap_or("(unnamed)");
    let _ = writeln!(
        output,
        "MCP server {asker:?} asks: {}",
        shown(&request.message)
    );
    let empty = Map::new();
    let properties = request.schema["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = request.schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut answers = Map::new();
    for (name, schema) in properties {
        let is_required = required.contains(&name.as_str());
        match ask_one(input, output, name, schema, is_required) {
            Some(Some(value)) => {
                answers.insert(name.clone(), value);
            }
            Some(None) => {}
            None => return ElicitationReply::Cancel,
        }
    }
    let _ = write!(
        output,
        "Send these answers? [y: send, n: decline, c: cancel] "
    );
    let _ = output.flush();
    match read_line(input).as_deref().map(str::trim) {
        Some("y" | "Y" | "yes") => ElicitationReply::Accept(answers),
        Some("n" | "N" | "no") => ElicitationReply::Decline,
        _ => ElicitationReply::Cancel,
    }
}

/// One property's value: `Some(None)` when left out, `None` to cancel.
fn ask_one(
    input: &mut impl BufRead,
    output: &mut impl Write,
    name: &str,
    schema: &Value,
    required: bool,
) -> Option<Option<Value>> {
    let mut prompt = format!("  {}", shown(name));
    if let Some(description) = schema["description"].as_str() {
        prompt.push_str(&format!(" ({})", shown(description)));
    }
    prompt.push_str(&format!(" [{}", kind(schema)));
    if let Some(default) = schema.get("default") {
        prompt.push_str(&format!(", default {default}"));
    } else if required {
        prompt.push_str(", required");
    }
    prompt.push_str("]: ");
    for _ in 0..TRIES {
        let _ = write!(output, "{prompt}");
        let _ = output.flush();
        let line = read_line(input)?;
        match parse(schema, line.trim()) {
            Ok(Some(value)) => return Some(Some(value)),
            Ok(None) if schema.get("default").is_some() => {
                return Some(schema.get("default").cloned());
            }
            Ok(None) if !required => return Some(None),
            Ok(None) => {
                let _ = writeln!(output, "  {name} is required.");
            }
            Err(problem) => {
                let _ = writeln!(output, "  {problem}");
            }
        }
    }
    None
}

/// A server's text as the terminal may show it: control characters (escape sequences that
/// could rewrite the screen or the clipboard) written as escapes, line breaks kept.
pub(super) fn shown(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() && c != '\n' {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// What to type for `schema`, as the prompt says it.
fn kind(schema: &Value) -> String {
    if let Some(choices) = schema["enum"].as_array() {
        let choices: Vec<String> = choices
            .iter()
            .map(|choice| {
                choice
                    .as_str()
                    .map_or_else(|| choice.to_string(), str::to_owned)
            })
            .collect();
        return format!("one of {}", choices.join(", "));
    }
    match schema["type"].as_str() {
        Some("boolean") => "y/n".to_owned(),
        Some("integer") => "a whole number".to_owned(),
        Some("number") => "a number".to_owned(),
        _ => "text".to_owned(),
    }
}

/// `text` as a value of `schema` (`None` for an empty line), or what is wrong with it.
fn parse(schema: &Value, text: &str) -> Result<Option<Value>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    if let Some(choices) = schema["enum"].as_array() {
        return choices
            .iter()
            .find(|choice| choice.as_str() == Some(text))
            .cloned()
            .map(Some)
            .ok_or_else(|| format!("give {}", kind(schema)));
    }
    let value = match schema["type"].as_str() {
        Some("boolean") => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            _ => return Err("answer y or n".to_owned()),
        },
        Some("integer") => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{text:?} is not a whole number"))?,
        Some("number") => text
            .parse::<f64>()
            .ok()
            .and_then(|number| serde_json::Number::from_f64(number).map(Value::Number))
            .ok_or_else(|| format!("{text:?} is not a number"))?,
        _ => Value::String(text.to_owned()),
    };
    Ok(Some(value))
}

/// The next line, or `None` at the end of input.
fn read_line(input: &mut impl BufRead) -> Option<String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request() -> Elicitation {
        Elicitation::new(
            "Please provide inputs:",
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Your name"},
                    "check": {"type": "boolean"},
                    "count": {"type": "integer", "default": 3},
                    "pet": {"type": "string", "enum": ["cat", "dog"]}
                },
                "required": ["name"]
            }),
        )
        .from_server("everything")
    }

    fn answer(typed: &str) -> (ElicitationReply, String) {
        let mut output = Vec::new();
        let reply = ask(&mut typed.as_bytes(), &mut output, &request());
        (reply, String::from_utf8(output).unwrap())
    }

    #[test]
    fn each_property_is_asked_checked_and_sent() {
        // In the form's order: name, check, count, pet.
        let (reply, shown) = answer("\nAda\nmaybe\ny\n\nbird\ndog\ny\n");
        let ElicitationReply::Accept(values) = reply else {
            panic!("accepted: {shown}")
        };
        assert_eq!(
            Value::Object(values),
            json!({"check": true, "count": 3, "name": "Ada", "pet": "dog"})
        );
        assert!(shown.starts_with("MCP server \"everything\" asks: Please provide inputs:"));
        assert!(shown.contains("answer y or n"), "{shown}");
        assert!(shown.contains("name is required."), "{shown}");
        assert!(shown.contains("give one of cat, dog"), "{shown}");
        assert!(
            shown.contains("name (Your name) [text, required]: "),
            "{shown}"
        );
    }

    #[test]
    fn optional_properties_may_be_left_out_and_the_answers_declined() {
        let (reply, _) = answer("Ada\n\n\n\nn\n");
        assert_eq!(reply, ElicitationReply::Decline);
        let (reply, _) = answer("Ada\n\n\n\ny\n");
        let ElicitationReply::Accept(values) = reply else {
            panic!("accepted")
        };
        assert_eq!(Value::Object(values), json!({"count": 3, "name": "Ada"}));
    }

    #[test]
    fn escape_sequences_of_the_server_are_shown_not_run() {
        let mut request = request();
        request.message = "Hi\u{1b}]52;c;cGF5bG9hZA==\u{7}\nthere".to_owned();
        let mut output = Vec::new();
        ask(&mut "Ada\n\n\n\nc\n".as_bytes(), &mut output, &request);
        let shown = String::from_utf8(output).unwrap();
        assert!(!shown.contains('\u{1b}'), "{shown:?}");
        assert!(shown.contains("Hi\\u{1b}]52;c;"), "{shown:?}");
        assert!(shown.contains("\nthere"), "{shown:?}");
    }

    #[test]
    fn the_end_of_input_or_three_bad_answers_cancel() {
        assert_eq!(answer("Ada\n").0, ElicitationReply::Cancel);
        assert_eq!(answer("Ada\nx\nx\nx\n").0, ElicitationReply::Cancel);
        assert_eq!(answer("\n\n\n").0, ElicitationReply::Cancel);
    }
}
