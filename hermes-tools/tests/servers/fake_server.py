"""A scripted MCP server over stdio (JSON-RPC lines), standard library only, for the client
tests (see fake.rs): what it does is chosen by FAKE_* environment variables."""
import json, os, sys, time

log_path = os.environ.get("FAKE_LOG")

def log(line):
    if log_path:
        with open(log_path, "a") as f:
            f.write(line + "\n")

log("start")
if os.environ.get("FAKE_STDOUT_BANNER"):
    sys.stdout.write(os.environ["FAKE_STDOUT_BANNER"] + "\n")
    sys.stdout.flush()
if os.environ.get("FAKE_STDOUT_ONLY"):
    # Prints, never speaks the protocol, keeps running: a wrong command, say.
    sys.stdout.write(os.environ["FAKE_STDOUT_ONLY"] + "\n")
    sys.stdout.flush()
    sys.stdin.read()
    sys.exit(0)
if os.environ.get("FAKE_GRANDCHILD"):
    # Something the server started and does not stop: `npx` and `uvx` leave such children.
    import subprocess
    child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)
    log("grandchild " + str(child.pid))
if os.environ.get("FAKE_EXIT_ON_START"):
    sys.stderr.write("booting\n" + os.environ["FAKE_EXIT_ON_START"] + "\n")
    sys.stderr.flush()
    sys.exit(3)

LONG = "a_tool_with_a_name_long_enough_to_need_shortening_by_the_client"
OBJ = {"type": "object", "properties": {}}
tools = {
    "echo": {"description": "Echo the text.", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    "to-remove": {"description": "Goes away after swap.", "inputSchema": OBJ},
    "swap": {"description": "Replace to-remove by added, and say so.", "inputSchema": OBJ},
    "crash": {"description": "Exit at once.", "inputSchema": OBJ},
    "hang": {"description": "Never answer.", "inputSchema": OBJ},
    "fail": {"description": "Answer isError.", "inputSchema": OBJ},
    "env": {"description": "The environment's keys and FAKE_TOKEN.", "inputSchema": OBJ},
    "count": {"description": "How many calls reached this process.", "inputSchema": OBJ},
    "sleep": {"description": "Answer after some seconds.", "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}},
    "weird": {"description": "A draft-07 schema with every flaw.", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"when": {"$ref": "#/definitions/When"}, "tags": {"type": "array", "items": [{"type": "string"}], "additionalItems": False}},
        "required": ["when", "ghost"],
        "definitions": {"When": {"type": "string", "description": "A time."}}}},
    "broken": {"description": "Its arguments are a string.", "inputSchema": {"type": "string"}},
    LONG: {"description": "A long name.", "inputSchema": OBJ},
    "no-schema": {"description": "No schema at all.", "inputSchema": {}},
}
extra = os.environ.get("FAKE_EXTRA_TOOLS")
if extra and os.path.exists(extra):
    # Tools named in a file, one a line, read at each start: a server whose tools change
    # between one start and the next.
    with open(extra) as f:
        for name in f.read().split():
            tools[name] = {"description": "Listed from FAKE_EXTRA_TOOLS.", "inputSchema": OBJ}
# FAKE_CONTENT=N: N resources and N prompts too (paged by FAKE_PAGE_SIZE, as tools are).
content = int(os.environ.get("FAKE_CONTENT", "0"))
resources = [{"uri": "fake://r/%d" % i, "name": "r%d" % i} for i in range(content)]
prompts = [{"name": "prompt_%d" % i, "description": "Prompt %d." % i} for i in range(content)]
calls = 0

def paged(kind, items, params):
    """One page of `items` under `kind`: pages of FAKE_PAGE_SIZE, the cursor the next index."""
    page = int(os.environ.get("FAKE_PAGE_SIZE", "0"))
    start = int(params.get("cursor") or 0)
    log(kind + " from " + str(start))
    if not page:
        return {kind: items}
    result = {kind: items[start:start + page]}
    if start + page < len(items):
        result["nextCursor"] = str(start + page)
    return result

def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()

def text(value, is_error=False):
    return {"content": [{"type": "text", "text": value}], "isError": is_error}

for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    method, ident, params = message.get("method"), message.get("id"), message.get("params") or {}
    if ident is None:
        if method == "notifications/cancelled":
            log("cancelled")
        continue
    if method == "server/discover":
        # An MCP server of before 2026-07-28: it knows no `server/discover` (the default), or
        # (FAKE_DISCOVER=old) refuses the version, naming only earlier ones.
        log("discover")
        if os.environ.get("FAKE_DISCOVER") == "old":
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32022, "message": "unsupported protocol version",
                  "data": {"supported": ["2025-06-18"], "requested": "2026-07-28"}}})
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "method not found"}})
        continue
    if method == "initialize":
        log("initialize " + str(params.get("protocolVersion")))
        capabilities = {"tools": {"listChanged": True}}
        if content:
            capabilities.update(resources={}, prompts={})
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                  "capabilities": capabilities,
                  "serverInfo": {"name": "fake", "version": "1"}}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        listed = [dict(name=name, **spec) for name, spec in tools.items()]
        page = int(os.environ.get("FAKE_PAGE_SIZE", "0"))
        if page:
            # Pages of FAKE_PAGE_SIZE tools; the cursor is the index of the next one.
            start = int(params.get("cursor") or 0)
            log("list from " + str(start))
            result = {"tools": listed[start:start + page]}
            if start + page < len(listed):
                result["nextCursor"] = str(start + page)
        else:
            log("list")
            result = {"tools": listed}
        if os.environ.get("FAKE_TTL_MS"):
            # A cache hint: the listing is fresh for that long.
            result["ttlMs"] = int(os.environ["FAKE_TTL_MS"])
    elif method == "resources/list" and content:
        result = paged("resources", resources, params)
    elif method == "resources/templates/list" and content:
        result = {"resourceTemplates": []}
    elif method == "prompts/list" and content:
        result = paged("prompts", prompts, params)
    elif method == "tools/call":
        calls += 1
        name, args = params.get("name"), params.get("arguments") or {}
        log("call " + str(name))
        if name == "crash":
            os._exit(1)
        if name == "hang":
            continue
        if name == "echo":
            result = text(args.get("text", ""))
        elif name == "swap":
            tools.pop("to-remove", None)
            tools["added"] = {"description": "Arrived with swap.", "inputSchema": OBJ}
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            result = text("swapped")
        elif name == "fail":
            result = text("upstream said: Bearer abcdefghijklmnopqrstuvwxyz0123 is revoked", True)
        elif name == "env":
            result = {"content": [], "structuredContent": {"keys": sorted(os.environ), "token": os.environ.get("FAKE_TOKEN")}}
        elif name == "count":
            result = text(str(calls))
        elif name == "sleep":
            time.sleep(float(args.get("seconds", 1)))
            result = text("slept")
        elif name in tools:
            result = text("ok")
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": "unknown tool " + str(name)}})
            continue
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "method not found"}})
        continue
    send({"jsonrpc": "2.0", "id": ident, "result": result})
log("stdin closed")
