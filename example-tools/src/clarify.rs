//! `clarify`: ask the user a question, optionally with up to four choices (Hermes' clarify tool).

use std::fmt;
use std::io::{self, BufRead, Write};

use hermes_tools::{ToolContext, call::Elicitation, call::ElicitationReply, tool};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

/// The most choices offered; the user can always answer in their own words instead.
pub const MAX_CHOICES: usize = 4;

type AskFn = dyn Fn(&str, &[String]) -> Result<String, String> + Send + Sync;

/// How the agent reaches the user: a callback given the question and the choices (empty for
/// an open question), returning the user's answer or why none could be had.
///
/// Provide it as a context extension; without one, `clarify` answers that it is not available.
pub struct AskUser(Box<AskFn>);

impl AskUser {
    /// A callback from a closure.
    pub fn new(
        ask: impl Fn(&str, &[String]) -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        Self(Box::new(ask))
    }

    /// Asks on the controlling terminal (`/dev/tty`): prints the question and numbered choices
    /// and reads one line. A choice's number picks it; any other text is the answer as typed.
    ///
    /// The terminal, not stdin and stdout: those may carry a protocol (the CLI's `serve` speaks
    /// MCP over them), and a prompt there would eat a message. With no terminal, the model is
    /// told that nobody can be asked.
    pub fn terminal() -> Self {
        Self::new(|question, choices| {
            let tty = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/tty")
                .map_err(|err| format!("no terminal to ask the user on ({err})"))?;
            let mut output = tty
                .try_clone()
                .map_err(|err| format!("no terminal to ask the user on ({err})"))?;
            prompt(&mut io::BufReader::new(tty), &mut output, question, choices)
        })
    }

    /// Asks the user.
    pub fn ask(&self, question: &str, choices: &[String]) -> Result<String, String> {
        (self.0)(question, choices)
    }
}

impl fmt::Debug for AskUser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AskUser(..)")
    }
}

/// The terminal dialogue of [`AskUser::terminal`], over any reader and writer.
fn prompt(
    input: &mut impl BufRead,
    output: &mut impl Write,
    question: &str,
    choices: &[String],
) -> Result<String, String> {
    write_question(output, question, choices)
        .map_err(|err| format!("cannot write the question: {err}"))?;
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => Err("standard input is closed, so no answer could be read".to_owned()),
        Ok(_) => Ok(pick(line.trim(), choices)),
        Err(err) => Err(format!("cannot read the answer: {err}")),
    }
}

fn write_question(output: &mut impl Write, question: &str, choices: &[String]) -> io::Result<()> {
    writeln!(output, "❓ {question}")?;
    for (number, choice) in choices.iter().enumerate() {
        writeln!(output, "  {}. {choice}", number + 1)?;
    }
    let hint = if choices.is_empty() {
        "Your answer: "
    } else {
        "Type a number, or your own answer: "
    };
    write!(output, "{hint}")?;
    output.flush()
}

/// The choice a typed number names, else the typed text itself.
fn pick(typed: &str, choices: &[String]) -> String {
    typed
        .parse::<usize>()
        .ok()
        .and_then(|number| number.checked_sub(1))
        .and_then(|index| choices.get(index))
        .map_or_else(|| typed.to_owned(), Clone::clone)
}

/// What the user answered, in Hermes' shape. Its schema is the tool's MCP `outputSchema`, and
/// an MCP client gets the answer as `structuredContent` too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ClarifyAnswer {
    /// The question asked, trimmed.
    pub question: String,
    /// The choices shown, or `null` for an open question.
    pub choices_offered: Option<Vec<String>>,
    /// The user's answer, trimmed.
    pub user_response: String,
}

/// Why no answer was had (Hermes' messages).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClarifyError {
    /// The question was empty or blank.
    #[error("Question text is required.")]
    EmptyQuestion,
    /// The agent provided no [`AskUser`].
    #[error("Clarify tool is not available in this execution context.")]
    Unavailable,
    /// The callback failed.
    #[error("Failed to get user input: {0}")]
    Failed(String),
}

