"""Drives a fleet of `example-tools serve --http` replicas behind a load balancer with the official
Python SDK (PyPI `mcp`, 2.x). Run by example-tools/tests/fleet.rs with the virtualenv python of
`.ci/test`:

    fleet_client.py SCENARIO URL [ARGS...]

URL is the load balancer's endpoint. Every replica runs in a directory named after it, and names
itself in the `Hermes-Replica` header of each answer, which this client records per request.

Scenarios:
    clarify URL                 Client in its default mode (the 2026-07-28 era) calls `clarify`
                                three times: each call's question (input_required) comes from one
                                replica and its retry with the answer is served by another, and
                                the tool gets the user's answer
    legacy URL NAME=PID...      Client in legacy mode (initialize era): one session's calls are
                                spread over the replicas; then the replica that opened it is
                                killed, and the session goes on on the others
    killed URL DIR NAME=PID...  three calls in flight at once; the replica running the first is
                                killed: the calls it ran fail with an error, the others finish,
                                and later calls are served by the replicas left

Each scenario prints `ok: ...` lines and exits 0, or raises (exit 1, traceback on stderr).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

PATIENCE = 20.0


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


class Recorder:
    """Which replica answered each POST: (JSON-RPC method, params, session, replica)."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, Any], str | None, str | None]] = []

    async def on_response(self, response: Any) -> None:
        request = response.request
        if request.method != "POST":
            return
        try:
            body = json.loads(request.content or b"{}")
        except ValueError:
            return
        self.posts.append((
            body.get("method", "(response)"),
            body.get("params") or {},
            request.headers.get("mcp-session-id"),
            response.headers.get("hermes-replica"),
        ))

    def calls(self) -> list[tuple[dict[str, Any], str | None, str | None]]:
        return [(params, session, replica)
                for method, params, session, replica in self.posts if method == "tools/call"]

    def transport(self, url: str) -> Any:
        http = create_mcp_http_client()
        http.event_hooks["response"].append(self.on_response)
        return streamable_http_client(url, http_client=http)


def pids(args: tuple[str, ...]) -> dict[str, int]:
    named = dict(arg.split("=", 1) for arg in args)
    return {name: int(pid) for name, pid in named.items()}


def terminal(command: str) -> dict[str, Any]:
    return {"command": command, "timeout": 30}


async def clarify(url: str) -> None:
    recorder = Recorder()
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"choice": "prod"})

    async with Client(recorder.transport(url), elicitation_callback=answer) as client:
        version = client.session.protocol_version
        check(version == "2026-07-28", f"the default mode negotiates the modern era: {version}")
        for round_ in range(3):
            before = len(recorder.calls())
            result = await client.call_tool(
                "clarify", {"question": f"Deploy #{round_} where?", "choices": ["staging", "prod"]})
            check(result.is_error is False, f"round {round_}: {result!r}")
            said = json.loads(text_of(result))["user_response"]
            check(said == "prod", f"round {round_}: the answer {said!r}")
            calls = recorder.calls()[before:]
            check(len(calls) == 2, f"round {round_}: a question and a retry: {calls!r}")
            (first, _, asker), (retry, _, finisher) = calls
            check("inputResponses" not in first and "inputResponses" in retry,
                  f"round {round_}: the retry carries the answer: {calls!r}")
            check(asker is not None and finisher is not None and asker != finisher,
                  f"round {round_}: asked by {asker}, retried on {finisher}")
            print(f"ok: clarify round {round_}: asked by {asker}, answered on {finisher}: {said}")
    check(len(asked) == 3, f"asked once a round: {asked!r}")


