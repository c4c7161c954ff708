//! Result budgets: an answer longer than its tool's budget keeps its head and tail, and the whole
//! of it goes to a spill file that the agent can page through with `read_file`.
//!
//! (The module's example is the unit test `the_module_example_holds`.)
//!
//! # The rules
//!
//! * **Budget.** Every tool has a budget in characters (Unicode scalar values, never bytes):
//!   [`DEFAULT_MAX_RESULT_CHARS`](crate::config::DEFAULT_MAX_RESULT_CHARS) unless configured. A budget below [`MIN_RESULT_CHARS`] counts
//!   as that minimum, the room a cut needs for its own frame. An answer whose JSON text is within
//!   budget (length == budget included) is sent as it is, without a copy.
//! * **Rendering.** A longer answer is rendered as pageable text (below). With a [`Spill`], the
//!   whole rendering is written to a new file first, so nothing is lost. The spill directory
//!   is bounded in files, bytes and age, oldest files removed first, and `read_file` reads its
//!   files wherever it is (see [`spill`](self::spill) for both).
//! * **Cut.** The model gets a JSON object holding the rendering's head, a marker, and its tail,
//!   whose JSON text is at most the budget long. The split is 40% head, 60% tail, as in Hermes'
//!   terminal output: the end of an answer holds the outcome (the last lines of a command, its
//!   error, the small members after a long one), the start holds what it is about. Head room
//!   that escapes leave unused goes to the tail.
//! * **Turn.** A [`TurnBudget`] is shared by the answers of one model turn: each answer gets
//!   `min(its budget, what the turn has left)`, and the turn loses what was sent. An answer that
//!   does not fit in what is left, when that is too little for a cut, becomes a short note,
//!   stating the answer's size, when the note is shorter than the answer; else the answer is
//!   sent as it is (no note can be shorter than `{"result":"ok"}`).
//!
//! # Rendering (the spill file)
//!
//! A rendering is a list of sections, each a header line, then the body's lines, each ending in
//! `\n`. The header counts the body's lines (newlines + 1), so a body line that looks like a
//! header is never taken for one, and the rendering decodes back to the answer exactly:
//!
//! | answer | sections |
//! |---|---|
//! | object with members | per member, `== "key": string, N lines ==` and the string raw (unescaped), or `== "key": json, N lines ==` and the value as pretty JSON |
//! | array with items | the same per item, labelled `[0]`, `[1]`, ... |
//! | string | `== string, N lines ==` and the string raw |
//! | number, `true`, `false`, `null`, `{}`, `[]` | `== json, 1 line ==` and the JSON |
//! | not JSON, or JSON that serde_json would not write back the same, spacing and string escapes aside (a duplicate key, a number past 64 bits or spelt like `1E5`) | `== text, N lines ==` and the text as it is |
//!
//! So `{"output":"a\nb","exit_code":0}` renders as
//! `== "output": string, 2 lines ==\na\nb\n== "exit_code": json, 1 line ==\n0\n`, one line per
//! line of output, which `read_file` pages with its `offset` and `limit`.
//!
//! # The shapes
//!
//! A cut answer (members in this order; `spill_file` only when one was written):
//!
//! ```text
//! {"truncated":true,"total_chars":T,"omitted_chars":M,"spill_file":"P","content":"HEAD\n\n[MARKER]\n\nTAIL"}
//! ```
//!
//! `T` counts the rendering's characters, so `HEAD` + `M` cut + `TAIL` = `T`. The marker is one of
//!
//! ```text
//! [... M characters cut (lines A-B of L); the full answer is in P: read it with read_file offset=A limit=K ...]
//! [... M characters cut; the full answer was not saved ...]
//! [... M characters cut; the full answer could not be saved (REASON) ...]
//! ```
//!
//! where lines `A` to `B` (`K` lines) of the `L`-line file hold every cut character. An error
//! answer (an object whose `"error"` is not `null`, `false` or `""`) stays error-shaped: the
//! text goes first, under `"error"`, with no `"content"`:
//! `{"error":"HEAD\n\n[MARKER]\n\nTAIL","truncated":true,"total_chars":T,"omitted_chars":M,...}`.
//!
//! The turn's note, for an answer that the turn has no room for (`"error"` first, instead of
//! `"note"` last, for an error answer); `T` here is the answer's own length in characters:
//!
//! ```text
//! {"truncated":true,"turn_budget_spent":true,"total_chars":T,"spill_file":"P","note":"This turn's tool-result budget is spent, so this answer (T characters) is not shown; it is in P: read it with read_file offset/limit."}
//! ```
//!
//! # Limits
//!
//! * The frame (the cut answer without head and tail) holds the spill path twice. Should it
//!   alone exceed the budget (a spill directory path of hundreds of characters), [`fit`]
//!   returns the frame, longer than the budget, and [`TurnBudget::fit`] returns the note.
//! * The turn's notes are not charged to the turn: a turn must answer every call. So a turn
//!   sends at most its budget plus, for each answer it has no room for, the shorter of that
//!   answer and its note, which is at most [`TURN_NOTE_MAX_CHARS`] plus twice its spill path.
//!   10,000 answers of 63 characters against a budget of 200,000 send at most 630,000: every
//!   answer past the budget costs no more than itself.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use self::cut::{cut_text, spent_note};
use self::render::{render_text, render_value, round_trips};
use self::spill::Saved;
pub(crate) use self::spill::Spill;
pub use self::spill::readable_spill_file;

