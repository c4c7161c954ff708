//! Result budgets: an answer longer than its tool's budget keeps its head and tail, and the whole
//! of it goes to a spill file that the agent can page through with `read_file`.
//!
//! ```
//! use hermes_tools::budget::{TurnBudget, fit};
//!
//! // Within budget: the answer itself, not copied.
//! let small = fit("terminal", r#"{"output":"ok"}"#, 1_000, None);
//! assert_eq!(small.text, r#"{"output":"ok"}"#);
//! assert!(small.cut.is_none());
//!
//! // Over budget: still JSON, at most 1,000 characters, with the head, a marker and the tail.
//! let lines: Vec<String> = (1..=500).map(|n| format!("line {n}")).collect();
//! let answer = serde_json::json!({ "output": lines.join("\n") }).to_string();
//! let cut = fit("terminal", &answer, 1_000, None);
//! assert!(cut.text.chars().count() <= 1_000);
//! let value: serde_json::Value = serde_json::from_str(&cut.text).unwrap();
//! let content = value["content"].as_str().unwrap();
//! assert!(content.starts_with("== \"output\": string, 500 lines ==\nline 1\nline 2\n"));
//! assert!(content.ends_with("line 499\nline 500\n"));
//! assert_eq!(value["omitted_chars"], cut.cut.unwrap().omitted_chars);
//!
//! // A turn's budget is shared: each answer gets what the turn has left, at most.
//! let turn = TurnBudget::new(2_000);
//! let first = turn.fit("terminal", r#"{"output":"ok"}"#, 100_000, None);
//! assert!(first.cut.is_none());
//! assert_eq!(turn.remaining(), 2_000 - 15);
//! let second = turn.fit("terminal", &answer, 100_000, None);
//! assert!(second.text.chars().count() <= 1_985);
//! assert_eq!(turn.remaining(), 1_985 - second.text.chars().count());
//! ```
//!
//! # The rules
//!
//! * **Budget.** Every tool has a budget in characters (Unicode scalar values, never bytes):
//!   [`DEFAULT_MAX_RESULT_CHARS`] unless configured. A budget below [`MIN_RESULT_CHARS`] counts
//!   as that minimum, the room a cut needs for its own frame. An answer whose JSON text is within
//!   budget (length == budget included) is sent as it is, without a copy.
//! * **Rendering.** A longer answer is rendered as pageable text (below). With a [`Spill`], the
//!   whole rendering is written to a new file first, so nothing is lost.
//! * **Cut.** The model gets a JSON object holding the rendering's head, a marker, and its tail,
//!   whose JSON text is at most the budget long. The split is 40% head, 60% tail, as in Hermes'
//!   terminal output: the end of an answer holds the outcome (the last lines of a command, its
//!   error, the small members after a long one), the start holds what it is about. Head room
//!   that escapes leave unused goes to the tail.
//! * **Turn.** A [`TurnBudget`] is shared by the answers of one model turn: each answer gets
//!   `min(its budget, what the turn has left)`, and the turn loses what was sent. An answer that
//!   does not fit in what is left, when that is too little for a cut, becomes a short note.
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
//! `"note"` last, for an error answer):
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
//! * The turn's notes are not charged to the turn: a turn must answer every call, and a note is
//!   a few hundred characters. Everything else sent within a turn stays within its budget.

use std::borrow::Cow;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// A tool's answer budget when it and its settings name none, in characters (as in Hermes).
pub const DEFAULT_MAX_RESULT_CHARS: usize = 100_000;

/// The smallest budget: a smaller one counts as this, the room a cut needs for its frame
/// (about 200 characters, plus the spill path twice) and some head and tail.
pub const MIN_RESULT_CHARS: usize = 500;

/// The head's share of the room for head and tail, as a fraction: 2/5, that is 40%.
const HEAD_SHARE: (usize, usize) = (2, 5);

/// The longest spill-failure reason quoted to the model: the frame must stay small.
const MAX_REASON_CHARS: usize = 120;

/// The longest tool-name part of a spill file's name.
const MAX_STEM_CHARS: usize = 64;

/// Names tried for a spill file before giving up; each clash is another process's file.
const NAME_ATTEMPTS: u32 = 16;

/// An answer after its budget: the text to send, and what was cut, if anything.
#[must_use = "the budgeted text is what must be sent, not the answer"]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budgeted<'a> {
    /// The JSON text to send to the model: the answer itself when it is within budget.
    pub text: Cow<'a, str>,
    /// What was cut; `None` when [`text`](Self::text) is the answer, borrowed and unchanged.
    pub cut: Option<Cut>,
}

impl Budgeted<'_> {
    /// The text to send, owned.
    pub fn into_string(self) -> String {
        self.text.into_owned()
    }

    fn whole(answer: &str) -> Budgeted<'_> {
        Budgeted {
            text: Cow::Borrowed(answer),
            cut: None,
        }
    }
}

/// What a cut left out, and where the whole answer went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cut {
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

/// A directory where over-size answers are written whole, one new file per answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spill {
    dir: PathBuf,
}