/// Ask the user a question when you need clarification, feedback, or a decision before proceeding.
///
/// Two modes: multiple choice (give up to 4 `choices`; the user picks one or types their own
/// answer) or open-ended (omit `choices`). Put each option ONLY in `choices`, never listed
/// inside the question text. Use it when the task is ambiguous, when a decision has real
/// trade-offs, or to ask for feedback. Do not use it for simple confirmations; prefer a
/// reasonable default when the decision is low-stakes.
///
/// # Arguments
/// * `question` - The question itself, and only the question (for example 'Which deployment target?').
/// * `choices` - The options to pick from, one per element (up to 4). Omit for a free-text question.
// Read-only, but it waits for the user: two questions at once would race for one terminal
// (Hermes never runs it concurrently either). `blocking`: the wait for a person holds a
// thread of the blocking pool, not a runtime worker.
#[tool(
    toolset = "clarify",
    emoji = "❓",
    read_only,
    parallel = false,
    blocking
)]
pub fn clarify(
    question: String,
    #[arg(max_items = 4)] choices: Option<Vec<String>>,
    ask: Option<&AskUser>,
    ctx: &ToolContext,
) -> Result<ClarifyAnswer, ClarifyError> {
    let question = question.trim();
    if question.is_empty() {
        return Err(ClarifyError::EmptyQuestion);
    }
    let choices = clean_choices(choices);
    let offered = choices.as_deref().unwrap_or_default();
    // The caller's own user first (an MCP client that offers elicitation): the question is
    // theirs, not that of whoever sits at the serving process's terminal.
    let answer = if ctx.can_elicit() {
        elicit(ctx, question, offered)?
    } else {
        let ask = ask.ok_or(ClarifyError::Unavailable)?;
        ask.ask(question, offered).map_err(ClarifyError::Failed)?
    };
    Ok(ClarifyAnswer {
        question: question.to_owned(),
        choices_offered: choices,
        user_response: answer.trim().to_owned(),
    })
}

/// The form of [`elicit`]: with choices, a pick among them or an answer in the user's own
/// words (neither required, one needed); without, a required answer.
fn answer_form(question: &str, choices: &[String]) -> Value {
    let own_words = json!({"type": "string", "title": "Your answer", "description": question});
    if choices.is_empty() {
        return json!({"type": "object", "properties": {"answer": own_words}, "required": ["answer"]});
    }
    json!({
        "type": "object",
        "properties": {
            "choice": {"type": "string", "title": "Pick one", "description": question, "enum": choices},
            "answer": {"type": "string", "title": "Or answer in your own words"},
        },
    })
}

/// Asks through the caller's elicitation: the typed answer if any, else the pick.
fn elicit(ctx: &ToolContext, question: &str, choices: &[String]) -> Result<String, ClarifyError> {
    let form = Elicitation::new(question, answer_form(question, choices));
    let values = match ctx.elicit_blocking(form) {
        Ok(ElicitationReply::Accept(values)) => values,
        Ok(ElicitationReply::Decline) => {
            return Err(ClarifyError::Failed(
                "the user declined to answer".to_owned(),
            ));
        }
        Ok(ElicitationReply::Cancel) => {
            return Err(ClarifyError::Failed(
                "the user dismissed the question".to_owned(),
            ));
        }
        Err(err) => return Err(ClarifyError::Failed(err.to_string())),
    };
    let given = |name: &str| {
        values
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
    };
    given("answer")
        .or_else(|| given("choice"))
        .map(str::to_owned)
        .ok_or_else(|| ClarifyError::Failed("the user sent the form without an answer".to_owned()))
}

