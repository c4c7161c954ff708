"""Drives a hermes-tools MCP server with the official Python SDK (PyPI `mcp`, 2.x).

Run by the Rust tests (example-tools/tests/mcp_server.rs, tests/tests/mcp_interop.rs) with the
virtualenv python of `.ci/test`:

    python_client.py SCENARIO ARGS...

Scenarios:
    stdio-session CWD CMD [ARG...]  ClientSession + initialize over stdio: list the example tools,
                                    read README.md, and see a failing call come back as isError
    stdio-auto CWD CMD [ARG...]     Client in mode "auto": it probes `server/discover` first
    reserved-time CWD CMD [ARG...]  CMD serves the tools of `mcp-server-time` (an MCP server of
                                    its config, written here): they keep their annotations and
                                    output schemas, and a call's structuredContent matches
    changed-session CMD [ARG...]    notifications/tools/list_changed on an initialize session
    changed-listen CMD [ARG...]     tools_list_changed on a 2026-07-28 `subscriptions/listen`
    http URL                        Client over Streamable HTTP, both eras
    http-sessions URL               two Streamable HTTP sessions at once (a server serving the
                                    agent-loop tools): each writes its own `todo` list and reads
                                    back only its own; a call outside any session (2026-07-28
                                    era) is refused, not silently lost
    hidden-agent-loop URL           without the opt-in, `todo` and `delegate_task` are neither
                                    listed nor callable
    http-bearer URL TOKEN           a server requiring a bearer token: refused without it,
                                    served with it (sent by the SDK's HTTP client)
    http-progress URL               a tool's progress reports reach the call's progress
                                    callback, in order, before its result (both eras)
    http-clarify URL                two sessions at once call `clarify` with choices; each is
                                    asked through its own elicitation callback and gets its own
                                    user's answer (a pick, typed words), as text and as
                                    structuredContent matching the listed outputSchema (the SDK
                                    validates it); a declined question is a tool error saying so
    http-resources URL              two sessions: resources listed and read (text, binary, a
                                    template), prompts got; the one that subscribed to a resource
                                    hears `notifications/resources/updated` when it changes, the
                                    other does not, nor does the first after unsubscribing
    http-unasked URL                a client that offers neither elicitation nor sampling:
                                    tools that ask are told at once, not left waiting
    http-polling URL                two sessions at once call a tool that closes its call's
                                    stream before it works (SSE polling), one of them twice: each
                                    client reconnects with Last-Event-ID and gets its own progress
                                    and answer; outside any session the tool is told it cannot
                                    close one
    modern-clarify TARGET...        Client in its default mode (the 2026-07-28 era: Multi
                                    Round-Trip Requests) and in legacy mode calls `clarify`,
                                    answered through its elicitation callback. TARGET is
                                    `http URL` or `stdio CMD [ARG...]`
    modern-sampling TARGET...       the same for `test_sampling`, through a sampling callback

Each scenario prints `ok: ...` lines and exits 0, or raises (exit 1, traceback on stderr).
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.client import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

EXAMPLE_TOOLS = {"read_file", "write_file", "search_files", "terminal", "clarify"}
PATIENCE = 10.0


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def text_of(result: types.CallToolResult) -> str:
    check(bool(result.content), f"no content in {result!r}")
    first = result.content[0]
    check(isinstance(first, types.TextContent), f"not text: {first!r}")
    return first.text  # type: ignore[union-attr]


def params(command: str, args: list[str], cwd: str | None = None) -> StdioServerParameters:
    return StdioServerParameters(command=command, args=args, cwd=cwd)


async def check_example_tools(session: ClientSession | Client, cwd: str) -> None:
    """What every client of `example-tools serve` must see."""
    listed = await session.list_tools()
    names = {tool.name for tool in listed.tools}
    check(EXAMPLE_TOOLS <= names, f"missing example tools: {EXAMPLE_TOOLS - names} of {names}")
    for tool in listed.tools:
        check(tool.input_schema.get("type") == "object", f"{tool.name}: {tool.input_schema}")
        check("properties" in tool.input_schema, f"{tool.name}: no properties")
    read_file = next(tool for tool in listed.tools if tool.name == "read_file")
    check(read_file.annotations is not None and read_file.annotations.read_only_hint is True,
          f"read_file annotations: {read_file.annotations!r}")
    print(f"ok: {len(names)} tools listed with object input schemas")

    readme = (Path(cwd) / "README.md").read_text(encoding="utf-8").splitlines()[0]
    result = await session.call_tool("read_file", {"path": "README.md", "limit": 3})
    check(result.is_error is False, f"read_file failed: {result!r}")
    content: dict[str, Any] = result.structured_content or {}
    first_line = str(content.get("content", "")).splitlines()[0]
    check(first_line == f"1|{readme}", f"first line {first_line!r}, README says {readme!r}")
    check(text_of(result).startswith("{"), "the text content is the answer's JSON")
    print(f"ok: read_file README.md -> {first_line!r}")

    failed = await session.call_tool("read_file", {"path": "no/such/file.txt"})
    check(failed.is_error is True, f"a missing file must be isError: {failed!r}")
    check("error" in text_of(failed), text_of(failed))
    print("ok: a failing call is isError with its message")


async def stdio_session(cwd: str, command: str, *args: str) -> None:
    async with stdio_client(params(command, list(args), cwd)) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            print(f"ok: initialized, protocol {initialized.protocol_version}, "
                  f"server {initialized.server_info.name}")
            await check_example_tools(session, cwd)


async def stdio_auto(cwd: str, command: str, *args: str) -> None:
    async with Client(params(command, list(args), cwd)) as client:
        version = client.session.protocol_version
        print(f"ok: connected after server/discover, protocol {version}")
        await check_example_tools(client, cwd)


async def reserved_time(cwd: str, command: str, *args: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        config = Path(scratch) / "config.toml"
        config.write_text(f"[mcp_servers.time]\ncommand = {json.dumps(sys.executable)}\n"
                          'args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]\n')
        served = params(command, [*args, "--config", str(config)], cwd)
        async with stdio_client(served) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {tool.name: tool for tool in (await session.list_tools()).tools}
                name = next((n for n in tools if n.endswith("get_current_time")), None)
                check(name is not None, f"the time tools are served again: {sorted(tools)}")
                tool = tools[name]
                hints = tool.annotations
                check(hints is not None and hints.read_only_hint is True,
                      f"readOnlyHint kept: {hints!r}")
                output = tool.output_schema or {}
                check(output.get("required") == ["timezone", "datetime", "day_of_week", "is_dst"],
                      f"outputSchema kept: {output!r}")
                print(f"ok: {name} keeps readOnlyHint and its outputSchema")
                result = await session.call_tool(name, {"timezone": "UTC"})
                check(result.is_error is False, repr(result))
                structured = result.structured_content or {}
                check(structured.get("timezone") == "UTC", f"structuredContent {structured!r}")
                print(f"ok: a call answers structuredContent that matches: {sorted(structured)}")


async def wait_until(event: anyio.Event, what: str) -> None:
    with anyio.fail_after(PATIENCE):
        await event.wait()
    print(f"ok: {what}")


async def added_later_is_listed(session: ClientSession | Client) -> None:
    names = {tool.name for tool in (await session.list_tools()).tools}
    check("added_later" in names, f"added_later not listed: {names}")
    print("ok: the new tool is listed")


async def changed_session(command: str, *args: str) -> None:
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with stdio_client(params(command, list(args))) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            before = {tool.name for tool in (await session.list_tools()).tools}
            check("added_later" not in before, f"listed too early: {before}")
            added = await session.call_tool("add_fixture_tool", {})
            check(added.is_error is False, f"add_fixture_tool failed: {added!r}")
            await wait_until(changed, "notifications/tools/list_changed received")
            await added_later_is_listed(session)


async def changed_listen(command: str, *args: str) -> None:
    async with Client(params(command, list(args))) as client:
        version = client.session.protocol_version
        check(version == "2026-07-28", f"expected the discover era, got {version}")
        async with client.listen(tools_list_changed=True) as subscription:
            check(subscription.honored.tools_list_changed is True, f"{subscription.honored!r}")
            added = await client.call_tool("add_fixture_tool", {})
            check(added.is_error is False, f"add_fixture_tool failed: {added!r}")
            with anyio.fail_after(PATIENCE):
                event = await subscription.__anext__()
            print(f"ok: {type(event).__name__} received on subscriptions/listen")
            await added_later_is_listed(client)


async def http(url: str) -> None:
    for mode in ("auto", "legacy"):
        async with Client(url, mode=mode) as client:
            version = client.session.protocol_version
            names = {tool.name for tool in (await client.list_tools()).tools}
            check("test_simple_text" in names, f"{mode}: {names}")
            simple = await client.call_tool("test_simple_text", {})
            check(simple.is_error is False and "simple text" in text_of(simple), repr(simple))
            failed = await client.call_tool("test_error_handling", {})
            check(failed.is_error is True, repr(failed))
            print(f"ok: Streamable HTTP, mode {mode}, protocol {version}")


AGENT_LOOP_TOOLS = {"todo", "delegate_task", "memory", "session_search"}


def todo_items(result: types.CallToolResult) -> list[str]:
    check(result.is_error is False, f"todo failed: {result!r}")
    content: dict[str, Any] = result.structured_content or {}
    return [item["content"] for item in content.get("todos", [])]


class Warnings(logging.Handler):
    """Collects the SDK's warnings (a refused session DELETE is only a warning there)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