impl Spill {
    /// Spills into `dir`, created (with its parents) when the first file is written.
    ///
    /// A relative `dir` is made absolute against the current directory now, because the path
    /// is given to the model, whose `read_file` may resolve paths from elsewhere.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        Self { dir }
    }

    /// The directory spill files go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `text` to a new file in the directory and returns its path.
    ///
    /// The name is `<tool>-<unix millis>-<process id>-<counter>.txt`, the tool name kept to
    /// ASCII letters, digits, `_` and `-` (so the file is always inside the directory), and the
    /// file is created new, never over another: calls from any thread or process never collide.
    /// On Unix only its owner may read it, as answers may hold private data. A failed write
    /// leaves no partial file.
    pub fn write(&self, tool: &str, text: &str) -> io::Result<PathBuf> {
        fs::create_dir_all(&self.dir)?;
        let stem = file_stem(tool);
        for _ in 0..NAME_ATTEMPTS {
            let path = self.dir.join(format!("{stem}-{}.txt", unique_suffix()));
            match create_private(&path) {
                Ok(file) => return fill(file, &path, text).map(|()| path),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(err),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "no unused spill file name was found",
        ))
    }
}

fn file_stem(tool: &str) -> String {
    let stem: String = tool
        .chars()
        .take(MAX_STEM_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "tool".to_owned()
    } else {
        stem
    }
}

/// Unique within the process by the counter, across processes by the id, across id reuse by
/// the time.
fn unique_suffix() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis());
    let seq = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{millis}-{}-{seq}", std::process::id())
}

fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

fn fill(mut file: File, path: &Path, text: &str) -> io::Result<()> {
    let written = file.write_all(text.as_bytes());
    if written.is_err() {
        // A partial file would page as if it were whole; the write's error is what we report.
        let _ = fs::remove_file(path);
    }
    written
}

/// Fits `answer_json`, the JSON text of one tool answer, within `max_chars` characters.
///
/// Within budget, the answer is returned borrowed. Over budget, it is rendered, spilled whole
/// when `spill` is given, and cut to its head and tail (see the [module docs](self) for the
/// exact shapes). A failed spill still cuts, and says so in the marker and
/// [`Cut::spill_error`]. The text is always JSON, and at most `max(max_chars,`
/// [`MIN_RESULT_CHARS`]`)` characters long unless the spill path alone is too long for that.
pub fn fit<'a>(
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

fn fits(text: &str, limit: usize) -> bool {
    // A string has no more characters than bytes: the byte length answers most calls for free.
    text.len() <= limit || text.chars().count() <= limit
}

