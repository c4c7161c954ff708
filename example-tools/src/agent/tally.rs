//! How well the model's arguments fared: exact, saved by the pipeline's repair, or failed.
//!
//! Small models send sloppy arguments (`"limit": "3"`, a number out of range). The pipeline
//! repairs what the schema makes unambiguous and clamps comfort bounds, so such a call still
//! runs; the tally tells those calls apart from the ones that were right as sent. A call is
//!
//! * **failed** when its answer is an error (bad arguments the repair could not save, an
//!   unknown tool, a refusal, or the tool's own error);
//! * **exact** when its arguments, parsed as JSON, pass
//!   [`hermes_tools::call::validate`] against the schema the model was shown, the very
//!   check dispatch applies, so the two cannot disagree;
//! * **repaired** otherwise: not valid as sent, yet the tool ran.

use std::collections::HashMap;
use std::fmt;

use hermes_tools::provider::ToolCall;
use hermes_tools::{ToolAnswer, definitions::Definitions};
use serde_json::Value;

/// How one call's arguments fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Valid as the model sent them.
    Exact,
    /// Not valid as sent, but the tool ran (repaired or clamped).
    Repaired,
    /// The answer is an error.
    Failed,
}

/// The counts of one run, and the schemas the calls are judged by.
#[derive(Debug)]
pub struct Tally {
    /// Each offered tool's parameter schema, as the model was shown it.
    schemas: HashMap<String, Value>,
    exact: usize,
    repaired: usize,
    failed: usize,
}

impl Tally {
    /// A tally judging calls by the schemas in `shown` (OpenAI-format definitions).
    pub fn new(shown: &Definitions) -> Self {
        let schemas = shown
            .iter()
            .filter_map(|definition| {
                let function = definition.get("function")?;
                let name = function.get("name")?.as_str()?;
                let parameters = function.get("parameters")?;
                Some((name.to_owned(), parameters.clone()))
            })
            .collect();
        Self {
            schemas,
            exact: 0,
            repaired: 0,
            failed: 0,
        }
    }

    /// Learns the schemas of tools `shown` adds (a deferred tool discovered and appended).
    pub fn learn(&mut self, shown: &Definitions) {
        let learned = Self::new(shown).schemas;
        for (name, schema) in learned {
            self.schemas.entry(name).or_insert(schema);
        }
    }

    /// Judges one answered call and counts it.
    pub fn record(&mut self, call: &ToolCall, answer: &ToolAnswer) -> Outcome {
        let outcome = self.judge(call, answer);
        *match outcome {
            Outcome::Exact => &mut self.exact,
            Outcome::Repaired => &mut self.repaired,
            Outcome::Failed => &mut self.failed,
        } += 1;
        outcome
    }

    fn judge(&self, call: &ToolCall, answer: &ToolAnswer) -> Outcome {
        if answer.is_error() {
            return Outcome::Failed;
        }
        let valid_as_sent = serde_json::from_str::<Value>(&call.arguments)
            .ok()
            .zip(self.schemas.get(&call.name))
            .is_some_and(|(args, schema)| hermes_tools::call::validate(&args, schema).is_ok());
        if valid_as_sent {
            Outcome::Exact
        } else {
            Outcome::Repaired
        }
    }

    /// How many calls were counted.
    pub fn calls(&self) -> usize {
        self.exact + self.repaired + self.failed
    }
}

/// `calls: 3 (1 exact, 1 repaired by the pipeline, 1 failed)`.
impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "calls: {} ({} exact, {} repaired by the pipeline, {} failed)",
            self.calls(),
            self.exact,
            self.repaired,
            self.failed
        )
    }
}
