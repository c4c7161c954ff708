//! `example-tools agent --defer`: a deferred tool is found through the bridge's `tool_search`,
//! appended to the list, called by its own name, and its answer fed back; against a canned
//! server (the requests checked byte for byte), and against the offline model.

mod agent_support;
mod common;

use std::time::{Duration, Instant};

use serde_json::Value;

use agent_support::*;

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect()
}

#[test]
fn a_deferred_tool_is_searched_appended_called_and_its_answer_fed_back() {
    let server = Canned::start(vec![
        tool_call("call_s", "tool_search", r#"{"queries": ["read a file"]}"#),
        tool_call("call_r", "read_file", r#"{"path": "notes.txt"}"#),
        final_answer("The launch code is 4217."),
    ]);
    let dir = workspace();
    let run = agent(
        dir.path(),
        &[
            "--base-url",
            &server.base_url,
            "--model",
            "canned-model",
            "--toolsets",
            "files",
            "--defer",
            "read_file",
            "--tool-choice",
            "tool_search,read_file",
            "--max-tokens",
            "64",
            "What is the launch code in notes.txt?",
        ],
        &[],
        QUICK,
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], r#"→ tool_search {"queries": ["read a file"]}"#);
    assert!(
        lines[1].starts_with("← {") && lines[1].contains("read_file"),
        "{}",
        run.stdout
    );
    assert_eq!(lines[2], "(discovered: read_file)", "{}", run.stdout);
    assert_eq!(lines[3], r#"→ read_file {"path": "notes.txt"}"#);
    assert!(
        lines[4].contains("The launch code is 4217."),
        "{}",
        run.stdout
    );
    assert_eq!(lines[5], "The launch code is 4217.");
    assert_eq!(
        lines[6],
        "calls: 2 (2 exact, 0 repaired by the pipeline, 0 failed)"
    );

    let received = server.received();
    assert_eq!(received.len(), 3);
    let (first, second, third) = (&received[0].body, &received[1].body, &received[2].body);
    // The first list: the files tools sent, the bridge; read_file deferred.
    assert_eq!(
        names(&first["tools"]),
        [
            "search_files",
            "write_file",
            "tool_search",
            "tool_describe",
            "tool_call"
        ]
    );
    assert_eq!(first["tool_choice"]["function"]["name"], "tool_search");
    assert_eq!(first["max_tokens"], 64);
    let manifest = first["tools"][2]["function"]["description"]
        .as_str()
        .unwrap();
    assert!(
        manifest.contains("read_file"),
        "the manifest names it: {manifest}"
    );
    // The second: the same bytes, then read_file appended in full, and now forced.
    let (before, after) = (
        first["tools"].as_array().unwrap(),
        second["tools"].as_array().unwrap(),
    );
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(
        serde_json::to_string(&after[..before.len()]).unwrap(),
        serde_json::to_string(before).unwrap(),
        "a discovered tool only appends"
    );
    assert_eq!(after[before.len()]["function"]["name"], "read_file");
    assert!(after[before.len()]["function"]["parameters"]["properties"]["path"].is_object());
    assert_eq!(second["tool_choice"]["function"]["name"], "read_file");
    let search: Value =
        serde_json::from_str(second["messages"][2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(search["results"][0]["tools"][0]["name"], "read_file");
    // The third: read_file's answer fed back, the choice the model's.
    assert_eq!(third["tool_choice"], "auto");
    let messages = third["messages"].as_array().unwrap();
    let answer = messages.last().unwrap();
    assert_eq!(answer["tool_call_id"], "call_r");
    assert!(
        answer["content"].as_str().unwrap().contains("4217"),
        "{answer}"
    );
}

#[test]
fn a_deferred_tool_called_before_any_search_is_told_how_to_reach_it() {
    let server = Canned::start(vec![
        tool_call("call_r", "read_file", r#"{"path": "notes.txt"}"#),
        final_answer("I could not read it."),
    ]);
    let dir = workspace();
    let run = agent(
        dir.path(),
        &[
            "--base-url",
            &server.base_url,
            "--model",
            "canned-model",
            "--toolsets",
            "files",
            "--defer",
            "all",
            "--pin",
            "write_file",
            "Read notes.txt",
        ],
        &[],
        QUICK,
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[1].starts_with("← {\"error\"") && lines[1].contains("tool_describe"),
        "{}",
        run.stdout
    );
    let first = &server.received()[0].body;
    assert_eq!(
        names(&first["tools"]),
        ["write_file", "tool_search", "tool_describe", "tool_call"]
    );
    // Forcing a tool that is not offered at all is bad usage, before any request.
    let run = agent(
        dir.path(),
        &[
            "--base-url",
            &server.base_url,
            "--model",
            "m",
            "--toolsets",
            "files",
            "--defer",
            "all",
            "--tool-choice",
            "nope",
            "x",
        ],
        &[],
        QUICK,
    );
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("tool_search"), "{}", run.stderr);
}

#[test]
#[ignore = "needs the offline model and llama-cpp-python that `bash .ci/test` installs"]
fn the_offline_model_finds_a_deferred_tool_calls_it_and_reads_its_answer() {
    let python = installed("HERMES_PYTHON");
    let model = installed("HERMES_AGENT_MODEL_FILE");
    let dir = tempfile::tempdir().unwrap();
    let notes = "Meeting moved to Thursday at 10am in room B.\n";
    std::fs::write(dir.path().join("notes.txt"), notes).unwrap();
    let logs = tempfile::tempdir().unwrap();
    let server = ModelServer::start(&python, &model, logs.path());

    let prompt = "Use tool_search with the query \"read a file\", then call read_file with \
                  path notes.txt.";
    let started = Instant::now();
    // The search forced, then the found tool forced (a 270M model does not plan), then the
    // turn limit's request without tools.
    let args = [
        "--base-url",
        &server.base_url,
        "--model",
        "gemma-3-270m",
        "--toolsets",
        "files",
        "--defer",
        "read_file",
        "--tool-choice",
        "tool_search,read_file",
        "--max-turns",
        "2",
        // The last request's answer is free text: bounded, so a loaded machine cannot make it
        // outlast the request timeout.
        "--max-tokens",
        "48",
        prompt,
    ];
    let run = agent(dir.path(), &args, &[], Duration::from_secs(900));
    println!(
        "$ example-tools agent --toolsets files --defer read_file --tool-choice \
         tool_search,read_file --max-turns 2 --max-tokens 48 {prompt:?}\n{}{}(agent run {:.1} s)",
        run.stdout,
        run.stderr,
        started.elapsed().as_secs_f64()
    );
    let failure = || server.report(&run);
    assert_eq!(run.status.code(), Some(0), "{}", failure());
    let lines: Vec<&str> = run.stdout.lines().collect();
    let steps: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| {
            line.starts_with("→ ") || line.starts_with("← ") || line.starts_with("(discovered")
        })
        .collect();
    // The search ran and found read_file, which was appended...
    assert!(steps[0].starts_with("→ tool_search {"), "{}", failure());
    assert!(
        steps[1].starts_with("← {\"results\"") && steps[1].contains("read_file"),
        "{}",
        failure()
    );
    assert_eq!(steps[2], "(discovered: read_file)", "{}", failure());
    // ...then called by its own name, and its answer fed back: the file's text, or (a small
    // model may name another file) an error naming the path it asked for.
    assert!(steps[3].starts_with("→ read_file {"), "{}", failure());
    let answer = steps[4];
    if steps[3].contains("notes.txt") {
        assert!(
            answer.contains("Meeting moved to Thursday"),
            "{}",
            failure()
        );
    } else {
        assert!(
            answer.starts_with("← {\"error\"") && answer.contains("not found"),
            "{}",
            failure()
        );
    }
    // The request after it carried that answer (the model's reply to it is printed).
    let at = lines.iter().position(|line| *line == answer).unwrap();
    assert!(
        lines[at + 1].starts_with("(turn limit: 2 requests"),
        "{}",
        failure()
    );
    assert!(
        lines.last().unwrap().starts_with("calls: 2 ("),
        "{}",
        failure()
    );
}
