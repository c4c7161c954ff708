"""The table bench/compare prints: criterion's medians of our side beside Hermes' medians.

Arguments: the criterion group directory (target/criterion/compare), Hermes' JSON (from
bench/compare_hermes.py), the load average during the run, and optionally --markdown.
"""

import datetime
import glob
import json
import os
import sys

ROWS = [
    ("dispatch", "dispatch `add` (two arguments)", "dispatch", "`registry.dispatch`"),
    (
        "handle_function_call",
        "the call pipeline (`call_blocking`)",
        "handle_function_call",
        "`handle_function_call`",
    ),
    ("definitions_cached", "definitions of 50 tools, cached", "definitions_cached", "`get_tool_definitions`"),
    ("definitions_cold", "definitions of 50 tools, cold", "definitions_cold", "after `_clear_tool_defs_cache()`"),
    ("startup_linked_*", "start-up in process: registry from the linked tools", "startup", "`import model_tools`"),
    ("startup_process_*", "start-up, a fresh process", "startup_process", "`python -c 'import model_tools'`"),
]


def criterion_median(group_dir, pattern):
    """Criterion's median estimate (ns) of the benchmark matching `pattern`, and its name."""
    for path in sorted(glob.glob(os.path.join(group_dir, pattern, "new", "estimates.json"))):
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"], path.split(os.sep)[-3]
    sys.exit(f"no criterion result for {pattern} under {group_dir}: did the bench run?")


def human(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    group_dir, hermes_text, load = sys.argv[1:4]
    markdown = "--markdown" in sys.argv[4:]
    hermes = json.loads(hermes_text)
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = []
    for ours_key, what, hermes_key, hermes_what in ROWS:
        ours_ns, name = criterion_median(group_dir, ours_key)
        theirs_ns = hermes[hermes_key]
        ratio = theirs_ns / ours_ns
        if ours_key.startswith("startup_linked"):
            tools = name.split("_")[2]
            what = f"{what} ({tools} tools; Hermes: {hermes['startup_tools']} tools)"
        lines.append((what, human(ours_ns), f"{human(theirs_ns)} ({hermes_what})", f"{ratio:,.0f}×" if ratio >= 10 else f"{ratio:.1f}×"))
    header = ("what", "hermes-tools", "Hermes 0.19", "Hermes ÷ ours")
    if markdown:
        print(f"Run of {when}, load average {load}, Python {hermes['python']}:\n")
        print("| " + " | ".join(header) + " |")
        print("|---|---|---|---|")
        for row in lines:
            print("| " + " | ".join(row) + " |")
    else:
        print(f"bench/compare, {when}, load average {load}, Python {hermes['python']}")
        widths = [max(len(r[i]) for r in lines + [header]) for i in range(4)]
        for row in [header] + lines:
            print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)))


if __name__ == "__main__":
    main()