async def http_sessions(url: str) -> None:
    warnings = Warnings()
    logging.getLogger("mcp").addHandler(warnings)
    async with Client(url, mode="legacy") as first, Client(url, mode="legacy") as second:
        names = {tool.name for tool in (await first.list_tools()).tools}
        check("todo" in names, f"todo not listed with --agent-loop-tools: {names}")
        # Interleaved: each write lands while the other session is open.
        await first.call_tool("todo", {"todos": [{"id": "1", "content": "first: plan"}]})
        await second.call_tool("todo", {"todos": [{"id": "1", "content": "second: build"},
                                                  {"id": "2", "content": "second: ship"}]})
        await first.call_tool("todo", {"todos": [{"id": "2", "content": "first: test"}],
                                       "merge": True})
        mine = todo_items(await first.call_tool("todo", {}))
        theirs = todo_items(await second.call_tool("todo", {}))
        check(mine == ["first: plan", "first: test"], f"first session reads {mine}")
        check(theirs == ["second: build", "second: ship"], f"second session reads {theirs}")
        print(f"ok: two sessions, two todo lists: {mine} and {theirs}")
    # Leaving the `async with` DELETEs both sessions; the SDK accepts only 200 or 204.
    terminations = [m for m in warnings.messages if "termination" in m]
    check(not terminations, f"session DELETE refused: {terminations}")
    print("ok: both sessions ended with DELETE, accepted")
    async with Client(url, mode="legacy") as third:
        fresh = todo_items(await third.call_tool("todo", {}))
        check(fresh == [], f"a new session starts empty, read {fresh}")
        print("ok: a new session starts with an empty list")
    async with Client(url, mode="auto") as sessionless:
        version = sessionless.session.protocol_version
        refused = await sessionless.call_tool("todo", {"todos": [{"id": "1", "content": "x"}]})
        check(refused.is_error is True, f"{version}: a write outside any session: {refused!r}")
        check("no session" in text_of(refused), text_of(refused))
        print(f"ok: protocol {version} has no session, and todo says so")


