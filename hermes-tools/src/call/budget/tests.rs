use std::fs;
use std::path::Path;

use serde_json::Map;

use super::cut::escaped_len;
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
    let answer =
        serde_json::json!({ "error": format!("[TOOL_ERROR] {}", "x".repeat(1_000)) }).to_string();
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
        serde_json::json!({ "a": tricky, "a: string, 1 line": [tricky, 2], "c": "" }).to_string(),
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
        r#"{"truncated":true,"turn_budget_spent":true,"total_chars":613,"note":"This turn's tool-result budget is spent, so this answer (613 characters) is not shown; it was not saved: call the tool again, asking for less."}"#
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
    // Spent, an answer shorter than any note goes as it is: a note would cost more.
    let spent = turn.fit("t", "{}", 100_000, None);
    assert_eq!((spent.text.as_ref(), spent.cut), ("{}", None));
    assert_eq!((turn.remaining(), turn.total()), (0, 1_200));
}

#[test]
fn a_turn_of_many_small_answers_stays_within_its_budget_and_a_bounded_overhead() {
    // No spill directory: 10,000 spill files would only slow the test (the note's path
    // length is the one part of its bound that a spill adds, and other tests cover it).
    let budget = 200_000;
    for size in [63, 600] {
        let turn = TurnBudget::new(budget);
        let answer = output_answer(&"x".repeat(size - 13));
        assert_eq!(chars(&answer), size);
        let (mut total, mut past, mut longest_note) = (0, 0, 0);
        for _ in 0..10_000 {
            let room = turn.remaining();
            let fitted = turn.fit("t", &answer, 100_000, None);
            let sent = chars(&fitted.text);
            assert!(sent <= size, "nothing sent is longer than its answer");
            if let Some(cut) = &fitted.cut {
                assert!(cut.turn_spent);
                let note = parse(&fitted.text);
                assert_eq!(
                    note["total_chars"], size,
                    "the note states the answer's size"
                );
                let stated = format!("this answer ({size} characters) is not shown");
                assert!(note["note"].as_str().unwrap().contains(&stated), "{note}");
                longest_note = longest_note.max(sent);
            }
            past += usize::from(room < size);
            total += sent;
        }
        let bound = budget + past * size.min(TURN_NOTE_MAX_CHARS);
        assert!(total <= bound, "{size}: {total} > {bound}");
        if size == 600 {
            // The notes are shorter than the answers they replace, so they save characters.
            assert!(longest_note > 0 && longest_note < size, "{longest_note}");
            assert!(total < budget + past * size, "{total}");
        } else {
            assert_eq!(longest_note, 0, "no note is shorter than 63 characters");
            assert_eq!(total, 10_000 * 63);
        }
    }
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
    let answer = serde_json::json!({ "error": "e".repeat(3_000) }).to_string();
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
             (3012 characters) is not shown; it is in {}: read it with read_file offset/limit.",
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
                            (chars(&fitted.text), fitted.uncharged)
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
            // Past the turn: a note shorter than the answer, or else the answer as it is.
            let spent = TurnBudget::new(0).fit("", answer, usize::MAX, None);
            assert!(spent.uncharged || answer.is_empty(), "{answer:?}");
            if spent.cut.is_some_and(|c| c.turn_spent) {
                parse(&spent.text);
                assert!(chars(&spent.text) < chars(answer), "{answer:?}");
            } else {
                assert_eq!(spent.text, answer);
            }
        }
    }
    assert_eq!(fit("t", "{}", usize::MAX, None).cut, None);
}