/// The answer budget of one model turn, shared by all its answers, from any thread.
///
/// Share it by reference or in an `Arc`. Each [`fit`](Self::fit) first reserves what the answer
/// may use, then gives back what it did not: concurrent answers may be cut more than the same
/// answers one after another, but the turn never sends more than its budget (besides the notes
/// for answers it has no room for).
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

    /// The characters the turn may still send (less what running [`fit`](Self::fit)s hold).
    pub fn remaining(&self) -> usize {
        self.remaining.load(Ordering::Relaxed)
    }

    /// Fits an answer within `min(max_chars, what the turn has left)`, like the free [`fit`],
    /// and charges the turn with the characters sent.
    ///
    /// An over-size answer for which that is too little (below [`MIN_RESULT_CHARS`], or less
    /// than the cut's frame) becomes the turn's note, naming the spill file when there is one;
    /// the note is not charged.
    pub fn fit<'a>(
        &self,
        tool: &str,
        answer_json: &'a str,
        max_chars: usize,
        spill: Option<&Spill>,
    ) -> Budgeted<'a> {
        let allowance = self.reserve(max_chars.max(MIN_RESULT_CHARS));
        let fitted = fit_within_turn(tool, answer_json, allowance, spill);
        let sent = match &fitted.cut {
            Some(cut) if cut.turn_spent => 0,
            _ => fitted.text.chars().count(),
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
    let doc = Oversize::new(answer);
    let saved = Saved::new(tool, &doc.rendering, spill);
    if allowance >= MIN_RESULT_CHARS {
        let (text, omitted) = cut_text(&doc, &saved, allowance);
        if text.chars().count() <= allowance {
            return doc.finish(text, omitted, saved, false);
        }
    }
    let note = spent_note(&doc, &saved);
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
        let value = serde_json::from_str::<Value>(answer).ok();
        let is_error = value.as_ref().is_some_and(is_error_value);
        let rendering = match value {
            Some(value) if round_trips(answer, &value) => render_value(&value),
            _ => render_text(answer),
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

fn is_error_value(value: &Value) -> bool {
    match value.get("error") {
        None | Some(Value::Null | Value::Bool(false)) => false,
        Some(Value::String(message)) => !message.is_empty(),
        Some(_) => true,
    }
}

/// What became of the spill.
enum Saved {
    Off,
    File(PathBuf),
    Failed(String),
}

impl Saved {
    fn new(tool: &str, rendering: &str, spill: Option<&Spill>) -> Self {
        match spill.map(|spill| spill.write(tool, rendering)) {
            None => Self::Off,
            Some(Ok(path)) => Self::File(path),
            Some(Err(err)) => Self::Failed(err.to_string()),
        }
    }

    fn into_parts(self) -> (Option<PathBuf>, Option<String>) {
        match self {
            Self::Off => (None, None),
            Self::File(path) => (Some(path), None),
            Self::Failed(reason) => (None, Some(reason)),
        }
    }

    fn path_value(&self) -> Option<Value> {
        match self {
            Self::File(path) => Some(Value::String(path.to_string_lossy().into_owned())),
            _ => None,
        }
    }
}

// ---- rendering ----

fn render_value(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(members) if !members.is_empty() => {
            for (key, member) in members {
                push_member(&mut out, &Value::from(key.as_str()).to_string(), member);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (index, item) in items.iter().enumerate() {
                push_member(&mut out, &format!("[{index}]"), item);
            }
        }
        Value::String(text) => push_section(&mut out, None, "string", text),
        other => push_section(&mut out, None, "json", &format!("{other:#}")),
    }
    out
}

fn render_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    push_section(&mut out, None, "text", text);
    out
}

fn push_member(out: &mut String, label: &str, value: &Value) {
    match value {
        Value::String(text) => push_section(out, Some(label), "string", text),
        other => push_section(out, Some(label), "json", &format!("{other:#}")),
    }
}

fn push_section(out: &mut String, label: Option<&str>, kind: &str, body: &str) {
    let lines = count_newlines(body) + 1;
    let unit = if lines == 1 { "line" } else { "lines" };
    let header = match label {
        Some(label) => format!("== {label}: {kind}, {lines} {unit} ==\n"),
        None => format!("== {kind}, {lines} {unit} ==\n"),
    };
    out.push_str(&header);
    out.push_str(body);
    out.push('\n');
}

fn count_newlines(text: &str) -> usize {
    text.bytes().filter(|&byte| byte == b'\n').count()
}

/// Whether `value`, parsed from `json`, holds all of it: parsing drops duplicate keys and
/// rounds numbers past 64 bits, and then the compact text differs from `json`'s canonical form.
fn round_trips(json: &str, value: &Value) -> bool {
    // Compared as text: `Value == String` would compare with a JSON string value instead.
    let compact = value.to_string();
    canonical(json).is_some_and(|canonical| canonical == compact)
}

/// `json` without whitespace between tokens and with every string escaped as serde_json does,
/// so that text from other serializers (`", "`, `\u00e9`) compares equal to serde_json's.
fn canonical(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(c) = rest.chars().next() {
        let taken = match c {
            ' ' | '\t' | '\n' | '\r' => 1,
            '"' => {
                let end = string_token_len(rest)?;
                let text: String = serde_json::from_str(rest.get(..end)?).ok()?;
                out.push_str(&Value::String(text).to_string());
                end
            }
            _ => {
                out.push(c);
                c.len_utf8()
            }
        };
        rest = rest.get(taken..)?;
    }
    Some(out)
}

/// The byte length of the string token at the start of `text`, quotes included.
fn string_token_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 1;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

// ---- cutting ----

/// The numbers a marker states. The frame is measured with each at its widest, so the final
/// text, with the real numbers, is never longer than measured.
struct MarkerNumbers {
    omitted: usize,
    first_line: usize,
    last_line: usize,
    lines_to_read: usize,
    total_lines: usize,
}

/// The cut answer's JSON text, at most `limit` characters when its frame fits, and the
/// characters it left out.
fn cut_text(doc: &Oversize, saved: &Saved, limit: usize) -> (String, usize) {
    let rendering = doc.rendering.as_str();
    let total_lines = count_newlines(rendering);
    let widest = MarkerNumbers {
        omitted: doc.total_chars,
        first_line: total_lines,
        last_line: total_lines,
        lines_to_read: total_lines,
        total_lines,
    };
    let frame = cut_json(
        doc,
        saved,
        framed("", &marker(&widest, saved), ""),
        doc.total_chars,
    );
    let room = limit.saturating_sub(frame.chars().count());

    let (head_end, head_cost) = take_head(rendering, share(room, HEAD_SHARE));
    let (head, rest) = rendering.split_at(head_end);
    let (omitted_text, tail) = rest.split_at(take_tail(rest, room - head_cost));

    let first_line = count_newlines(head) + 1;
    // A newline ends the line it is on, so a final one adds no line to the cut.
    let inner = omitted_text.strip_suffix('\n').unwrap_or(omitted_text);
    let last_line = first_line + count_newlines(inner);
    let numbers = MarkerNumbers {
        omitted: omitted_text.chars().count(),
        first_line,
        last_line,
        lines_to_read: last_line - first_line + 1,
        total_lines,
    };
    let content = framed(head, &marker(&numbers, saved), tail);
    (
        cut_json(doc, saved, content, numbers.omitted),
        numbers.omitted,
    )
}

/// `part` of `whole`, rounded down, without overflow.
fn share(whole: usize, (numerator, denominator): (usize, usize)) -> usize {
    whole / denominator * numerator + whole % denominator * numerator / denominator
}

/// The characters a JSON string spends on `c`, escaped as serde_json escapes.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        '\0'..='\u{1f}' => 6,
        _ => 1,
    }
}

