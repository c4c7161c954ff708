"""A remote MCP server for the client tests: the official Python SDK's MCPServer (FastMCP)
over Streamable HTTP on loopback, refusing every request without the bearer token.

Usage: python bearer_server.py PORT [sse]  (the token is the environment variable
BEARER_TOKEN; `sse` serves the legacy HTTP+SSE transport at /sse instead).
"""

import os
import sys

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

PORT = int(sys.argv[1])
LEGACY_SSE = sys.argv[2:] == ["sse"]
TOKEN = os.environ["BEARER_TOKEN"]


class StaticTokenVerifier:
    """Accepts exactly one token: the one in BEARER_TOKEN."""

    async def verify_token(self, token: str) -> AccessToken | None:
        if token != TOKEN:
            return None
        return AccessToken(token=token, client_id="hermes-tools-tests", scopes=[])


server = MCPServer(
    "bearer-fixture",
    token_verifier=StaticTokenVerifier(),
    auth=AuthSettings(
        # No authorization server runs: the client holds a token issued out of band.
        issuer_url="http://127.0.0.1:1",
        resource_server_url=f"http://127.0.0.1:{PORT}/{'sse' if LEGACY_SSE else 'mcp'}",
    ),
)


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Say the text in capitals."""
    return text.upper()


@server.resource("notes://today", mime_type="text/plain")
def today() -> str:
    """Today's notes."""
    return "Water the plants."


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Say hello to {name}."


if LEGACY_SSE:
    server.run("sse", host="127.0.0.1", port=PORT)
else:
    server.run("streamable-http", host="127.0.0.1", port=PORT)