mod cut;
mod render;
mod scan;
mod spill;

/// The smallest budget: a smaller one counts as this, the room a cut needs for its frame
/// (about 200 characters, plus the spill path twice) and some head and tail.
pub(crate) const MIN_RESULT_CHARS: usize = 500;

/// Fewer characters than any turn's note: an answer this short is never replaced by one.
const SHORTEST_NOTE_CHARS: usize = 160;

/// The most characters a turn's note has besides its spill path (twice) and the JSON escapes
/// of a failed spill's reason: what an answer the turn has no room for costs at most (see
/// [`TurnBudget`]).
pub const TURN_NOTE_MAX_CHARS: usize = 600;

/// An answer after its budget: the text to send, and what was cut, if anything.
#[must_use = "the budgeted text is what must be sent, not the answer"]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Budgeted<'a> {
    /// The JSON text to send to the model: the answer itself when it is within budget.
    pub text: Cow<'a, str>,
    /// What was cut; `None` when [`text`](Self::text) is the answer, borrowed and unchanged.
    pub cut: Option<Cut>,
    /// Whether the turn is not charged for the text: the turn's note, or an answer no longer
    /// than its note would be, sent when the turn had no room for it.
    pub uncharged: bool,
}

impl Budgeted<'_> {
    /// The text to send, owned.
    pub(crate) fn into_string(self) -> String {
        self.text.into_owned()
    }

    fn whole(answer: &str) -> Budgeted<'_> {
        Budgeted {
            text: Cow::Borrowed(answer),
            cut: None,
            uncharged: false,
        }
    }

    /// The answer as it is, sent when the turn had no room for it (as a note would be).
    fn past_the_turn(answer: &str) -> Budgeted<'_> {
        Budgeted {
            uncharged: true,
            ..Budgeted::whole(answer)
        }
    }
}

/// What a cut left out, and where the whole answer went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cut {
    /// The characters of the answer's rendering (see the [module docs](self)): those of the
    /// spill file, from which the head and the tail were taken.
    pub total_chars: usize,
    /// The rendering's characters not sent: `total_chars` less the head and the tail (all of
    /// them for the turn's note).
    pub omitted_chars: usize,
    /// The file that holds the whole rendering, when one was written.
    pub spill_file: Option<PathBuf>,
    /// Why no spill file could be written, when a [`Spill`] was given and writing failed.
    pub spill_error: Option<String>,
    /// Whether the answer was replaced by the note that the turn's budget is spent.
    pub turn_spent: bool,
}

/// Fits `answer_json`, the JSON text of one tool answer, within `max_chars` characters.
///
/// Within budget, the answer is returned borrowed. Over budget, it is rendered, spilled whole
/// when `spill` is given, and cut to its head and tail (see the [module docs](self) for the
/// exact shapes). A failed spill still cuts, and says so in the marker and
/// [`Cut::spill_error`]. The text is always JSON, and at most `max(max_chars,`
/// [`MIN_RESULT_CHARS`]`)` characters long unless the spill path alone is too long for that.
pub(crate) fn fit<'a>(
    tool: &str,
    answer_json: &'a str,
    max_chars: usize,
    spill: Option<&Spill>,
) -> Budgeted<'a> {
    let limit = max_chars.max(MIN_RESULT_CHARS);
    if fits(answer_json, limit) {
        return Budgeted::whole(answer_json);
    }
    let doc = Oversize::new(answer_json);
    let saved = Saved::new(tool, &doc.rendering, spill);
    let (text, omitted) = cut_text(&doc, &saved, limit);
    doc.finish(text, omitted, saved, false)
}

/// The characters of `text` when they are at most `limit`.
fn chars_within(text: &str, limit: usize) -> Option<usize> {
    // A character takes at most 4 bytes: a text of more than 4 bytes per character of the
    // limit is over it, without counting.
    if text.len() / 4 > limit {
        return None;
    }
    let chars = text.chars().count();
    (chars <= limit).then_some(chars)
}

fn fits(text: &str, limit: usize) -> bool {
    // A string has no more characters than bytes: the byte length answers most calls for free.
    text.len() <= limit || chars_within(text, limit).is_some()
}

/// The answer budget of one model turn, shared by all its answers, from any thread.
///
/// Share it by reference or in an `Arc`. Each answer the call pipeline fits first reserves
/// what it may use, then gives back what it did not: concurrent answers may be cut more than
/// the same answers one after another, but the turn never sends more than its budget (besides
/// the notes for answers it has no room for).
///
/// An answer the turn has no room for costs the shorter of itself and its note (at most
/// [`TURN_NOTE_MAX_CHARS`] plus twice the spill path): a turn of `n` answers sends at most
/// its budget plus `n` times that, and never more than its answers themselves.
#[derive(Debug)]
pub struct TurnBudget {
    total: usize,
    remaining: AtomicUsize,
}

