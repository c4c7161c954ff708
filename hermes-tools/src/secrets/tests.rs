use std::borrow::Cow;
use std::time::{Duration, Instant};

use super::engine::inspect;
use super::prefilter;
use super::*;

mod catalogue;

use catalogue::CATALOGUE;

/// The three places a credential reaches the model through this module: an error, a sentence of
/// a successful answer, and terminal output (an `env` dump / a `.env` file around it).
fn positions(sample: &str) -> [(&'static str, String); 3] {
    [
        ("error", error_text(&format!("request failed: {sample}"))),
        (
            "prose",
            redact(&format!(
                "Here is what I found in the config. {sample} Let me know if that helps."
            ))
            .into_owned(),
        ),
        ("terminal", redact(&terminal(sample)).into_owned()),
    ]
}

fn terminal(sample: &str) -> String {
    format!(
        "$ env | sort\nHOME=/home/dev\nLANG=C.UTF-8\n{sample}\nPATH=/usr/local/bin:/usr/bin\n\
         SHELL=/bin/bash\n$ echo done\ndone\n"
    )
}

#[test]
fn the_catalogue_has_more_than_60_distinct_formats() {
    assert!(CATALOGUE.len() > 60, "{} formats", CATALOGUE.len());
    let mut names: Vec<&str> = CATALOGUE.iter().map(|(name, _, _)| *name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), CATALOGUE.len(), "duplicate row names");
    for (name, sample, secret) in CATALOGUE {
        assert!(
            sample.contains(secret),
            "{name}: the secret is in its sample"
        );
        assert!(
            secret.len() >= 8,
            "{name}: a secret long enough to mean something"
        );
    }
}

#[test]
fn no_catalogued_secret_survives_in_an_error_a_sentence_or_terminal_output() {
    let mut leaked = Vec::new();
    for (name, sample, secret) in CATALOGUE {
        for (position, out) in positions(sample) {
            if out.contains(secret) {
                leaked.push(format!("{name} ({position}): {out}"));
            }
        }
    }
    assert!(leaked.is_empty(), "leaked:\n{}", leaked.join("\n"));
}

#[test]
fn terminal_output_around_a_secret_is_kept() {
    for (name, sample, _) in CATALOGUE {
        let out = redact(&terminal(sample)).into_owned();
        for kept in [
            "$ env | sort\nHOME=/home/dev\nLANG=C.UTF-8\n",
            "\nPATH=/usr/local/bin:/usr/bin\nSHELL=/bin/bash\n$ echo done\ndone\n",
        ] {
            assert!(out.contains(kept), "{name}: {kept:?} lost in {out}");
        }
    }
}

#[test]
fn no_catalogued_secret_survives_in_a_json_answer_and_the_answer_stays_json() {
    for (name, sample, secret) in CATALOGUE {
        let answer = serde_json::json!({"path": "notes.txt", "content": sample, "lines": 3});
        let raw = answer.to_string();
        let out = redact_json(&raw);
        let parsed: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|err| panic!("{name}: not JSON any more ({err}): {out}"));
        let content = parsed["content"].as_str().unwrap();
        assert!(!content.contains(secret), "{name}: {content}");
        assert!(!out.contains(secret), "{name}: {out}");
        assert_eq!(parsed["path"], "notes.txt");
        assert_eq!(parsed["lines"], 3);
    }
}

#[test]
fn every_rule_compiles_and_is_exercised_by_the_catalogue() {
    inspect::compile_all();
    let mut unused = Vec::new();
    for name in inspect::rule_names() {
        let hit = CATALOGUE
            .iter()
            .any(|(_, sample, _)| inspect::finds(name, sample));
        if !hit {
            unused.push(name);
        }
    }
    assert!(
        unused.is_empty(),
        "rules no catalogue row exercises: {unused:#?}"
    );
}

