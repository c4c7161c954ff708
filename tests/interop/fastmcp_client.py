"""Drives a hermes-tools MCP server with FastMCP's client (PyPI `fastmcp`, 4.x).

Run by tests/tests/mcp_interop.rs with the virtualenv python of `.ci/test`:

    fastmcp_client.py clarify http URL
    fastmcp_client.py clarify stdio CMD [ARG...]

`clarify`: in each mode (`auto`, which probes the 2026-07-28 era first, and `legacy`), calls the
`clarify` tool with choices; the question reaches the client's elicitation handler (as a Multi
Round-Trip Request in the modern era, as `elicitation/create` in the legacy one) and its answer
comes back as the tool's result. Prints `ok: ...` lines and exits 0, or raises.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def target(args: list[str]) -> Any:
    if args[0] == "http":
        return args[1]
    return StdioTransport(command=args[1], args=args[2:])


async def clarify(*args: str) -> None:
    for mode in ("auto", "legacy"):
        asked: list[str] = []

        async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
            asked.append(message)
            return {"answer": "the qa cluster"}

        async with Client(target(list(args)), mode=mode, elicitation_handler=handler) as client:
            version = client.protocol_version
            result = await client.call_tool(
                "clarify", {"question": "Where should I deploy?", "choices": ["staging", "prod"]})
            check(not result.is_error, f"{mode}: {result!r}")
            answer = json.loads(result.content[0].text)["user_response"]
            check(answer == "the qa cluster", f"{mode}: answer {answer!r}")
            check(asked == ["Where should I deploy?"], f"{mode}: asked {asked!r}")
            print(f"ok: fastmcp clarify answered, mode {mode}, protocol {version}")


SCENARIOS = {"clarify": clarify}


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in SCENARIOS:
        sys.exit(f"usage: fastmcp_client.py {{{','.join(SCENARIOS)}}} TARGET...")
    anyio.run(SCENARIOS[sys.argv[1]], *sys.argv[2:])


if __name__ == "__main__":
    main()