async def hidden_agent_loop(url: str) -> None:
    async with Client(url, mode="legacy") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        check("read_file" in names, f"the example tools are served: {names}")
        listed = names & AGENT_LOOP_TOOLS
        check(not listed, f"agent-loop tools listed without the opt-in: {listed}")
        try:
            result = await client.call_tool("todo", {})
        except Exception as error:  # noqa: BLE001 - any JSON-RPC error is a refusal
            print(f"ok: todo refused: {error}")
        else:
            raise AssertionError(f"todo was called without the opt-in: {result!r}")
        print(f"ok: {len(names)} tools listed, none of {sorted(AGENT_LOOP_TOOLS)}")


async def http_bearer(url: str, token: str) -> None:
    try:
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
    except Exception as error:  # noqa: BLE001 - any failure to connect is the refusal
        print(f"ok: refused without a token ({type(error).__name__})")
    else:
        raise AssertionError("the server was reached without a token")
    http_client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with streamable_http_client(url, http_client=http_client) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            check("test_simple_text" in names, f"{names}")
            simple = await session.call_tool("test_simple_text", {})
            check(simple.is_error is False and "simple text" in text_of(simple), repr(simple))
            print(f"ok: served with the token: {len(names)} tools, a call answered")


async def http_progress(url: str) -> None:
    for mode in ("auto", "legacy"):
        reports: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append((progress, total, message))

        async with Client(url, mode=mode) as client:
            version = client.session.protocol_version
            result = await client.call_tool("test_tool_with_progress", {},
                                            progress_callback=on_progress)
            check(result.is_error is False, repr(result))
            done = [progress for progress, _, _ in reports]
            check(done == [0.0, 50.0, 100.0], f"{mode}: progress {reports}")
            check(all(total == 100.0 for _, total, _ in reports), f"{mode}: totals {reports}")
            check(reports[1][2] == "halfway", f"{mode}: messages {reports}")
            print(f"ok: protocol {version}: progress {done} of 100, then the result")