#[test]
fn the_prefilter_admits_every_rule_wherever_it_finds_a_secret() {
    // No false negative: a rule that finds something in a sample was let through for it.
    for name in inspect::rule_names() {
        for (row, sample, _) in CATALOGUE {
            for text in [sample.to_string(), terminal(sample), sample.to_uppercase()] {
                if inspect::finds(name, &text) {
                    assert!(
                        inspect::admits(name, &text),
                        "{name} not admitted for {row}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_marker_is_lower_case_and_every_rule_has_a_marker_or_a_probe() {
    for (rule, marker) in prefilter::inspect::markers() {
        assert!(!marker.is_empty(), "{rule}");
        assert_eq!(marker, marker.to_ascii_lowercase(), "{rule}");
    }
    for name in inspect::rule_names() {
        let marked = prefilter::inspect::markers()
            .iter()
            .any(|(rule, _)| *rule == name);
        assert!(marked || inspect::has_probe(name), "{name} would never run");
    }
}

#[test]
fn every_marker_holds_a_trigger_of_the_gate() {
    let triggers = prefilter::triggers();
    for (rule, marker) in prefilter::inspect::markers() {
        assert!(
            triggers.iter().any(|t| marker.contains(t.as_str())),
            "{rule}: {marker} passes the gate unseen"
        );
    }
}

#[test]
fn the_trigger_search_finds_exactly_the_rules_whose_markers_occur() {
    let mut texts: Vec<String> = Vec::new();
    for (_, sample, _) in CATALOGUE {
        texts.push(sample.to_string());
        texts.push(sample.to_uppercase());
        texts.push(format!("x{sample}x"));
    }
    texts.extend(CLEAN.iter().map(|t| t.to_string()));
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for _ in 0..500 {
        let words = 1 + rng.below(30);
        texts.push(rng.clean_text(words));
    }
    // Overlapping markers, and markers at the very start and end.
    texts.extend(
        [
            "passk-",
            "sk-",
            "key",
            "KEY=",
            "@",
            "tokenkey",
            "secret_key",
            "ПАРОЛЬ",
            "$2$2b$",
        ]
        .map(String::from),
    );
    for text in &texts {
        let fast: Vec<usize> = prefilter::candidates(text)
            .rules()
            .filter(|&r| !inspect::has_probe_index(r))
            .collect();
        assert_eq!(fast, prefilter::inspect::by_all_markers(text), "{text}");
    }
}

/// The catalogue checks one part of these formats (SendGrid's second half, a JWT's signature);
/// every part must go: no 8 characters of the token survive beyond the 6 and 4 the mask keeps.
#[test]
fn every_part_of_a_sendgrid_key_and_a_jwt_is_masked() {
    let sendgrid = "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";
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.luf1gYu8-0wwLFdFhWHl75MP20lWAXIlUCfHn2PuiEF";
    for token in [sendgrid, jwt] {
        let masked = redact(&format!("seen {token} end")).into_owned();
        let hidden = &token[6..token.len() - 4];
        for at in 0..=hidden.len() - 8 {
            let window = &hidden[at..at + 8];
            assert!(!masked.contains(window), "{window} survives in {masked}");
        }
    }
}

#[test]
fn two_keys_separated_by_one_character_are_both_masked() {
    assert_eq!(
        redact("sk-aaaaaaaaaaaaaaaaaaaaaa,sk-bbbbbbbbbbbbbbbbbbbbbb"),
        "sk-aaa...aaaa,sk-bbb...bbbb"
    );
    let a = "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let b = "ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    // Every printable separator that is not itself a token character.
    for separator in (b' '..=b'~').map(char::from).chain(['\n', '\t', 'é', '→']) {
        if separator.is_ascii_alphanumeric() || matches!(separator, '_' | '-') {
            continue;
        }
        let text = format!("{a}{separator}{b}");
        let out = redact(&text);
        assert!(
            !out.contains("aaaaaaaaaaaa") && !out.contains("bbbbbbbbbbbb"),
            "separator {separator:?}: {out}"
        );
    }
}

#[test]
fn repeated_and_adjacent_secrets_of_every_kind_are_all_masked() {
    // The same secret many times, and different rules' secrets side by side.
    let key = "sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2J";
    let repeated = [key; 5].join(";");
    assert_eq!(
        redact(&repeated).matches("sk-pro...").count(),
        5,
        "{}",
        redact(&repeated)
    );
    let text = "password=a1b2c3d4,token=e5f6g7h8;api_key=i9j0k1l2&secret=m3n4o5p6";
    assert_eq!(
        redact(text),
        "password=***,token=***;api_key=***&secret=***"
    );
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl";
    let three = format!("{jwt} {jwt}\n{jwt}");
    let out = redact(&three);
    assert!(!out.contains("c2lnbmF0dXJlc2lnbmF0"), "{out}");
    for (name, sample, secret) in CATALOGUE {
        let twice = format!("{sample}\n{sample}");
        let out = redact(&twice);
        assert!(!out.contains(secret), "{name} twice: {out}");
    }
}

#[test]
fn overlapping_secrets_merge_into_the_strictest_mask() {
    // A vendor key (partial mask) as the value of a secret assignment (full mask).
    assert_eq!(
        redact("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"),
        "OPENAI_API_KEY=***"
    );
    assert_eq!(
        redact(r#"{"token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}"#),
        r#"{"token": "***"}"#
    );
    // A JWT inside an Authorization header: one mask, the scheme kept.
    let out = redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl");
    assert_eq!(out, "Authorization: Bearer eyJhbG...dXJl");
    // A private key inside a JSON string, beside a secret key: the label wins.
    let out =
        redact(r#"private_key="-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----""#);
    assert!(
        out.contains("[REDACTED PRIVATE KEY]") && !out.contains("MIIE"),
        "{out}"
    );
}

#[test]
fn redacting_twice_changes_nothing_more() {
    for (name, sample, _) in CATALOGUE {
        let once = redact(sample).into_owned();
        let twice = redact(&once).into_owned();
        assert_eq!(once, twice, "{name}");
    }
}

#[test]
fn keywords_after_non_ascii_letters_are_found() {
    assert_eq!(redact("пароль password=Zx9qLm2w"), "пароль password=***");
    assert_eq!(redact("Ümlaut_password=Qw3rty9z"), "Ümlaut_password=***");
    assert_eq!(redact("éPASSWORD=Acc3ntPa55"), "éPASSWORD=***");
    assert_eq!(redact("пароль=Zx9qLm2w"), "пароль=***");
    assert_eq!(redact("ПАРОЛЬ: Zx9qLm2w"), "ПАРОЛЬ: ***");
    assert_eq!(redact("日本語token=Zx9qLm2w"), "日本語token=***");
}

#[test]
fn hermes_query_and_json_key_names_are_secret_keys() {
    for (text, masked) in [
        ("?access_token=abc123xyz&x=1", "?access_token=***&x=1"),
        ("jwt=abc.def.ghi", "jwt=***"),
        (r#"{"bearer": "opaque-value-1"}"#, r#"{"bearer": "***"}"#),
        (
            r#"{"key_material": "opaque-value-1"}"#,
            r#"{"key_material": "***"}"#,
        ),
        (
            r#"{"secret_value": "v1", "raw_secret": "v2"}"#,
            r#"{"secret_value": "***", "raw_secret": "***"}"#,
        ),
        ("authorization=Zm9vOmJhcg==", "authorization=***"),
    ] {
        assert_eq!(redact(text), masked, "{text}");
    }
}

#[test]
fn keys_that_only_look_secret_keep_their_values() {
    for text in [
        "max_tokens=4096",
        "token_count: 17",
        "\"nextPageToken\": \"CAoQAA\"",
        "GITHUB_TOKEN_FILE=/run/secrets/gh",
        "tokenizer: cl100k_base",
        "secretary: Ann",
        "PWD=/home/dev/project",
        "OLDPWD=/home/dev",
        "password: String,",
        "fn login(password: &str) -> bool {",
        "api_key: Option<String>,",
        "password = os.getenv(\"DB_PASSWORD\")",
        "token=${GITHUB_TOKEN}",
        "connect(user=user, password=password)",
        "call(password=password))",
        "if password == expected {",
        "auth: true",
        "token_type=bearer",
        "\"password\": null",
        "the password is long enough",
        "Basic 20240101 release",
        "mysql --password-stdin < file",
    ] {
        assert_eq!(redact(text), text, "{text}");
    }
}

/// A corpus of ordinary tool output: nothing in it may change.
const CLEAN: &[&str] = &[
    "The quick brown fox jumps over the lazy dog. Tokens are counted per request; the author \
     passed every test, and the secretary kept the minutes.",
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Ann Lee <ann@example.com>\n\
     Date:   Mon Jan 1 00:00:00 2024 +0000\n\n    Fix the password reset page layout",
    "id: 123e4567-e89b-12d3-a456-426614174000, sha256: \
     9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "fn main() {\n    let tokens = tokenize(&input);\n    let secret_count = tokens.len();\n    \
     println!(\"{secret_count}\");\n}",
    "def authenticate(user):\n    return check_password(user.password_hash)\n",
    "{\"type\": \"object\", \"properties\": {\"password\": {\"type\": \"string\", \"minLength\": 8}, \
     \"token_limit\": {\"type\": \"integer\"}}}",
    "test result: ok. 42 passed; 0 failed; 0 ignored; finished in 0.51s",
    "GET https://api.github.com/repos/rust-lang/rust/issues?page=2&per_page=50 200 OK",
    "drwxr-xr-x  5 dev dev 4096 Jan  1 12:00 src\n\
     -rw-r--r--  1 dev dev 1024 Jan  1 12:00 Cargo.toml",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk\
     +M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "Email ann@example.com or visit https://example.com/docs#section-2 for the API key \
     rotation policy.",
    "error[E0308]: mismatched types\n  --> src/main.rs:4:18\n   |\n4  |     let x: u32 = \"a\";",
    "Compiling serde v1.0.219\nCompiling tokio v1.45.0\n\
     Finished `release` profile [optimized] target(s) in 1m 02s",
    "2024-01-01T12:00:00Z INFO session started user_id=42 session_id=9b2c request_id=af31",
];

#[test]
fn ordinary_text_is_returned_borrowed_and_untouched() {
    for text in CLEAN {
        let out = redact(text);
        assert!(matches!(out, Cow::Borrowed(_)), "changed: {out}");
    }
}

/// A small deterministic generator (xorshift), so the property tests need no dependency and
/// replay exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn hex(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16)]))
            .collect()
    }

    /// Words of ordinary output, secret words among them but never as a key.
    fn clean_text(&mut self, words: usize) -> String {
        const VOCABULARY: &[&str] = &[
            "the",
            "token",
            "tokens",
            "password",
            "secret",
            "author",
            "passed",
            "key",
            "value",
            "config",
            "error:",
            "warning:",
            "src/main.rs:12:5",
            "ok",
            "fn",
            "let",
            "x",
            "==",
            "42",
            "3.14",
            "-",
            "(a,",
            "b)",
            "{",
            "}",
            "[1,",
            "2]",
            "\"quoted\"",
            "'single'",
            "https://example.com/a/b?c=d",
            "ann@example.com",
            "Ünïcödé",
            "пример",
            "日本語",
            "auth",
            "signal",
            "compass",
            "keyboard",
            "api",
            "access",
            "basic",
            "cookie",
            "sk",
            "eyJ",
            "AKIA",
            "@",
            "://",
            "#",
            "$",
            "%",
            "&",
            "|",
            "\\",
            "/",
        ];
        let mut out = String::new();
        for i in 0..words {
            if i > 0 {
                out.push(if self.below(8) == 0 { '\n' } else { ' ' });
            }
            match self.below(12) {
                0 => out.push_str(&self.hex(40)),
                1 => {
                    let (a, b, c) = (self.hex(8), self.hex(4), self.hex(12));
                    out.push_str(&format!("{a}-{b}-4{}-a{}-{c}", self.hex(3), self.hex(3)));
                }
                2 => out.push_str(&self.next().to_string()),
                _ => out.push_str(VOCABULARY[self.below(VOCABULARY.len())]),
            }
        }
        out
    }
}

#[test]
fn random_ordinary_text_is_never_changed() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let words = 1 + rng.below(40);
        let text = rng.clean_text(words);
        let out = redact(&text);
        assert_eq!(out, text, "changed");
    }
}

#[test]
fn a_planted_secret_vanishes_and_the_text_around_it_stays() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for round in 0..1500 {
        let (name, sample, secret) = CATALOGUE[round % CATALOGUE.len()];
        let words = 1 + rng.below(20);
        let before = rng.clean_text(words);
        let words = 1 + rng.below(20);
        let after = format!("{} end of output", rng.clean_text(words));
        let text = format!("{before}\n{sample}\n{after}");
        let out = redact(&text);
        assert!(!out.contains(secret), "{name}: {out}");
        assert!(
            out.starts_with(&format!("{before}\n")),
            "{name}: before changed: {out}"
        );
        assert!(
            out.ends_with(&format!("\n{after}")),
            "{name}: after changed: {out}\n(after: {after:?})"
        );
    }
}

#[test]
fn arbitrary_text_never_panics_and_a_json_answer_stays_json() {
    // (Idempotence is not asserted here: a mask can unglue a neighbour, which the next pass
    // then masks too.) Pieces of markers, values, quotes, escapes, gutters and non-ASCII text, shuffled.
    const PIECES: &[&str] = &[
        "password",
        "token",
        "=",
        ":",
        " ",
        "\n",
        "\"",
        "'",
        "\\",
        "\\\"",
        "sk-",
        "ghp_",
        "AKIA",
        "eyJ",
        ".",
        "@",
        "://",
        "-----BEGIN PRIVATE KEY-----",
        "-----END PRIVATE KEY-----",
        "1|",
        "Bearer ",
        "Basic ",
        "Cookie:",
        "é",
        "пароль",
        "密码",
        "🔑",
        "\u{0}",
        "\t",
        "\r\n",
        "abc",
        "0123456789",
        "ABCDEFGHIJKLMNOP",
        "$6$",
        "<password>",
        "</password>",
        "{",
        "}",
        "[",
        "]",
        "key=\"",
        "--token",
        "123456789:",
        "SG.",
        "_",
        "-",
        "(",
        ")",
        "***",
        "sk-pro...wxyz",
    ];
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    for _ in 0..4000 {
        let pieces = 1 + rng.below(24);
        let text: String = (0..pieces)
            .map(|_| PIECES[rng.below(PIECES.len())])
            .collect();
        let _ = redact(&text);
        let _ = error_text(&text);
        let _ = redact_json(&text);
        let answer = serde_json::json!({ "text": text, text.clone(): [text, 1, true] }).to_string();
        let out = redact_json(&answer);
        assert!(
            serde_json::from_str::<serde_json::Value>(&out).is_ok(),
            "{answer} -> {out}"
        );
    }
}

/// Texts built to make a regex engine or a resume rule go quadratic, at `n` bytes or so.
fn hostile_inputs(n: usize) -> Vec<String> {
    vec![
        "xsk-".repeat(n / 4),
        "pass".repeat(n / 4) + "=x",
        format!("password={}", "a".repeat(n)),
        "-----BEGIN PRIVATE KEY-----\n".repeat(n / 28),
        "http://a:".repeat(n / 9) + "@",
        "eyJ".repeat(n / 3),
        "token=a,".repeat(n / 8),
        "1234567890:".repeat(n / 11),
        "key%3Da&".repeat(n / 8),
        "MY_KEY=a ".repeat(n / 9),
        "secret: |\n".repeat(n / 10),
        "xghp_".repeat(n / 5),
        format!("{}{}", "A".repeat(n), "KIA"),
        "<password>".repeat(n / 10),
        "\"password\": \"".repeat(n / 13),
        "Authorization: ".repeat(n / 15),
        "$6$".repeat(n / 3),
        format!("-----BEGIN PRIVATE KEY-----\nk{}", "1:".repeat(n / 2)),
        format!("password=a{}", ")".repeat(n)),
        format!("-----BEGIN PRIVATE KEY-----\n{}", "a:1:\n".repeat(n / 5)),
    ]
}

/// Time of one redaction of `input` (text and JSON), averaged over as many runs as fill 20 ms,
/// so that a fast shape is timed as steadily as a slow one.
fn redaction_time(input: &str) -> Duration {
    let start = Instant::now();
    let mut runs = 0;
    while runs == 0 || start.elapsed() < Duration::from_millis(20) {
        let _ = redact(input);
        let _ = redact_json(input);
        runs += 1;
    }
    start.elapsed() / runs
}

#[test]
fn hostile_inputs_take_linear_time() {
    // Four times the text may take about four times as long, never sixteen: a ratio taken in
    // one run, never an absolute time (a loaded machine is slow, not wrong). Other tests run
    // beside this one and only ever add time, so each is the best of three.
    let best = |input: &str| {
        (0..3)
            .map(|_| redaction_time(input))
            .min()
            .unwrap_or_default()
    };
    for (small, big) in hostile_inputs(16_000).iter().zip(hostile_inputs(64_000)) {
        let small_time = best(small);
        let big_time = best(&big);
        assert!(
            big_time < small_time * 8,
            "{small_time:?} for 16 KB, {big_time:?} for 64 KB of {:?}…",
            &small[..20.min(small.len())]
        );
    }
}

#[test]
fn redact_json_returns_a_clean_document_borrowed() {
    let json = r#"{"files": [{"path": "src/main.rs", "lines": 120}], "truncated": false}"#;
    assert!(matches!(redact_json(json), Cow::Borrowed(_)));
}

#[test]
fn redact_json_masks_values_of_secret_keys_whole() {
    let json = concat!(
        r#"{"user": "ann", "password": "correct horse", "pin": 1234, "#,
        r#""Authorization": "Bearer abc", "api_keys": ["k1", "k2"], "#,
        r#""nested": {"SecretAccessKey": 12345, "token_count": 7}, "cookie": "", "token": null}"#
    );
    let masked = concat!(
        r#"{"user": "ann", "password": "***", "pin": 1234, "#,
        r#""Authorization": "***", "api_keys": ["***", "***"], "#,
        r#""nested": {"SecretAccessKey": "***", "token_count": 7}, "cookie": "", "token": null}"#
    );
    assert_eq!(redact_json(json), masked);
}

#[test]
fn redact_json_keeps_escapes_order_whitespace_and_big_numbers() {
    // A text pattern run over this raw text would eat the `\"` and end the string early.
    let json = "{\n  \"z\": 123456789012345678901234567890,\n  \
                \"cmd\": \"echo \\\"password=abc def\\\" && ls\",\n  \"a\": 1.50\n}";
    let out = redact_json(json);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value["cmd"], "echo \"password=*** def\" && ls");
    assert_eq!(
        out,
        "{\n  \"z\": 123456789012345678901234567890,\n  \
         \"cmd\": \"echo \\\"password=*** def\\\" && ls\",\n  \"a\": 1.50\n}"
    );
}

#[test]
fn redact_json_sees_through_unicode_and_slash_escapes() {
    // `\u0073` is `s`, `\/` is `/`: the raw text holds no marker, the decoded one does.
    let json = concat!(
        r#"{"a": "\u0073k-proj-abcdefghijklmnopqrstuvwxyz012345", "#,
        r#""b": "https:\/\/hooks.slack.com\/services\/T0000\/B0000\/abcdefghijklmnopqrstuvwx"}"#
    );
    let out = redact_json(json);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        !value["a"].as_str().unwrap().contains("abcdefghijklmnop"),
        "{out}"
    );
    assert!(
        !value["b"].as_str().unwrap().contains("abcdefghijklmnop"),
        "{out}"
    );
}

#[test]
fn an_escape_alone_that_hides_a_marker_is_seen() {
    // The `\u` escape is all that hides the marker from the prefilter: the document is walked.
    let hidden = r#"{"a": "\u0073k-proj-abcdefghijklmnopqrstuvwxyz012345"}"#;
    assert!(prefilter::candidates(hidden).is_empty());
    let out = redact_json(hidden);
    assert!(!out.contains("abcdefghijklmnop"), "{out}");
    // Escapes that hide nothing leave the answer as it was.
    for clean in [
        r#"{"a": "https:\/\/example.com\/x"}"#,
        r#"{"a": "C:\\users"}"#,
        r#"{"a": "a \"quote\" and\n\ta tab\\"}"#,
    ] {
        assert_eq!(redact_json(clean), clean);
    }
}

#[test]
fn redact_json_redacts_text_that_is_not_json_as_text() {
    assert_eq!(
        redact_json("oops password=hunter22 {"),
        "oops password=*** {"
    );
    assert_eq!(redact_json("\"password=hunter22\""), "\"password=***\"");
}

#[test]
fn matches_hermes_verified_example() {
    let input =
        "pre\n```json\n{\"a\":1}\n```\npost <![CDATA[\nzz]]>end <TOOL_CALL>x</Tool_Call> <invoke>";
    assert_eq!(
        error_text(input),
        "[TOOL_ERROR] pre\n{\"a\":1}\npost end x <invoke>"
    );
}

#[test]
fn caps_at_2000_characters_on_char_boundaries() {
    let long = "é".repeat(2500);
    let text = error_text(&long);
    assert_eq!(text.chars().count(), ERROR_PREFIX.len() + 2000);
    assert!(text.ends_with("é..."));
    let exact = "x".repeat(2000);
    assert_eq!(error_text(&exact), format!("{ERROR_PREFIX}{exact}"));
}

#[test]
fn redacts_each_credential_kind() {
    assert_eq!(
        redact("key sk-abcdefghijklmnopqrstuvwxyz!"),
        "key sk-abc...wxyz!"
    );
    assert_eq!(redact("ghp_abcdefghij12"), "***");
    assert_eq!(
        redact("Authorization: Bearer abcdefghijklmnopqrstuvwxyz"),
        "Authorization: Bearer abcdef...wxyz"
    );
    assert_eq!(
        redact("I have password=hunter2 here"),
        "I have password=*** here"
    );
    assert_eq!(
        redact("OPENAI_API_KEY=\"abc123def456\""),
        "OPENAI_API_KEY=\"***\""
    );
    assert_eq!(redact("postgres://u:pw@h/db"), "postgres://u:***@h/db");
    assert_eq!(
        redact("https://user:p@ss@host/path"),
        "https://user:***@host/path"
    );
    assert_eq!(
        redact("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"),
        "[REDACTED PRIVATE KEY]"
    );
    assert_eq!(
        redact("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\nBgkqhkiG9w0B\nthat is all I got"),
        "[REDACTED PRIVATE KEY]\nthat is all I got"
    );
    assert_eq!(redact("login(password=Hunter22x)"), "login(password=***)");
    assert_eq!(redact("[token=Abc123xyz]"), "[token=***]");
    assert!(matches!(redact("plain words"), Cow::Borrowed(_)));
}

#[test]
fn a_private_key_on_one_line_without_end_keeps_the_prose_after_it() {
    let out = redact(
        "KEY=\"-----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFAASC BKcwggSjAgEAAoIBAQC7\" (cut)",
    );
    assert_eq!(out, "KEY=\"[REDACTED PRIVATE KEY]\" (cut)");
}

#[test]
fn a_private_key_without_end_is_masked_through_line_number_gutters() {
    let body = [
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
        "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDLdGkXkpP3zg2Ks3uKcmHc0Lw",
    ];
    for (numbered, kept) in [
        (
            format!(
                "   1|-----BEGIN PRIVATE KEY-----\n   2|{}\n   3|{}",
                body[0], body[1]
            ),
            "   1|",
        ),
        (
            format!(
                "1\t-----BEGIN PRIVATE KEY-----\n2\t{}\n3\t{}\n4\tdone here",
                body[0], body[1]
            ),
            "4\tdone here",
        ),
        (
            format!(
                "key.pem:1:-----BEGIN PRIVATE KEY-----\nkey.pem:2:{}\nkey.pem:3:{}",
                body[0], body[1]
            ),
            "key.pem:1:",
        ),
    ] {
        let out = redact(&numbered);
        assert!(!out.contains(body[0]) && !out.contains(body[1]), "{out}");
        assert!(out.contains(kept), "{out}");
    }
}

#[test]
fn error_text_example_holds() {
    let text =
        crate::secrets::error_text("<tool_call>boom</tool_call> key sk-abcdefghijklmnopqrstuvwxyz");
    assert_eq!(text, "[TOOL_ERROR] boom key sk-abc...wxyz");
}

#[test]
fn issue_24_classes_are_masked_and_their_surroundings_kept() {
    for (text, want) in [
        ("a?key=Xq7pL2mN9vR4tY8wZ3kB&b=1", "a?key=***&b=1"),
        ("?sort=asc&key=name", "?sort=asc&key=name"),
        (
            "next=%2Fcb%3Fpassword%3DTr0ub4dorX9%26user%3Dann",
            "next=%2Fcb%3Fpassword%3D***%26user%3Dann",
        ),
        ("x%26api_key%3Dc4f9a1e7b2%26y", "x%26api_key%3D***%26y"),
        (
            "cb%3Ftoken%253DZ9y8X7w6V5u4%2526n",
            "cb%3Ftoken%253D***%2526n",
        ),
        (
            "credentialsghp_R8sK2mV9xQ4tL7wN3yZ6bC1dF5gH0jA2pE8u!",
            "credentialsghp_R8...pE8u!",
        ),
        (
            "task-force-alpha-bravo-charlie",
            "task-force-alpha-bravo-charlie",
        ),
        ("param_abc123def456ghi789", "param_abc123def456ghi789"),
        (
            "a:\n  password: |\n    Bl0ck\n    Two\n  host: x\n",
            "a:\n  password: |\n    ***\n  host: x\n",
        ),
        ("style: |\n  plain text\n", "style: |\n  plain text\n"),
        (
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIGfMA0GCSqG== (cut)",
            "[REDACTED PRIVATE KEY] (cut)",
        ),
        ("MAPBOX_KEY=pk9Xy7Wv5Ut3", "MAPBOX_KEY=***"),
        (
            "PUBLIC_KEY=pk9Xy7Wv5Ut3 cache_key=v2",
            "PUBLIC_KEY=pk9Xy7Wv5Ut3 cache_key=v2",
        ),
        (
            r#""private_key_id": "3f1c9a7e5b2d""#,
            r#""private_key_id": "***""#,
        ),
        (
            r#""api_key_id": "3f1c9a7e5b2d""#,
            r#""api_key_id": "3f1c9a7e5b2d""#,
        ),
    ] {
        assert_eq!(redact(text), want, "{text}");
    }
}
