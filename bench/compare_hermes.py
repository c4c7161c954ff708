"""Hermes 0.19's half of bench/compare: the same four measurements as tests/benches/compare.rs.

Run by bench/compare with the interpreter of a venv holding `hermes-agent==0.19.0`; prints
one JSON object of medians in nanoseconds. The tool shapes match the Rust side: a
two-argument `add` and 49 three-parameter filler tools behind a check function, 50 in all,
registered in Hermes' global registry in toolsets "bench" and "filler".

- dispatch: `registry.dispatch("add", {"a": 40, "b": 2})` (Hermes takes the parsed dict; the
  Rust side parses the argument string, so this favours Hermes);
- handle_function_call: `model_tools.handle_function_call("add", {...})`;
- definitions_cached / definitions_cold: `get_tool_definitions(["bench", "filler"],
  quiet_mode=True)` warm, and after `_clear_tool_defs_cache()` (check results stay cached,
  as on the Rust side);
- startup: `import model_tools` in a fresh interpreter (module imports, built-in tool
  discovery, plugin discovery), timed inside that interpreter;
- startup_process: the whole `python -c "import model_tools"` process, as a host spawns it.
"""

import json
import os
import statistics
import subprocess
import sys
import time

BATCHES = 15
BATCH_SECONDS = 0.05
STARTUPS = 5


def median_ns(fn):
    """The median per-call time of `fn` over BATCHES batches of about BATCH_SECONDS each."""
    fn()
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        if time.perf_counter() - start >= BATCH_SECONDS / 4:
            break
        calls *= 2
    calls = max(1, int(calls * BATCH_SECONDS / max(time.perf_counter() - start, 1e-9)))
    samples = []
    for _ in range(BATCHES):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e9)
    return statistics.median(samples)


def startup():
    """Medians of importing model_tools: timed inside a fresh interpreter, and the whole
    process (interpreter start included); and how many tools it discovered."""
    code = (
        "import time; t = time.perf_counter(); import model_tools; "
        "d = time.perf_counter() - t; "
        "print(d, len(model_tools.registry.get_all_tool_names()))"
    )
    inside, whole, tools = [], [], 0
    for _ in range(STARTUPS):
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout.split()
        whole.append((time.perf_counter() - start) * 1e9)
        inside.append(float(out[-2]) * 1e9)
        tools = int(out[-1])
    return statistics.median(inside), statistics.median(whole), tools


def add_handler(args, **_kwargs):
    return json.dumps(args["a"] + args["b"])


def filler_handler(args, **_kwargs):
    return json.dumps(f"{args.get('text')}{args.get('items')}{args.get('limit', 10)}")


def always():
    return True


def register_bench_tools(registry):
    registry.register(
        name="add",
        toolset="bench",
        schema={
            "name": "add",
            "description": "Add two integers: the tool every bench calls.",
            "parameters": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The first addend."},
                    "b": {"type": "integer", "description": "The second addend."},
                },
                "required": ["a", "b"],
            },
        },
        handler=add_handler,
    )
    for i in range(1, 50):
        name = f"f{i:02}"
        registry.register(
            name=name,
            toolset="filler",
            schema={
                "name": name,
                "description": "A tool that exists so the registry has a realistic size.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "description": "Some text."},
                        "items": {
                            "type": "array",
                            "items": {"type": "string"},
                            "maxItems": 4,
                            "description": "Up to four items.",
                        },
                        "limit": {
                            "type": "integer",
                            "minimum": 0,
                            "maximum": 100,
                            "default": 10,
                            "description": "A bound.",
                        },
                    },
                    "required": ["text"],
                },
            },
            handler=filler_handler,
            check_fn=always,
        )


def main():
    startup_ns, process_ns, builtin_tools = startup()

    import model_tools
    from tools.registry import registry

    register_bench_tools(registry)
    args = {"a": 40, "b": 2}
    assert registry.dispatch("add", args) == "42"
    assert json.loads(model_tools.handle_function_call("add", dict(args))) == 42
    toolsets = ["bench", "filler"]
    listed = model_tools.get_tool_definitions(toolsets, quiet_mode=True)
    assert len(listed) == 50, len(listed)

    def cold():
        model_tools._clear_tool_defs_cache()
        return model_tools.get_tool_definitions(toolsets, quiet_mode=True)

    result = {
        "dispatch": median_ns(lambda: registry.dispatch("add", args)),
        "handle_function_call": median_ns(
            lambda: model_tools.handle_function_call("add", dict(args))
        ),
        "definitions_cached": median_ns(
            lambda: model_tools.get_tool_definitions(toolsets, quiet_mode=True)
        ),
        "definitions_cold": median_ns(cold),
        "startup": startup_ns,
        "startup_process": process_ns,
        "startup_tools": builtin_tools,
        "python": sys.version.split()[0],
    }
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    os.environ.setdefault("HERMES_QUIET", "1")
    main()
