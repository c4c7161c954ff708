"""Hermes Agent's own tool definitions, as its registry holds them: one JSON array on stdout.

Run with the interpreter of a virtualenv holding PyPI `hermes-agent==0.19.0` (`.ci/test` makes
one and exports HERMES_AGENT_PYTHON), with HERMES_HOME pointing at a scratch directory (Hermes
keeps its config and logs there). Importing `model_tools` runs Hermes' own tool discovery, so
the list is what Hermes 0.19 registers, not a copy: each entry is the schema Hermes would show
the model (`registry.get_schema` with the tool's dynamic overrides applied, as its
`get_definitions` does, but before availability checks, which would drop the tools whose API
keys or binaries this machine lacks) with its toolset, sorted by name.

Used by tests/tests/search_eval.rs (the recall of `hermes_tools::search`).
"""

import importlib.metadata
import json
import sys

VERSION = "0.19.0"


def main():
    installed = importlib.metadata.version("hermes-agent")
    if installed != VERSION:
        sys.exit(f"hermes-agent {installed} is installed; this listing is of {VERSION}")
    import model_tools  # noqa: F401  (its import registers every built-in tool)
    from tools.registry import registry

    tools = []
    for name in registry.get_all_tool_names():
        entry = registry.get_entry(name)
        schema = {**entry.schema, "name": name}
        if entry.dynamic_schema_overrides is not None:
            schema.update(entry.dynamic_schema_overrides())
        toolset = entry.toolset
        tools.append({"name": name, "toolset": toolset, "schema": schema})
    json.dump(tools, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