#[test]
fn the_module_example_holds() {
    // Within budget: the answer itself, not copied.
    let small = fit("terminal", r#"{"output":"ok"}"#, 1_000, None);
    assert_eq!(small.text, r#"{"output":"ok"}"#);
    assert!(small.cut.is_none());

    // Over budget: still JSON, at most 1,000 characters, with the head, a marker and the tail.
    let lines: Vec<String> = (1..=500).map(|n| format!("line {n}")).collect();
    let answer = serde_json::json!({ "output": lines.join("\n") }).to_string();
    let cut = fit("terminal", &answer, 1_000, None);
    assert!(cut.text.chars().count() <= 1_000);
    let value: serde_json::Value = serde_json::from_str(&cut.text).unwrap();
    let content = value["content"].as_str().unwrap();
    assert!(content.starts_with("== \"output\": string, 500 lines ==\nline 1\nline 2\n"));
    assert!(content.ends_with("line 499\nline 500\n"));
    assert_eq!(value["omitted_chars"], cut.cut.unwrap().omitted_chars);

    // A turn's budget is shared: each answer gets what the turn has left, at most.
    let turn = TurnBudget::new(2_000);
    let first = turn.fit("terminal", r#"{"output":"ok"}"#, 100_000, None);
    assert!(first.cut.is_none());
    assert_eq!(turn.remaining(), 2_000 - 15);
    let second = turn.fit("terminal", &answer, 100_000, None);
    assert!(second.text.chars().count() <= 1_985);
    assert_eq!(turn.remaining(), 1_985 - second.text.chars().count());
}

#[test]
fn the_one_pass_rendering_is_the_general_paths_or_none() {
    let big = "line \"one\"\nline two\t\\ é 😀\n".repeat(2_000);
    let taken = [
        serde_json::json!({ "output": big, "exit_code": 0 }).to_string(),
        r#" { "a" : "x\u00e9\/y" , "n": [1, {"k": [true, null]}], "error": "" } "#.to_owned(),
        r#"{"error": "it failed", "detail": "\b\f\r\t\u0001\u000a\u000A\\n\n"}"#.to_owned(),
        r#"{"error": null, "x": 1.5, "y": 1.0}"#.to_owned(),
        r#"{"error": {"code": 1}}"#.to_owned(),
        r#"["a", 2, "", {"b": "c"}, -0.25]"#.to_owned(),
        format!("{:?}", "just a string\nof two lines"),
        r#""""#.to_owned(),
        r#"{"": "empty key", "\"quoted\"": "x"}"#.to_owned(),
        r#"{"s": "\ud83d\ude00", "t": ["\uD83D\uDE00"]}"#.to_owned(),
        r#" "top \ud83d\ude00\n" "#.to_owned(),
        r#"{"b": true, "f": false, "z": null, "error": false, "i": -9223372036854775808}"#
            .to_owned(),
        r#"{"u": 18446744073709551615, "error": 0}"#.to_owned(),
        r#"{"error": true}"#.to_owned(),
        r#"[1, "x", null, false]"#.to_owned(),
        r#"{"output": "a\nb", "n": 1.0, "x": "after a float"}"#.to_owned(),
    ];
    for answer in &taken {
        let scanned = scan::render(answer).unwrap_or_else(|| panic!("one pass: {answer}"));
        let (rendering, is_error) = render_parsed(answer);
        assert_eq!(scanned.rendering, rendering, "{answer}");
        assert_eq!(scanned.is_error, is_error, "{answer}");
    }
    let deep = |n: usize| format!(r#"{{"a": {}1{}}}"#, "[".repeat(n), "]".repeat(n));
    let left = [
        r#"{"a": "x", "a": "y"}"#.to_owned(),
        r#"{"n": 1E5}"#.to_owned(),
        r#"{"n": 123456789012345678901234567890}"#.to_owned(),
        r#"{"n": 18446744073709551616}"#.to_owned(),
        r#"{"n": -0}"#.to_owned(),
        r#"{"s": "x", "n": 1, "s": "y"}"#.to_owned(),
        r#"{"n": -0.25e-3}"#.to_owned(),
        r#"{"s": "\ud83d"}"#.to_owned(),
        r#""\ude00""#.to_owned(),
        r#""x" "y""#.to_owned(),
        r#"{"s": "\x"}"#.to_owned(),
        "{\"s\": \"raw\ttab\"}".to_owned(),
        r#"{"s": "x"} trailing"#.to_owned(),
        r#"{"s": "x""#.to_owned(),
        r#"{"s": tru}"#.to_owned(),
        "{}".to_owned(),
        "[]".to_owned(),
        "42".to_owned(),
        "not json".to_owned(),
        deep(127),
    ];
    for answer in &left {
        assert!(
            scan::render(answer).is_none(),
            "left to the general path: {answer}"
        );
    }
    // Nesting just within serde_json's limit is taken, and renders the same.
    let within = deep(126);
    let scanned = scan::render(&within).expect("within the limit");
    assert_eq!(scanned.rendering, render_parsed(&within).0);
}

#[test]
fn members_that_write_back_as_read_take_the_single_pass() {
    let flat = |answer: &str| scan::render_flat(answer, &mut String::new());
    for taken in [
        r#"{"result": "a\nb \"c\""}"#,
        r#"{"output": "x", "exit_code": -1, "error": null, "ok": true}"#,
        r#"["a", 2, 18446744073709551615, null]"#,
    ] {
        assert!(flat(taken).is_some(), "{taken}");
    }
    for left in [
        r#"{"output": "x", "ratio": 0.5}"#,
        r#"{"output": "x", "meta": {"a": 1}}"#,
        r#"{"output": "x", "lines": []}"#,
        r#"{"n": -0}"#,
        r#"{"n": 1e2}"#,
        r#"{"n": 18446744073709551616}"#,
        r#"{"a": "x", "a": "y"}"#,
        "{}",
        "[]",
    ] {
        assert!(flat(left).is_none(), "{left}");
    }
}

#[test]
fn a_big_string_answer_is_cut_the_same_by_either_path() {
    let body: String = (0..50_000)
        .map(|i| format!("line {i} \"quoted\"\n"))
        .collect();
    let answer = serde_json::json!({ "output": body, "exit_code": 3 }).to_string();
    let cut = fit("t", &answer, 2_000, None);
    let doc = Oversize::new(&answer);
    assert_eq!(doc.rendering, render_parsed(&answer).0);
    assert_eq!(doc.total_chars, chars(&doc.rendering));
    let value = parse(&cut.text);
    assert_eq!(value["total_chars"], doc.total_chars);
    assert!(chars(&cut.text) <= 2_000);
    let content = value["content"].as_str().unwrap();
    assert!(content.starts_with("== \"output\": string, 50001 lines ==\nline 0 \"quoted\"\n"));
    assert!(
        content.ends_with("== \"exit_code\": json, 1 line ==\n3\n"),
        "{content}"
    );
}