def answering(asked: list[Any], action: str, content: dict[str, Any] | None) -> Any:
    """An elicitation callback: keeps each request, answers with `action` and `content`."""

    async def callback(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    return callback


async def http_clarify(url: str) -> None:
    question = {"question": "Where should I deploy?", "choices": ["staging", "prod"]}
    first_asked: list[Any] = []
    second_asked: list[Any] = []
    first_cb = answering(first_asked, "accept", {"choice": "prod"})
    second_cb = answering(second_asked, "accept", {"answer": "the qa cluster"})
    async with Client(url, mode="legacy", elicitation_callback=first_cb) as first, \
            Client(url, mode="legacy", elicitation_callback=second_cb) as second:
        listed = {tool.name: tool for tool in (await first.list_tools()).tools}
        output = listed["clarify"].output_schema or {}
        check("user_response" in output.get("properties", {}), f"outputSchema {output!r}")
        check(listed["clarify"].annotations is not None
              and listed["clarify"].annotations.read_only_hint is True,
              f"annotations {listed['clarify'].annotations!r}")
        print("ok: clarify lists its outputSchema and readOnlyHint")
        results: dict[str, types.CallToolResult] = {}

        async def call(name: str, client: Client) -> None:
            results[name] = await client.call_tool("clarify", question)

        async with anyio.create_task_group() as group:
            group.start_soon(call, "first", first)
            group.start_soon(call, "second", second)
        answers = {}
        # In the order named, not the order answered: the two calls race, and the line printed
        # below is compared whole.
        for name, result in sorted(results.items()):
            check(result.is_error is False, f"{name}: {result!r}")
            answers[name] = json.loads(text_of(result))["user_response"]
            structured = result.structured_content or {}
            check(structured.get("user_response") == answers[name],
                  f"{name}: structuredContent {structured!r}")
        check(answers == {"first": "prod", "second": "the qa cluster"}, f"answers {answers}")
        check(len(first_asked) == 1 and len(second_asked) == 1,
              f"each asked once: {len(first_asked)}, {len(second_asked)}")
        form = first_asked[0]
        check(form.message == "Where should I deploy?", f"message {form.message!r}")
        choice = form.requested_schema["properties"]["choice"]
        check(choice["enum"] == ["staging", "prod"], f"choices offered {choice!r}")
        print(f"ok: two sessions asked through their own elicitation: {answers}")
    declined_asked: list[Any] = []
    declining = answering(declined_asked, "decline", None)
    async with Client(url, mode="legacy", elicitation_callback=declining) as client:
        result = await client.call_tool("clarify", question)
        check(result.is_error is True, f"a declined question is an error: {result!r}")
        check("declined" in text_of(result), text_of(result))
        print(f"ok: declined: {text_of(result)}")


async def http_resources(url: str) -> None:
    watched = "test://watched-resource"
    heard: dict[str, list[str]] = {"first": [], "second": []}
    first_heard = anyio.Event()

    def hearing(who: str) -> Any:
        async def on_message(message: Any) -> None:
            if isinstance(message, types.ResourceUpdatedNotification):
                heard[who].append(message.params.uri)
                if who == "first":
                    first_heard.set()
        return on_message

    async with Client(url, mode="legacy", message_handler=hearing("first")) as first, \
            Client(url, mode="legacy", message_handler=hearing("second")) as second:
        listed = {r.uri for r in (await first.list_resources()).resources}
        check({"test://static-text", "test://static-binary", watched} <= listed, f"{listed}")
        templates = [t.uri_template for t in (await first.list_resource_templates()).resource_templates]
        check(templates == ["test://template/{id}/data"], f"templates {templates}")
        text = (await first.read_resource("test://static-text")).contents[0]
        check(getattr(text, "text", "").startswith("This is the content"), repr(text))
        blob = (await first.read_resource("test://static-binary")).contents[0]
        check(getattr(blob, "mime_type", None) == "image/png" and getattr(blob, "blob", ""), repr(blob))
        data = (await second.read_resource("test://template/42/data")).contents[0]
        check(json.loads(getattr(data, "text", "{}")).get("id") == "42", repr(data))
        print("ok: resources listed and read: text, binary, and a template's")
        prompt = await second.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        said = prompt.messages[0].content
        check(getattr(said, "text", "") == "Prompt with arguments: arg1='a', arg2='b'", repr(said))
        try:
            await second.get_prompt("test_prompt_with_arguments", {"arg1": "a"})
        except Exception as error:  # noqa: BLE001 - the JSON-RPC error is the refusal
            check("arg2" in str(error), f"the missing argument is named: {error}")
        else:
            raise AssertionError("a prompt without its required argument was answered")
        print("ok: a prompt got with its arguments, and refused without one, naming it")
        await first.subscribe_resource(watched)
        touched = await second.call_tool("touch_resource", {"uri": watched})
        check(touched.is_error is False, repr(touched))
        with anyio.fail_after(PATIENCE):
            await first_heard.wait()
        await anyio.sleep(0.5)
        check(heard == {"first": [watched], "second": []}, f"heard {heard}")
        print(f"ok: only the subscribed session heard the update: {heard}")
        await first.unsubscribe_resource(watched)
        await second.call_tool("touch_resource", {"uri": watched})
        await anyio.sleep(0.5)
        check(heard["first"] == [watched], f"heard after unsubscribing: {heard}")
        print("ok: nothing heard after unsubscribing")


async def http_unasked(url: str) -> None:
    async with Client(url, mode="legacy") as client:
        for tool, args in (("test_elicitation", {"message": "Who are you?"}),
                           ("test_sampling", {"prompt": "Say hi"})):
            with anyio.fail_after(PATIENCE):
                result = await client.call_tool(tool, args)
            check(result.is_error is True, f"{tool}: {result!r}")
            check("cannot ask" in text_of(result), f"{tool}: {text_of(result)}")
            print(f"ok: {tool} told at once: {text_of(result)}")


class Reconnections(logging.Handler):
    """Counts the SDK's reconnections of a call's stream (it logs each at INFO)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "reconnecting" in record.getMessage():
            self.count += 1


async def http_polling(url: str) -> None:
    reconnections = Reconnections()
    sdk_log = logging.getLogger("mcp.client.streamable_http")
    sdk_log.setLevel(logging.INFO)
    sdk_log.addHandler(reconnections)

    async def call(tag: str, times: int, answers: dict[str, tuple[str, list[str | None]]]) -> None:
        reports: list[str | None] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append(message)

        async with Client(url, mode="legacy") as client:
            with anyio.fail_after(PATIENCE):
                result = await client.call_tool("test_reconnection", {"tag": tag, "times": times},
                                                progress_callback=on_progress)
            check(result.is_error is False, f"{tag}: {result!r}")
            answers[tag] = (json.loads(text_of(result))["result"], reports)

    answers: dict[str, tuple[str, list[str | None]]] = {}
    async with anyio.create_task_group() as group:
        # The first closes twice: the second time after its client came back.
        group.start_soon(call, "first", 2, answers)
        group.start_soon(call, "second", 1, answers)
    for tag, times in (("first", 2), ("second", 1)):
        text, reports = answers[tag]
        check(text == f"Reconnection test completed: {tag}", f"{tag}: {text}")
        away = [f"worked while the client was away ({time})" for time in range(1, times + 1)]
        check(reports == away, f"{tag}: progress {reports}")
    check(reconnections.count >= 3, f"{reconnections.count} reconnections logged")
    print(f"ok: two sessions came back for their own answers "
          f"({reconnections.count} reconnections): {sorted(t for t, _ in answers.values())}")

    async with Client(url, mode="auto") as client:
        result = await client.call_tool("test_reconnection", {})
        check(result.is_error is True and "could not be closed" in text_of(result),
              f"sessionless: {result!r}")
        print(f"ok: outside a session: {text_of(result)}")


def target(args: tuple[str, ...]) -> Any:
    """What `Client` connects to: `http URL` or `stdio CMD [ARG...]`."""
    if args[0] == "http":
        return args[1]
    return params(args[1], list(args[2:]))


async def modern_clarify(*args: str) -> None:
    question = {"question": "Where should I deploy?", "choices": ["staging", "prod"]}
    for mode in ("auto", "legacy"):
        asked: list[Any] = []
        answer = answering(asked, "accept", {"choice": "prod"})
        async with Client(target(args), mode=mode, elicitation_callback=answer) as client:
            version = client.session.protocol_version
            result = await client.call_tool("clarify", question)
            check(result.is_error is False, f"{mode}: {result!r}")
            said = json.loads(text_of(result))["user_response"]
            check(said == "prod", f"{mode}: answer {said!r}")
            check(len(asked) == 1 and asked[0].message == "Where should I deploy?",
                  f"{mode}: asked {asked!r}")
            print(f"ok: clarify answered through elicitation, mode {mode}, protocol {version}")


async def modern_sampling(*args: str) -> None:
    sampled: list[Any] = []

    async def sampling(context: Any, params: Any) -> types.CreateMessageResult:
        sampled.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Paris"),
            model="offline-test-model", stop_reason="endTurn")

    async with Client(target(args), sampling_callback=sampling) as client:
        version = client.session.protocol_version
        check(version == "2026-07-28", f"the default mode negotiates the modern era: {version}")
        result = await client.call_tool("test_sampling", {"prompt": "Capital of France?"})
        check(result.is_error is False and "LLM response: Paris" in text_of(result), repr(result))
        check(len(sampled) == 1, f"sampled once: {sampled!r}")
        print(f"ok: a sampling round trip in protocol {version}: {text_of(result)}")



SCENARIOS = {
    "stdio-session": stdio_session,
    "stdio-auto": stdio_auto,
    "reserved-time": reserved_time,
    "changed-session": changed_session,
    "changed-listen": changed_listen,
    "http": http,
    "http-sessions": http_sessions,
    "hidden-agent-loop": hidden_agent_loop,
    "http-bearer": http_bearer,
    "http-progress": http_progress,
    "http-clarify": http_clarify,
    "http-unasked": http_unasked,
    "http-resources": http_resources,
    "http-polling": http_polling,
    "modern-clarify": modern_clarify,
    "modern-sampling": modern_sampling,
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in SCENARIOS:
        sys.exit(f"usage: python_client.py {{{','.join(SCENARIOS)}}} ARGS...")
    anyio.run(SCENARIOS[sys.argv[1]], *sys.argv[2:])


if __name__ == "__main__":
    main()