impl TurnBudget {
    /// A turn that may send `total_chars` characters of answers.
    pub fn new(total_chars: usize) -> Self {
        Self {
            total: total_chars,
            remaining: AtomicUsize::new(total_chars),
        }
    }

    /// The characters the turn may send in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The characters the turn may still send (less what answers being fitted hold).
    pub fn remaining(&self) -> usize {
        self.remaining.load(Ordering::Relaxed)
    }

    /// Fits an answer within `min(max_chars, what the turn has left)`, like the free `budget::fit`,
    /// and charges the turn with the characters sent.
    ///
    /// An over-size answer for which that is too little (below `MIN_RESULT_CHARS` (500), or less
    /// than the cut's frame) becomes the turn's note, naming the spill file when there is one;
    /// the note is not charged.
    pub(crate) fn fit<'a>(
        &self,
        tool: &str,
        answer_json: &'a str,
        max_chars: usize,
        spill: Option<&Spill>,
    ) -> Budgeted<'a> {
        let limit = max_chars.max(MIN_RESULT_CHARS);
        // The common case in one atomic step: an answer within its budget and what the turn
        // has left is charged its length and sent as it is.
        if let Some(chars) = chars_within(answer_json, limit)
            && self
                .remaining
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                    left.checked_sub(chars)
                })
                .is_ok()
        {
            return Budgeted::whole(answer_json);
        }
        let allowance = self.reserve(limit);
        let fitted = fit_within_turn(tool, answer_json, allowance, spill);
        let sent = match fitted.uncharged {
            true => 0,
            false => fitted.text.chars().count(),
        };
        self.remaining
            .fetch_add(allowance.saturating_sub(sent), Ordering::Relaxed);
        fitted
    }

    /// Takes up to `want` characters from the turn, at once, and returns how many it took.
    fn reserve(&self, want: usize) -> usize {
        // The counter guards no other memory, so Relaxed suffices: atomicity is what keeps two
        // answers from both taking the same characters.
        let before = self
            .remaining
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                Some(left - left.min(want))
            })
            .unwrap_or_else(|left| left);
        before.min(want)
    }
}

fn fit_within_turn<'a>(
    tool: &str,
    answer: &'a str,
    allowance: usize,
    spill: Option<&Spill>,
) -> Budgeted<'a> {
    if fits(answer, allowance) {
        return Budgeted::whole(answer);
    }
    if allowance < MIN_RESULT_CHARS && fits(answer, SHORTEST_NOTE_CHARS) {
        // No note is this short: the answer goes as it is, and nothing is spilled for it.
        return Budgeted::past_the_turn(answer);
    }
    let doc = Oversize::new(answer);
    let saved = Saved::new(tool, &doc.rendering, spill);
    if allowance >= MIN_RESULT_CHARS {
        let (text, omitted) = cut_text(&doc, &saved, allowance);
        if text.chars().count() <= allowance {
            return doc.finish(text, omitted, saved, false);
        }
    }
    // The answer's own size, not its rendering's: that is what the note says was not shown.
    let answer_chars = answer.chars().count();
    let note = spent_note(&doc, &saved, answer_chars);
    if note.chars().count() >= answer_chars {
        // A note as long as the answer would cost the turn more and tell the model less.
        return Budgeted::past_the_turn(answer);
    }
    let omitted = doc.total_chars;
    doc.finish(note, omitted, saved, true)
}

/// An answer over its budget, rendered.
struct Oversize {
    rendering: String,
    total_chars: usize,
    is_error: bool,
}

impl Oversize {
    fn new(answer: &str) -> Self {
        let (rendering, is_error) = match scan::render(answer) {
            Some(scanned) => (scanned.rendering, scanned.is_error),
            None => render_parsed(answer),
        };
        Self {
            total_chars: rendering.chars().count(),
            rendering,
            is_error,
        }
    }

    fn finish(
        self,
        text: String,
        omitted: usize,
        saved: Saved,
        turn_spent: bool,
    ) -> Budgeted<'static> {
        let (spill_file, spill_error) = saved.into_parts();
        Budgeted {
            text: Cow::Owned(text),
            uncharged: turn_spent,
            cut: Some(Cut {
                total_chars: self.total_chars,
                omitted_chars: omitted,
                spill_file,
                spill_error,
                turn_spent,
            }),
        }
    }
}

/// The general path of [`Oversize::new`]: the whole answer parsed, written back and compared
/// (see `scan` for the path most big answers take); its rendering and whether it is
/// error-shaped.
fn render_parsed(answer: &str) -> (String, bool) {
    let value = serde_json::from_str::<Value>(answer).ok();
    let is_error = value.as_ref().is_some_and(is_error_value);
    let rendering = match value {
        Some(value) if round_trips(answer, &value) => render_value(&value),
        _ => render_text(answer),
    };
    (rendering, is_error)
}

fn is_error_value(value: &Value) -> bool {
    match value.get("error") {
        None | Some(Value::Null | Value::Bool(false)) => false,
        Some(Value::String(message)) => !message.is_empty(),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests;
