//! Cutting a rendering to its head, a marker and its tail, and the turn's note when nothing
//! fits (see the [module docs](super), "The shapes").

use serde_json::{Map, Value};

use super::Oversize;
use super::render::count_newlines;
use super::spill::Saved;

/// The head's share of the room for head and tail, as a fraction: 2/5, that is 40%.
const HEAD_SHARE: (usize, usize) = (2, 5);

/// The longest spill-failure reason quoted to the model: the frame must stay small.
const MAX_REASON_CHARS: usize = 120;

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
///
/// The characters cut are the total less those kept, not counted in a pass of their own, and
/// lines are counted only for a marker that names them (a spill file's): without a spill
/// file, only the head and the tail are read (a 20 MB answer's cut was three more passes over
/// it, `bench/README.md`).
pub(super) fn cut_text(doc: &Oversize, saved: &Saved, limit: usize) -> (String, usize) {
    let rendering = doc.rendering.as_str();
    let total_lines = match saved {
        Saved::File(_) => count_newlines(rendering),
        Saved::Off | Saved::Failed(_) => 0,
    };
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

    let head = take_head(rendering, share(room, HEAD_SHARE));
    let (head_text, rest) = rendering.split_at(head.end);
    let tail = take_tail(rest, room - head.cost);
    let (omitted_text, tail_text) = rest.split_at(tail.end);

    let omitted = doc.total_chars - head.chars - tail.chars;
    let numbers = match saved {
        Saved::File(_) => {
            let first_line = count_newlines(head_text) + 1;
            // A newline ends the line it is on, so a final one adds no line to the cut.
            let inner = omitted_text.strip_suffix('\n').unwrap_or(omitted_text);
            let last_line = first_line + count_newlines(inner);
            MarkerNumbers {
                omitted,
                first_line,
                last_line,
                lines_to_read: last_line - first_line + 1,
                total_lines,
            }
        }
        // The marker states no line.
        Saved::Off | Saved::Failed(_) => MarkerNumbers { omitted, ..widest },
    };
    let content = framed(head_text, &marker(&numbers, saved), tail_text);
    (cut_json(doc, saved, content, omitted), omitted)
}

/// Where a head or tail taken from a rendering ends (its byte end for a head, its byte start
/// for a tail), what it costs escaped, and its characters.
struct Taken {
    end: usize,
    cost: usize,
    chars: usize,
}

/// `part` of `whole`, rounded down, without overflow.
fn share(whole: usize, (numerator, denominator): (usize, usize)) -> usize {
    whole / denominator * numerator + whole % denominator * numerator / denominator
}

/// The characters a JSON string spends on `c`, escaped as serde_json escapes.
pub(super) fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        '\0'..='\u{1f}' => 6,
        _ => 1,
    }
}

/// The longest prefix of `text` that costs at most `budget` escaped.
fn take_head(text: &str, budget: usize) -> Taken {
    let mut taken = Taken {
        end: text.len(),
        cost: 0,
        chars: 0,
    };
    for (at, c) in text.char_indices() {
        let next = taken.cost + escaped_len(c);
        if next > budget {
            taken.end = at;
            break;
        }
        taken.cost = next;
        taken.chars += 1;
    }
    taken
}

/// The longest suffix of `text` that costs at most `budget` escaped.
fn take_tail(text: &str, budget: usize) -> Taken {
    let mut taken = Taken {
        end: text.len(),
        cost: 0,
        chars: 0,
    };
    for (at, c) in text.char_indices().rev() {
        let next = taken.cost + escaped_len(c);
        if next > budget {
            break;
        }
        taken = Taken {
            end: at,
            cost: next,
            chars: taken.chars + 1,
        };
    }
    taken
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

/// The turn's note for an answer of `total` characters the turn has no room for.
pub(super) fn spent_note(doc: &Oversize, saved: &Saved, total: usize) -> String {
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
