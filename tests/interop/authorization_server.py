"""A local OAuth 2.1 authorization server for the resource-server tests: its metadata
(RFC 8414) and token introspection (RFC 7662), standard library only.

    authorization_server.py RESOURCE CLIENT_ID CLIENT_SECRET

Prints `listening on http://127.0.0.1:PORT` and serves until killed. Introspection requires
HTTP Basic authentication as CLIENT_ID:CLIENT_SECRET, and knows these tokens:

    token-good-WHO-...    active, for RESOURCE, scope "mcp:tools", subject WHO
    token-narrow-...      active, for RESOURCE, scope "profile" (lacks mcp:tools)
    token-elsewhere-...   active, for another resource
    token-expired-...     active, for RESOURCE, expired an hour ago
    token-slow-...        inactive, answered after 1.5 s
    anything else         inactive

Each introspection is logged on stderr as `introspected <token prefix>`. `GET /stats` answers
how many introspections there were and the most that were in flight at once, and how many
tokens `/token` issued.

A machine client (`client_credentials` grant) authenticates at `POST /token` as CLIENT_ID with
the secret `machine-` + CLIENT_SECRET (in the body or HTTP Basic), and gets
`token-good-CLIENT_ID-ccN`, which it is told expires in 2 s (so it must fetch another).
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

RESOURCE, CLIENT_ID, CLIENT_SECRET = sys.argv[1:4]
STATS = {"introspections": 0, "in_flight": 0, "most_in_flight": 0, "tokens": 0}

STATS_LOCK = threading.Lock()


def verdict(token: str) -> dict:
    now = int(time.time())
    if token.startswith("token-good-"):
        subject = token.removeprefix("token-good-").split("-")[0]
        return {"active": True, "aud": RESOURCE, "scope": "mcp:tools", "exp": now + 300,
                "client_id": "agent", "sub": subject}
    if token.startswith("token-narrow-"):
        return {"active": True, "aud": [RESOURCE], "scope": "profile", "exp": now + 300}
    if token.startswith("token-elsewhere-"):
        return {"active": True, "aud": "https://elsewhere.example/mcp", "scope": "mcp:tools",
                "exp": now + 300}
    if token.startswith("token-expired-"):
        return {"active": True, "aud": RESOURCE, "scope": "mcp:tools", "exp": now - 3600}
    return {"active": False}


class Handler(BaseHTTPRequestHandler):
    def reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def base(self) -> str:
        return f"http://{self.headers['Host']}"

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path == "/stats":
            with STATS_LOCK:
                self.reply(200, dict(STATS))
        elif self.path == "/.well-known/oauth-authorization-server":
            self.reply(200, {
                "issuer": self.base(),
                "authorization_endpoint": self.base() + "/authorize",
                "token_endpoint": self.base() + "/token",
                "introspection_endpoint": self.base() + "/introspect",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_post",
                                                          "client_secret_basic"],
            })
        else:
            self.reply(404, {"error": "not_found"})

    def issue(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        basic = self.headers.get("Authorization", "")
        if basic.startswith("Basic "):
            who, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
        else:
            who, secret = form.get("client_id", ""), form.get("client_secret", "")
        if form.get("grant_type") != "client_credentials":
            self.reply(400, {"error": "unsupported_grant_type"})
        elif who != CLIENT_ID or secret != "machine-" + CLIENT_SECRET:
            self.reply(401, {"error": "invalid_client", "error_description": "bad credentials"})
        else:
            with STATS_LOCK:
                STATS["tokens"] += 1
                token = f"token-good-{CLIENT_ID}-cc{STATS['tokens']}"
            self.reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": 2,
                             "scope": "mcp:tools"})

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path == "/token":
            self.issue()
            return
        if self.path != "/introspect":
            self.reply(404, {"error": "not_found"})
            return
        expected = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if self.headers.get("Authorization") != f"Basic {expected}":
            self.reply(401, {"error": "invalid_client"})
            return
        length = int(self.headers.get("Content-Length", "0"))
        form = parse_qs(self.rfile.read(length).decode())
        token = (form.get("token") or [""])[0]
        sys.stderr.write(f"introspected {token[:12]}\n")
        sys.stderr.flush()
        with STATS_LOCK:
            STATS["introspections"] += 1
            STATS["in_flight"] += 1
            STATS["most_in_flight"] = max(STATS["most_in_flight"], STATS["in_flight"])
        try:
            if token.startswith("token-slow-"):
                time.sleep(1.5)
            self.reply(200, verdict(token))
        finally:
            with STATS_LOCK:
                STATS["in_flight"] -= 1

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