/// Trims choices, drops blank ones, keeps the first [`MAX_CHOICES`]; none left means an open
/// question.
fn clean_choices(choices: Option<Vec<String>>) -> Option<Vec<String>> {
    let cleaned: Vec<String> = choices?
        .iter()
        .map(|choice| choice.trim())
        .filter(|choice| !choice.is_empty())
        .take(MAX_CHOICES)
        .map(str::to_owned)
        .collect();
    (!cleaned.is_empty()).then_some(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_tools::ToolRegistry;
    use std::sync::{Arc, Mutex};

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn direct_call_passes_cleaned_choices_and_trims_the_answer() {
        let ask = AskUser::new(|question, choices| {
            Ok(format!("  {question} -> {}  ", choices.join("|")))
        });
        let answer = clarify(
            " Which? ".into(),
            Some(strings(&[" a ", "", "b", "c", "d", "e"])),
            Some(&ask),
            &ToolContext::new(),
        )
        .unwrap();
        assert_eq!(
            answer,
            ClarifyAnswer {
                question: "Which?".into(),
                choices_offered: Some(strings(&["a", "b", "c", "d"])),
                user_response: "Which? -> a|b|c|d".into(),
            }
        );
    }

    #[test]
    fn direct_call_errors() {
        let ask = AskUser::new(|_, _| Err("terminal closed".into()));
        assert_eq!(
            clarify("  ".into(), None, Some(&ask), &ToolContext::new()),
            Err(ClarifyError::EmptyQuestion)
        );
        assert_eq!(
            clarify("q?".into(), None, None, &ToolContext::new()),
            Err(ClarifyError::Unavailable)
        );
        let failed = clarify("q?".into(), None, Some(&ask), &ToolContext::new()).unwrap_err();
        assert_eq!(
            failed.to_string(),
            "Failed to get user input: terminal closed"
        );
    }

    #[test]
    fn dispatch_returns_hermes_shape() {
        let ctx = ToolContext::new().with_extension(AskUser::new(|_, choices| {
            Ok(format!("pick {}", choices[0]))
        }));
        let answer = ToolRegistry::global().call_blocking(
            "clarify",
            r#"{"question":"q?","choices":["a","b","c","d"]}"#,
            &ctx,
        );
        assert!(!answer.is_error());
        assert_eq!(
            answer.to_value(),
            json!({"question": "q?", "choices_offered": ["a", "b", "c", "d"], "user_response": "pick a"})
        );
        let open = ToolRegistry::global().call_blocking("clarify", r#"{"question":"q?"}"#, &ctx);
        assert_eq!(open.to_value()["choices_offered"], json!(null));
    }

    /// Answers every elicitation with `reply`, keeping the questions it was asked.
    struct Scripted {
        reply: ElicitationReply,
        asked: Arc<Mutex<Vec<Elicitation>>>,
    }

    impl hermes_tools::call::Asker for Scripted {
        fn can_elicit(&self) -> bool {
            true
        }
        fn elicit(
            &self,
            question: Elicitation,
        ) -> hermes_tools::call::BoxFuture<
            'static,
            Result<ElicitationReply, hermes_tools::call::AskError>,
        > {
            self.asked.lock().unwrap().push(question);
            let reply = self.reply.clone();
            Box::pin(async move { Ok(reply) })
        }
    }

    /// A context whose caller answers `reply`, beside a terminal callback that must not be
    /// used; and the questions asked.
    fn eliciting(reply: ElicitationReply) -> (ToolContext, Arc<Mutex<Vec<Elicitation>>>) {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let ctx = ToolContext::new()
            .with_extension(AskUser::new(|_, _| Ok("from the terminal".into())))
            .with_asker(Scripted {
                reply,
                asked: Arc::clone(&asked),
            });
        (ctx, asked)
    }

    fn accept(values: Value) -> ElicitationReply {
        ElicitationReply::Accept(values.as_object().unwrap().clone())
    }

    #[test]
    fn a_caller_that_offers_elicitation_is_asked_instead_of_the_terminal() {
        let (ctx, asked) = eliciting(accept(json!({"choice": "prod"})));
        let answer = ToolRegistry::global().call_blocking(
            "clarify",
            r#"{"question":" Where to? ","choices":["staging","prod"]}"#,
            &ctx,
        );
        assert_eq!(
            answer.to_value()["user_response"],
            json!("prod"),
            "{answer:?}"
        );
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].message, "Where to?");
        let properties = &asked[0].schema["properties"];
        assert_eq!(properties["choice"]["enum"], json!(["staging", "prod"]));
        assert_eq!(properties["answer"]["type"], json!("string"));
        assert_eq!(asked[0].schema.get("required"), None, "a pick or own words");
    }

    #[test]
    fn own_words_win_over_a_pick_and_an_open_question_requires_an_answer() {
        let (ctx, asked) = eliciting(accept(json!({"choice": "prod", "answer": " qa "})));
        let typed = clarify("Where?".into(), Some(strings(&["prod"])), None, &ctx).unwrap();
        assert_eq!(typed.user_response, "qa");
        let (ctx, asked_open) = eliciting(accept(json!({"answer": "tomorrow"})));
        let open = clarify("When?".into(), None, None, &ctx).unwrap();
        assert_eq!(open.user_response, "tomorrow");
        assert_eq!(open.choices_offered, None);
        assert_eq!(
            asked_open.lock().unwrap()[0].schema["required"],
            json!(["answer"])
        );
        assert_eq!(asked.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_declined_dismissed_or_empty_elicitation_is_a_tool_error_that_says_so() {
        for (reply, says) in [
            (ElicitationReply::Decline, "the user declined to answer"),
            (ElicitationReply::Cancel, "the user dismissed the question"),
            (
                accept(json!({"answer": "  "})),
                "the user sent the form without an answer",
            ),
        ] {
            let (ctx, _) = eliciting(reply);
            let err = clarify("q?".into(), Some(strings(&["a"])), None, &ctx).unwrap_err();
            assert_eq!(err.to_string(), format!("Failed to get user input: {says}"));
        }
    }

    #[test]
    fn a_caller_that_only_samples_leaves_the_question_to_the_terminal() {
        struct SamplesOnly;
        impl hermes_tools::call::Asker for SamplesOnly {
            fn can_sample(&self) -> bool {
                true
            }
        }
        let ctx = ToolContext::new()
            .with_asker(SamplesOnly)
            .with_extension(AskUser::new(|_, _| Ok("typed".into())));
        let answer = clarify("q?".into(), None, ctx.extension(), &ctx).unwrap();
        assert_eq!(answer.user_response, "typed");
    }

    #[test]
    fn dispatch_without_callback_is_hermes_error() {
        let answer = ToolRegistry::global().call_blocking(
            "clarify",
            r#"{"question":"q?"}"#,
            &ToolContext::new(),
        );
        assert!(answer.is_error());
        assert_eq!(
            answer.to_value(),
            json!({"error": "[TOOL_ERROR] Clarify tool is not available in this execution context."})
        );
    }

    #[test]
    fn schema_caps_choices_at_four() {
        let tool = ToolRegistry::global().get("clarify").unwrap();
        assert_eq!(
            tool.parameters()["properties"]["choices"]["maxItems"],
            json!(4)
        );
        assert_eq!(tool.parameters()["required"], json!(["question"]));
        assert_eq!(tool.toolset(), "clarify");
        assert_eq!(tool.emoji(), "❓");
    }

    #[test]
    fn the_answer_shape_is_published_as_the_output_schema() {
        let tool = ToolRegistry::global().get("clarify").unwrap();
        let schema = tool
            .output_schema()
            .expect("ClarifyAnswer is a JsonSchema struct");
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(schema["required"], json!(["question", "user_response"]));
        assert_eq!(
            schema["properties"]["user_response"]["type"],
            json!("string")
        );
        let answer = ClarifyAnswer {
            question: "q?".into(),
            choices_offered: None,
            user_response: "a".into(),
        };
        let validator = jsonschema::validator_for(schema).unwrap();
        assert!(validator.is_valid(&serde_json::to_value(answer).unwrap()));
    }

    #[test]
    fn terminal_prompt_numbers_choices_and_picks_by_number() {
        let choices = strings(&["staging", "prod"]);
        let mut shown = Vec::new();
        let answer = prompt(&mut "2\n".as_bytes(), &mut shown, "Where?", &choices);
        assert_eq!(answer, Ok("prod".to_owned()));
        assert_eq!(
            String::from_utf8(shown).unwrap(),
            "❓ Where?\n  1. staging\n  2. prod\nType a number, or your own answer: "
        );
        let typed = prompt(&mut " 3 \n".as_bytes(), &mut Vec::new(), "Where?", &choices);
        assert_eq!(
            typed,
            Ok("3".to_owned()),
            "a number with no choice is free text"
        );
        let free = prompt(
            &mut "qa cluster\n".as_bytes(),
            &mut Vec::new(),
            "Where?",
            &choices,
        );
        assert_eq!(free, Ok("qa cluster".to_owned()));
        let closed = prompt(&mut "".as_bytes(), &mut Vec::new(), "Where?", &choices);
        assert_eq!(
            closed,
            Err("standard input is closed, so no answer could be read".to_owned())
        );
        assert_eq!(pick("0", &choices), "0");
    }
}