/// The longest prefix of `text` that costs at most `budget` escaped: its byte end and its cost.
fn take_head(text: &str, budget: usize) -> (usize, usize) {
    let mut cost = 0;
    for (at, c) in text.char_indices() {
        let next = cost + escaped_len(c);
        if next > budget {
            return (at, cost);
        }
        cost = next;
    }
    (text.len(), cost)
}

/// The longest suffix of `text` that costs at most `budget` escaped: its byte start.
fn take_tail(text: &str, budget: usize) -> usize {
    let mut cost = 0;
    let mut start = text.len();
    for (at, c) in text.char_indices().rev() {
        cost += escaped_len(c);
        if cost > budget {
            break;
        }
        start = at;
    }
    start
}

fn framed(head: &str, marker: &str, tail: &str) -> String {
    format!("{head}\n\n{marker}\n\n{tail}")
}

fn marker(numbers: &MarkerNumbers, saved: &Saved) -> String {
    let cut = format!("[... {} characters cut", numbers.omitted);
    match saved {
        Saved::File(path) => format!(
            "{cut} (lines {}-{} of {}); the full answer is in {}: read it with read_file \
             offset={} limit={} ...]",
            numbers.first_line,
            numbers.last_line,
            numbers.total_lines,
            path.display(),
            numbers.first_line,
            numbers.lines_to_read,
        ),
        Saved::Off => format!("{cut}; the full answer was not saved ...]"),
        Saved::Failed(reason) => format!(
            "{cut}; the full answer could not be saved ({}) ...]",
            clip(reason)
        ),
    }
}

fn clip(reason: &str) -> String {
    reason.chars().take(MAX_REASON_CHARS).collect()
}

fn cut_json(doc: &Oversize, saved: &Saved, content: String, omitted: usize) -> String {
    let mut meta = Map::new();
    meta.insert("truncated".into(), Value::Bool(true));
    meta.insert("total_chars".into(), doc.total_chars.into());
    meta.insert("omitted_chars".into(), omitted.into());
    if let Some(path) = saved.path_value() {
        meta.insert("spill_file".into(), path);
    }
    shaped(doc.is_error, "content", content, meta)
}

fn spent_note(doc: &Oversize, saved: &Saved) -> String {
    let total = doc.total_chars;
    let lead = if doc.is_error {
        format!(
            "The tool failed, and this turn's tool-result budget is spent, so its error answer \
             ({total} characters) is not shown"
        )
    } else {
        format!(
            "This turn's tool-result budget is spent, so this answer ({total} characters) is not \
             shown"
        )
    };
    let next = match saved {
        Saved::File(path) => format!(
            "; it is in {}: read it with read_file offset/limit.",
            path.display()
        ),
        Saved::Off => "; it was not saved: call the tool again, asking for less.".to_owned(),
        Saved::Failed(reason) => format!(
            "; it could not be saved ({}): call the tool again, asking for less.",
            clip(reason)
        ),
    };
    let mut meta = Map::new();
    meta.insert("truncated".into(), Value::Bool(true));
    meta.insert("turn_budget_spent".into(), Value::Bool(true));
    meta.insert("total_chars".into(), total.into());
    if let Some(path) = saved.path_value() {
        meta.insert("spill_file".into(), path);
    }
    shaped(doc.is_error, "note", lead + &next, meta)
}