async def legacy(url: str, *args: str) -> None:
    replicas = pids(args)
    recorder = Recorder()
    async with Client(recorder.transport(url), mode="legacy") as client:
        version = client.session.protocol_version
        check(version != "2026-07-28", f"legacy mode opens a session: {version}")
        opener = next(replica for method, _, _, replica in recorder.posts if method == "initialize")
        tools = {tool.name for tool in (await client.list_tools()).tools}
        check("terminal" in tools, f"listed: {sorted(tools)}")
        ran_on: list[str] = []
        for _ in range(6):
            result = await client.call_tool("terminal", terminal('basename "$PWD"'))
            check(result.is_error is False, repr(result))
            ran_on.append(json.loads(text_of(result))["output"].strip())
        sessions = {session for _, session, _ in recorder.calls()}
        answered = [replica for _, _, replica in recorder.calls()]
        check(len(sessions) == 1 and None not in sessions, f"one session: {sessions!r}")
        check(answered == ran_on, f"headers {answered} and tool output {ran_on} agree")
        check(len(set(ran_on)) >= 2, f"the session's calls spread over replicas: {ran_on}")
        print(f"ok: session opened on {opener}, its calls served by {ran_on}")

        os.kill(replicas[opener], signal.SIGKILL)
        print(f"ok: killed {opener}, which opened the session")
        after: list[str] = []
        for _ in range(4):
            with anyio.fail_after(PATIENCE):
                result = await client.call_tool("terminal", terminal('basename "$PWD"'))
            check(result.is_error is False, repr(result))
            after.append(json.loads(text_of(result))["output"].strip())
        check(opener not in after, f"{opener} is gone: {after}")
        check(len(set(after)) == 2, f"both replicas left serve the session: {after}")
        sessions = {session for _, session, _ in recorder.calls()}
        check(len(sessions) == 1, f"still one session: {sessions!r}")
        print(f"ok: the session went on on {after}")


async def killed(url: str, directory: str, *args: str) -> None:
    replicas = pids(args)
    started = Path(directory)
    outcomes: dict[int, str] = {}
    ended: dict[int, float] = {}

    async def call(index: int) -> None:
        command = f'basename "$PWD" > {started}/started-{index}; sleep 8; echo finished'
        try:
            async with Client(url) as client:
                result = await client.call_tool("terminal", terminal(command))
            outcomes[index] = ("ok: " if not result.is_error else "error: ") + text_of(result)
        except Exception as err:  # noqa: BLE001 - any failure is an outcome to judge
            while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
                err = err.exceptions[0]
            outcomes[index] = f"error: {type(err).__name__}: {err}"
        ended[index] = time.monotonic()

    killed_at = 0.0
    async with anyio.create_task_group() as group:
        for index in range(3):
            group.start_soon(call, index)
        with anyio.fail_after(PATIENCE):
            while not all((started / f"started-{i}").exists() for i in range(3)):
                await anyio.sleep(0.05)
        await anyio.sleep(0.2)
        ran_on = {i: (started / f"started-{i}").read_text().strip() for i in range(3)}
        victim = ran_on[0]
        os.kill(replicas[victim], signal.SIGKILL)
        killed_at = time.monotonic()
        print(f"ok: calls running on {ran_on}; killed {victim}")
        with anyio.fail_after(PATIENCE):
            while len(outcomes) < 3:
                await anyio.sleep(0.05)
    for index, replica in ran_on.items():
        outcome = outcomes[index]
        if replica == victim:
            check(outcome.startswith("error: "), f"call {index} on {victim}: {outcome}")
            # Failed when its replica died, not when its command would have finished.
            waited = ended[index] - killed_at
            check(waited < 4.0, f"call {index} on {victim} failed {waited:.1f} s after the kill")
        else:
            check(outcome.startswith("ok: ") and "finished" in outcome,
                  f"call {index} on {replica}: {outcome}")
        print(f"ok: call {index} on {replica}, ended {ended[index] - killed_at:.1f} s after the "
              f"kill: {outcome[:160]!r}")

    recorder = Recorder()
    async with Client(recorder.transport(url)) as client:
        served: list[str] = []
        for _ in range(4):
            result = await client.call_tool("terminal", terminal('basename "$PWD"'))
            check(result.is_error is False, repr(result))
            served.append(json.loads(text_of(result))["output"].strip())
    check(victim not in served and len(set(served)) == 2, f"later calls: {served}")
    print(f"ok: later calls served by {served}")


SCENARIOS = {"clarify": clarify, "legacy": legacy, "killed": killed}


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in SCENARIOS:
        sys.exit(f"usage: fleet_client.py {{{','.join(SCENARIOS)}}} URL ARGS...")
    anyio.run(SCENARIOS[sys.argv[1]], *sys.argv[2:])


if __name__ == "__main__":
    main()