/// The replacement object: an error answer keeps `"error"` first, holding `text`, so it stays
/// error-shaped; any other puts `text` last under `key`, so the model reads the facts first.
fn shaped(is_error: bool, key: &str, text: String, meta: Map<String, Value>) -> String {
    let mut object = Map::with_capacity(meta.len() + 1);
    if is_error {
        object.insert("error".into(), Value::String(text));
        object.extend(meta);
    } else {
        object.extend(meta);
        object.insert(key.into(), Value::String(text));
    }
    Value::Object(object).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).expect("the budgeted text is JSON")
    }

    fn chars(text: &str) -> usize {
        text.chars().count()
    }

    fn keys(value: &Value) -> Vec<&str> {
        value
            .as_object()
            .map_or_else(Vec::new, |o| o.keys().map(String::as_str).collect())
    }

    /// `{"output": body}` as serde_json writes it.
    fn output_answer(body: &str) -> String {
        serde_json::json!({ "output": body }).to_string()
    }

    /// Splits a cut's text around its marker: (head, marker, tail).
    fn split_content(content: &str) -> (&str, &str, &str) {
        let start = content.find("\n\n[... ").expect("a marker");
        let end = start + content[start..].find(" ...]\n\n").expect("a marker end") + 5;
        (
            &content[..start],
            &content[start + 2..end],
            &content[end + 2..],
        )
    }

    /// What `read_file` answers for a 1-based line `offset` and a `limit` in lines, each line
    /// with its newline, so pages concatenate to the file.
    fn read_page(path: &Path, offset: usize, limit: usize) -> String {
        let text = fs::read_to_string(path).expect("the spill file reads");
        text.split_inclusive('\n')
            .skip(offset - 1)
            .take(limit)
            .collect()
    }

    /// Reads a rendering back the way the module docs describe, to the answer's compact JSON
    /// (or, for a `text` section, to the text).
    fn decode(rendering: &str) -> String {
        let mut lines: Vec<&str> = rendering.split('\n').collect();
        assert_eq!(lines.pop(), Some(""), "a rendering ends with a newline");
        let (mut object, mut array, mut top) = (Map::new(), Vec::new(), None);
        let mut at = 0;
        while at < lines.len() {
            let header = lines[at]
                .strip_prefix("== ")
                .and_then(|h| h.strip_suffix(" =="))
                .expect("a section header");
            let (label, kind_count) = match header.rsplit_once(": ") {
                Some((label, rest)) => (Some(label), rest),
                None => (None, header),
            };
            let (kind, count) = kind_count.split_once(", ").expect("kind, count");
            let count: usize = count
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a count");
            let body = lines[at + 1..at + 1 + count].join("\n");
            at += 1 + count;
            let value = match kind {
                "string" => Value::String(body),
                "json" => serde_json::from_str(&body).expect("json body"),
                "text" => return body,
                other => panic!("unknown kind {other}"),
            };
            match label {
                None => top = Some(value),
                Some(label) if label.starts_with('[') => array.push(value),
                Some(label) => {
                    object.insert(serde_json::from_str(label).expect("a JSON key"), value);
                }
            }
        }
        match top {
            Some(value) => value.to_string(),
            None if !array.is_empty() => Value::Array(array).to_string(),
            None => Value::Object(object).to_string(),
        }
    }

    const DIGITS_HEADER: &str = "== \"output\": string, 1 line ==\n";

    #[test]
    fn within_budget_is_the_answer_itself() {
        let answer = r#"{"output":"ok"}"#;
        let fitted = fit("terminal", answer, 1_000, None);
        assert!(matches!(fitted.text, Cow::Borrowed(text) if text == answer));
        assert_eq!(fitted.cut, None);
    }

    #[test]
    fn length_equal_to_budget_stays_whole_and_one_more_is_cut() {
        // 600 characters but 1,187 bytes: the budget counts characters.
        let at_budget = output_answer(&"é".repeat(587));
        assert_eq!((chars(&at_budget), at_budget.len()), (600, 1_187));
        let fitted = fit("t", &at_budget, 600, None);
        assert!(matches!(fitted.text, Cow::Borrowed(_)));
        assert_eq!(fitted.cut, None);

        let over = output_answer(&"é".repeat(588));
        let fitted = fit("t", &over, 600, None);
        assert!(fitted.cut.is_some());
        assert!(chars(&fitted.text) <= 600);
    }

    #[test]
    fn budgets_below_the_minimum_count_as_the_minimum() {
        let answer = output_answer(&"a".repeat(MIN_RESULT_CHARS - 13));
        assert_eq!(chars(&answer), MIN_RESULT_CHARS);
        assert_eq!(fit("t", &answer, 10, None).cut, None);

        let over = output_answer(&"a".repeat(MIN_RESULT_CHARS));
        let fitted = fit("t", &over, 0, None);
        assert!(fitted.cut.is_some());
        assert!(chars(&fitted.text) <= MIN_RESULT_CHARS);
    }

    #[test]
    fn cut_keeps_exact_head_and_tail() {
        let digits = "0123456789".repeat(100);
        let answer = output_answer(&digits);
        let fitted = fit("t", &answer, 600, None);
        // The rendering is the 30-char header, its newline, 1,000 digits and a newline: 1,032.
        // The frame is 139 chars, leaving 461: 184 for the head (the header costs 34 with its
        // escapes, so 150 digits) and 277 for the tail (the final newline costs 2, so 275 digits).
        let head = format!("{DIGITS_HEADER}{}", &digits[..150]);
        let tail = format!("{}\n", &digits[725..]);
        let expected = format!(
            r#"{{"truncated":true,"total_chars":1032,"omitted_chars":575,"content":{}}}"#,
            Value::from(format!(
                "{head}\n\n[... 575 characters cut; the full answer was not saved ...]\n\n{tail}"
            ))
        );
        assert_eq!(fitted.text, expected);
        // 600 less one digit each in omitted_chars and the marker (575 against 1032).
        assert_eq!(chars(&fitted.text), 598);
        let cut = fitted.cut.expect("a cut");
        assert_eq!((cut.total_chars, cut.omitted_chars), (1_032, 575));
        assert_eq!(
            (cut.spill_file, cut.spill_error, cut.turn_spent),
            (None, None, false)
        );
    }

    #[test]
    fn multibyte_text_is_cut_on_characters() {
        let body = "é😀中".repeat(300);
        let answer = output_answer(&body);
        let fitted = fit("t", &answer, 600, None);
        let value = parse(&fitted.text);
        let (head, _, tail) = split_content(value["content"].as_str().expect("content"));
        // Rendering: 31 + 900 + 1 = 932 chars. Frame 136, room 464: head 185 (34 of header, so
        // 151 chars: 50 triples and "é"), tail 279 (2 for the newline, so 277 chars: "中" and
        // 92 triples). 932 - 182 - 278 = 472 cut, as wide as measured: exactly 600.
        assert_eq!(head, format!("{DIGITS_HEADER}{}é", "é😀中".repeat(50)));
        assert_eq!(tail, format!("中{}\n", "é😀中".repeat(92)));
        assert_eq!(value["omitted_chars"], 472);
        assert_eq!(chars(&fitted.text), 600);
        assert_eq!(
            fitted.cut.map(|c| (c.total_chars, c.omitted_chars)),
            Some((932, 472))
        );
    }

    #[test]
    fn every_budget_gives_json_within_it_that_adds_up() {
        let body = "say \"hi\"\\ then\ttab\u{1}ctl é😀中 and a newline\n".repeat(60);
        let answer = serde_json::json!({ "output": body, "exit_code": 1 }).to_string();
        let rendering = Oversize::new(&answer).rendering;
        for budget in (MIN_RESULT_CHARS..=2_500).step_by(7) {
            let fitted = fit("t", &answer, budget, None);
            let length = chars(&fitted.text);
            assert!(length <= budget, "{length} > {budget}");
            // Only the numbers' widest digits and one escape at each end go unused.
            assert!(length + 16 >= budget, "{length} wastes {budget}");
            let value = parse(&fitted.text);
            let (head, _, tail) = split_content(value["content"].as_str().expect("content"));
            assert!(rendering.starts_with(head) && rendering.ends_with(tail));
            let cut = fitted.cut.expect("a cut");
            assert_eq!(
                chars(head) + cut.omitted_chars + chars(tail),
                cut.total_chars
            );
            assert_eq!(value["omitted_chars"], cut.omitted_chars);
        }
    }

    #[test]
    fn escaped_len_matches_serde_json() {
        let samples = (0u32..0x80)
            .filter_map(char::from_u32)
            .chain(['é', '😀', '中', '\u{2028}', '\u{fffd}']);
        for c in samples {
            let encoded = Value::String(c.to_string()).to_string();
            assert_eq!(escaped_len(c), chars(&encoded) - 2, "{c:?}");
        }
    }

    #[test]
    fn error_answers_stay_error_shaped() {
        let answer = serde_json::json!({ "error": format!("[TOOL_ERROR] {}", "x".repeat(1_000)) })
            .to_string();
        let fitted = fit("t", &answer, 600, None);
        let value = parse(&fitted.text);
        assert_eq!(
            keys(&value),
            ["error", "truncated", "total_chars", "omitted_chars"]
        );
        let error = value["error"].as_str().expect("an error text");
        assert!(error.starts_with("== \"error\": string, 1 line ==\n[TOOL_ERROR] xxx"));
        assert!(error.contains(" characters cut; the full answer was not saved ...]"));
        assert!(chars(&fitted.text) <= 600);

        // A null, false or empty error is a success: the text goes under "content".
        for error in [Value::Null, Value::Bool(false), Value::from("")] {
            let success = serde_json::json!({ "output": "y".repeat(1_000), "error": error });
            let value = parse(&fit("t", &success.to_string(), 600, None).text);
            assert_eq!(
                keys(&value),
                ["truncated", "total_chars", "omitted_chars", "content"]
            );
        }
    }

    #[test]
    fn rendering_follows_the_documented_rule() {
        let cases = [
            (
                r#"{"output":"a\nb","exit_code":0,"meta":{"x":[1,2]}}"#,
                "== \"output\": string, 2 lines ==\na\nb\n== \"exit_code\": json, 1 line ==\n0\n\
                 == \"meta\": json, 6 lines ==\n{\n  \"x\": [\n    1,\n    2\n  ]\n}\n",
            ),
            (
                r#"["a\n",3]"#,
                "== [0]: string, 2 lines ==\na\n\n== [1]: json, 1 line ==\n3\n",
            ),
            (r#""x\ny""#, "== string, 2 lines ==\nx\ny\n"),
            ("42", "== json, 1 line ==\n42\n"),
            ("{}", "== json, 1 line ==\n{}\n"),
            ("not json", "== text, 1 line ==\nnot json\n"),
            // A duplicate key or a number past 64 bits would not survive parsing: kept as text.
            (
                r#"{"a":1,"a":2}"#,
                "== text, 1 line ==\n{\"a\":1,\"a\":2}\n",
            ),
            (
                "[123456789012345678901234567890]",
                "== text, 1 line ==\n[123456789012345678901234567890]\n",
            ),
            // Other serializers' spacing and escapes still render structured.
            (
                "{\"output\": \"caf\\u00e9\\nok\", \"n\": 1.5}",
                "== \"output\": string, 2 lines ==\ncafé\nok\n== \"n\": json, 1 line ==\n1.5\n",
            ),
        ];
        for (answer, rendering) in cases {
            assert_eq!(Oversize::new(answer).rendering, rendering, "{answer}");
        }
    }

    #[test]
    fn rendering_decodes_to_the_answer() {
        let tricky = "== \"b\": json, 1 line ==\n== text, 3 lines ==\n\n";
        let answers = [
            serde_json::json!({ "a": tricky, "a: string, 1 line": [tricky, 2], "c": "" })
                .to_string(),
            serde_json::json!([tricky, { "x": null }, "", "\r\n"]).to_string(),
            Value::String(tricky.into()).to_string(),
            "{\"a\":1,\"a\":2}".to_owned(),
            tricky.to_owned(),
        ];
        for answer in answers {
            assert_eq!(decode(&Oversize::new(&answer).rendering), answer);
        }
    }

    #[test]
    fn spill_holds_raw_lines_that_page_back_to_the_whole_answer() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let spill = Spill::new(dir.path().join("results"));
        let lines: Vec<String> = (1..=400).map(|n| format!("line {n} é😀")).collect();
        let answer = serde_json::json!({ "output": lines.join("\n"), "exit_code": 0 }).to_string();

        let fitted = fit("terminal", &answer, 1_000, Some(&spill));
        assert!(chars(&fitted.text) <= 1_000);
        let cut = fitted.cut.clone().expect("a cut");
        let path = cut.spill_file.clone().expect("a spill file");
        assert_eq!(path.parent(), Some(spill.dir()));

        let file = fs::read_to_string(&path).expect("the spill file");
        let expected = format!(
            "== \"output\": string, 400 lines ==\n{}\n== \"exit_code\": json, 1 line ==\n0\n",
            lines.join("\n")
        );
        assert_eq!(file, expected);
        assert_eq!(cut.total_chars, chars(&file));
        assert_eq!(decode(&file), answer);

        let mut paged = String::new();
        let mut offset = 1;
        loop {
            let page = read_page(&path, offset, 37);
            if page.is_empty() {
                break;
            }
            paged.push_str(&page);
            offset += 37;
        }
        assert_eq!(paged, file);

        let value = parse(&fitted.text);
        assert_eq!(value["spill_file"], path.to_string_lossy().as_ref());
        let (head, marker, tail) = split_content(value["content"].as_str().expect("content"));
        let omitted = &file[head.len()..file.len() - tail.len()];
        assert_eq!(chars(omitted), cut.omitted_chars);
        let (first, count) = marker_page(marker);
        let prefix = format!(
            "[... {} characters cut (lines {first}-{} of 403); the full answer is in {}: read it \
             with read_file offset={first} limit={count} ...]",
            cut.omitted_chars,
            first + count - 1,
            path.display()
        );
        assert_eq!(marker, prefix);
        // The page the marker names holds every cut character, and no smaller page does.
        assert!(read_page(&path, first, count).contains(omitted));
        assert!(!read_page(&path, first + 1, count - 1).contains(omitted));
        assert!(!read_page(&path, first, count - 1).contains(omitted));
    }

    /// The offset and limit a marker tells the model to read.
    fn marker_page(marker: &str) -> (usize, usize) {
        let number = |key: &str| -> usize {
            let at = marker.find(key).expect("the key") + key.len();
            marker[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a number")
        };
        (number("offset="), number("limit="))
    }

    #[test]
    fn failed_spill_still_cuts_and_says_why() {
        let blocker = tempfile::NamedTempFile::new().expect("a temp file");
        // A file where the directory should be: the directory cannot be created.
        let spill = Spill::new(blocker.path());
        let answer = output_answer(&"z".repeat(2_000));
        let fitted = fit("t", &answer, 600, Some(&spill));
        assert!(chars(&fitted.text) <= 600);
        let cut = fitted.cut.expect("a cut");
        let reason = cut.spill_error.expect("the write error");
        assert_eq!(cut.spill_file, None);
        let value = parse(&fitted.text);
        assert_eq!(value.get("spill_file"), None);
        let content = value["content"].as_str().expect("content");
        assert!(content.contains(&format!(
            "characters cut; the full answer could not be saved ({reason}) ...]"
        )));
    }

    #[test]
    fn spill_names_are_unique_across_threads_and_stay_in_the_directory() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let spill = Spill::new(dir.path());
        let written: Vec<(PathBuf, String)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..8)
                .map(|worker| {
                    let spill = &spill;
                    scope.spawn(move || {
                        (0..25)
                            .map(|n| {
                                let text = format!("{worker}/{n}\n");
                                (spill.write("../etc/pass wd", &text).expect("written"), text)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("no panic"))
                .collect()
        });
        let names: std::collections::HashSet<_> = written.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(names.len(), 200);
        for (path, text) in &written {
            assert_eq!(path.parent(), Some(dir.path()));
            let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
            assert!(
                name.starts_with("___etc_pass_wd-") && name.ends_with(".txt"),
                "{name}"
            );
            assert_eq!(&fs::read_to_string(path).expect("readable"), text);
        }
    }

    #[test]
    fn turn_gives_each_answer_what_is_left() {
        let turn = TurnBudget::new(1_200);
        let first = output_answer(&"a".repeat(287));
        assert_eq!(chars(&first), 300);
        assert_eq!(turn.fit("t", &first, 100_000, None).cut, None);
        assert_eq!(turn.remaining(), 900);

        // 900 left: frame 139, head 304 (301 chars), tail 457 (456 chars), 275 cut; two digits
        // fewer than measured (275 against 1032) leave 2.
        let answer = output_answer(&"0123456789".repeat(100));
        let second = turn.fit("t", &answer, 100_000, None);
        assert_eq!(chars(&second.text), 898);
        assert_eq!(second.cut.map(|c| c.omitted_chars), Some(275));
        assert_eq!(turn.remaining(), 2);

        // Spent: the note, not charged.
        let answer = output_answer(&"b".repeat(600));
        let third = turn.fit("t", &answer, 100_000, None);
        assert_eq!(
            third.text,
            r#"{"truncated":true,"turn_budget_spent":true,"total_chars":632,"note":"This turn's tool-result budget is spent, so this answer (632 characters) is not shown; it was not saved: call the tool again, asking for less."}"#
        );
        assert_eq!(
            third.cut,
            Some(Cut {
                total_chars: 632,
                omitted_chars: 632,
                turn_spent: true,
                ..Cut::default()
            })
        );
        assert_eq!(turn.remaining(), 2);

        // What still fits is still sent.
        assert_eq!(turn.fit("t", "{}", 100_000, None).text, "{}");
        assert_eq!(turn.remaining(), 0);
        assert!(
            turn.fit("t", "{}", 100_000, None)
                .cut
                .is_some_and(|c| c.turn_spent)
        );
        assert_eq!((turn.remaining(), turn.total()), (0, 1_200));
    }

    #[test]
    fn turn_applies_the_tool_budget_too() {
        let turn = TurnBudget::new(10_000);
        let answer = output_answer(&"c".repeat(5_000));
        let fitted = turn.fit("t", &answer, 600, None);
        let sent = chars(&fitted.text);
        assert!(fitted.cut.is_some() && sent <= 600);
        assert_eq!(turn.remaining(), 10_000 - sent);
    }

    #[test]
    fn spent_turn_names_the_spill_file_and_keeps_errors_error_shaped() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let spill = Spill::new(dir.path());
        let turn = TurnBudget::new(100);
        let answer = serde_json::json!({ "error": "e".repeat(300) }).to_string();
        let fitted = turn.fit("t", &answer, 100_000, Some(&spill));
        let cut = fitted.cut.expect("a note");
        let path = cut.spill_file.expect("a spill file");
        assert!(cut.turn_spent);
        assert_eq!(
            fs::read_to_string(&path).expect("spilled"),
            Oversize::new(&answer).rendering
        );
        let value = parse(&fitted.text);
        assert_eq!(
            keys(&value),
            [
                "error",
                "truncated",
                "turn_budget_spent",
                "total_chars",
                "spill_file"
            ]
        );
        assert_eq!(
            value["error"],
            format!(
                "The tool failed, and this turn's tool-result budget is spent, so its error answer \
                 (331 characters) is not shown; it is in {}: read it with read_file offset/limit.",
                path.display()
            )
        );
        assert_eq!(turn.remaining(), 100);
    }

    #[test]
    fn turn_sends_the_note_when_the_frame_cannot_fit() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let spill = Spill::new(dir.path().join("d".repeat(200)));
        let turn = TurnBudget::new(100_000);
        let answer = output_answer(&"f".repeat(2_000));
        let fitted = turn.fit("t", &answer, 600, Some(&spill));
        assert!(
            fitted
                .cut
                .is_some_and(|c| c.turn_spent && c.spill_file.is_some())
        );
        assert_eq!(turn.remaining(), 100_000);
    }

    #[test]
    fn concurrent_turn_never_overspends() {
        let turn = TurnBudget::new(20_000);
        let results: Vec<(usize, bool)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..8)
                .map(|worker| {
                    let turn = &turn;
                    scope.spawn(move || {
                        (0..30)
                            .map(|n| {
                                let size = (worker * 30 + n) * 7_919 % 3_000 + 10;
                                let answer = output_answer(&"g".repeat(size));
                                let fitted = turn.fit("t", &answer, 2_000, None);
                                parse(&fitted.text);
                                let spent = fitted.cut.is_some_and(|c| c.turn_spent);
                                (chars(&fitted.text), spent)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("no panic"))
                .collect()
        });
        let sent: usize = results
            .iter()
            .filter(|(_, spent)| !spent)
            .map(|(n, _)| n)
            .sum();
        assert!(sent <= 20_000, "sent {sent}");
        assert_eq!(turn.remaining(), 20_000 - sent);
        assert!(results.iter().any(|(_, spent)| *spent), "the turn ran out");
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        let nested = "[".repeat(5_000);
        let inputs = [
            "",
            " ",
            "\"",
            "\"\\",
            "{\"a\":",
            nested.as_str(),
            "\u{0}\u{1f}😀",
        ];
        for input in inputs {
            let padded = format!("{input}{}", "\n".repeat(600));
            for answer in [input, padded.as_str()] {
                let fitted = fit("", answer, 0, None);
                match fitted.cut {
                    None => assert_eq!(fitted.text, answer),
                    Some(_) => {
                        parse(&fitted.text);
                        assert!(chars(&fitted.text) <= MIN_RESULT_CHARS);
                    }
                }
                let spent = TurnBudget::new(0).fit("", answer, usize::MAX, None);
                let noted = spent.cut.is_some_and(|c| c.turn_spent);
                assert_eq!(noted, !answer.is_empty(), "{answer:?}");
                if noted {
                    parse(&spent.text);
                }
            }
        }
        assert_eq!(fit("t", "{}", usize::MAX, None).cut, None);
    }
}
