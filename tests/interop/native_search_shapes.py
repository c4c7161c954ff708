"""Checks native tool search with the providers' official Python SDKs (PyPI `anthropic`,
`openai`): the tool list that defers tools, the model's search call, and our answer to it.

Run by tests/tests/native_search_shapes.rs with the virtualenv python of `.ci/test`:

    native_search_shapes.py FAMILY < {"tools": [...], "reply": ..., "answers": [...]}

FAMILY is `anthropic` or `responses`. For it:

1. the SDK's request type of a tool validates each entry of `tools` (what hermes listed, with
   deferred tools marked `defer_loading` and the search tool), strictly (see
   provider_shapes.py: unknown keys are refused, nothing is coerced);
2. the SDK's response model parses `reply` (a reply whose model searches), and the search
   calls the SDK reads in it are printed;
3. the SDK's request types validate each message of `answers` (the search answered: Anthropic
   `tool_reference` blocks in a `tool_result`, a Responses `tool_search_output` item), and every
   tool the answer loads must be one the list deferred (the API refuses others);
4. wrong variants are REJECTED: a broken reference or output, and each native field checked
   against the same SDK type without that field (what an SDK from before native search would
   say): our shapes must fail there, so the validation cannot pass them silently.

Prints {"sdk", "calls", "checked", "rejected", "deferred", "loaded"}; exits 1 with the reason on
stderr when anything is wrong.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from provider_shapes import Report, call, strict_validator  # noqa: E402
from typing_extensions import NotRequired, Required, TypedDict, get_args, get_origin, get_type_hints  # noqa: E402

SEARCH_TOOL = "tool_search"


def without_field(td: Any, field: str) -> Any:
    """A copy of TypedDict `td` that lacks `field`: the type an SDK from before it would have."""
    fields = {}
    for name, hint in get_type_hints(td, include_extras=True).items():
        if name == field:
            continue
        required = getattr(td, "__total__", True)
        while get_origin(hint) in (Required, NotRequired):
            required = get_origin(hint) is Required
            hint = get_args(hint)[0]
        fields[name] = (Required if required else NotRequired)[hint]
    if len(fields) == len(get_type_hints(td)):
        raise SystemExit(f"{td.__name__} has no field {field!r}: the SDK changed, update this check")
    return TypedDict(f"{td.__name__}Without_{field}", fields)  # type: ignore[misc]


def anthropic(data: dict) -> Report:
    import anthropic as sdk
    from anthropic.types import Message, MessageParam, ToolParam, ToolReferenceBlockParam, ToolUnionParam
    from anthropic.types.tool_result_block_param import ToolResultBlockParam

    report = Report(f"anthropic {sdk.__version__}")
    tool = strict_validator(ToolUnionParam)
    tools = data["tools"]
    for entry in tools:
        report.valid(tool, entry, f"the listed tool {entry.get('name')!r}")
    deferred = [t["name"] for t in tools if t.get("defer_loading") is True]
    search = [t for t in tools if t.get("name") == SEARCH_TOOL]
    if not deferred:
        raise SystemExit(f"no tool is deferred in {json.dumps(tools)}")
    if len(search) != 1 or search[0].get("defer_loading"):
        raise SystemExit(f"the list needs one search tool {SEARCH_TOOL!r}, not deferred: {json.dumps(search)}")
    report.out["deferred"] = deferred

    message = report.valid(Message.model_validate, data["reply"], "the reply")
    for block in message.content:
        if block.type == "tool_use":
            report.out["calls"].append(call(block.id, block.name, block.input))

    param = strict_validator(MessageParam)
    loaded = []
    for answer in data["answers"]:
        report.valid(param, answer, "the user message of tool results")
        for result in answer["content"]:
            for part in result.get("content", []):
                if part.get("type") == "tool_reference":
                    loaded.append(part["tool_name"])
    if not loaded:
        raise SystemExit(f"no tool_reference among the answers: {json.dumps(data['answers'])}")
    unknown = [name for name in loaded if name not in deferred]
    if unknown:
        raise SystemExit(f"references to tools the list does not defer (the API refuses them): {unknown}")
    report.out["loaded"] = loaded

    answer = next(a for a in data["answers"] if any(
        p.get("type") == "tool_reference" for r in a["content"] for p in r.get("content", [])))
    bad = copy.deepcopy(answer)
    reference = next(p for r in bad["content"] for p in r.get("content", []) if p["type"] == "tool_reference")
    del reference["tool_name"]
    report.invalid(param, bad, "a tool_reference without tool_name")
    bad = copy.deepcopy(answer)
    reference = next(p for r in bad["content"] for p in r.get("content", []) if p["type"] == "tool_reference")
    reference["name"] = reference.pop("tool_name")
    report.invalid(param, bad, "a tool_reference naming its tool in `name`")

    # What an SDK from before native search says of our shapes.
    old_tool = strict_validator(without_field(ToolParam, "defer_loading"))
    first_deferred = next(t for t in tools if t.get("defer_loading") is True)
    report.invalid(old_tool, first_deferred, "a deferred tool, to a ToolParam without defer_loading")
    report.valid(old_tool, search[0], "the search tool, to a ToolParam without defer_loading")
    result = next(r for r in answer["content"] if any(p.get("type") == "tool_reference" for p in r.get("content", [])))
    old_result = strict_validator(_result_without_references(ToolResultBlockParam, ToolReferenceBlockParam))
    report.invalid(old_result, result, "a tool_result of tool_reference blocks, to a tool_result without them")
    return report


def _result_without_references(result: Any, reference: Any) -> Any:
    """ToolResultBlockParam whose content union lacks ToolReferenceBlockParam."""
    from typing import Iterable, Union

    from anthropic.types import tool_result_block_param as module

    members = tuple(m for m in get_args(module.Content) if m is not reference)
    if len(members) == len(get_args(module.Content)):
        raise SystemExit("ToolResultBlockParam's content takes no ToolReferenceBlockParam: update this check")
    hints = get_type_hints(result, include_extras=True)
    fields = {}
    for name, hint in hints.items():
        if name == "content":
            hint = NotRequired[Union[str, Iterable[Union[members]]]]  # type: ignore[valid-type]
        fields[name] = hint
    return TypedDict("ToolResultBlockParamWithoutReferences", fields, total=False)  # type: ignore[misc]


def responses(data: dict) -> Report:
    import openai as sdk
    from openai.types.responses import Response, ResponseInputItemParam, ToolParam
    from openai.types.responses.function_tool_param import FunctionToolParam

    report = Report(f"openai {sdk.__version__}")
    tool = strict_validator(ToolParam)
    tools = data["tools"]
    for entry in tools:
        report.valid(tool, entry, f"the listed tool {entry.get('name', entry.get('type'))!r}")
    searches = [t for t in tools if t.get("type") == "tool_search"]
    if len(searches) != 1 or searches[0].get("execution") != "client":
        raise SystemExit(f"the list needs one tool_search with client execution: {json.dumps(searches)}")
    deferred = {}
    for entry in tools:
        if entry.get("type") == "namespace":
            for function in entry["tools"]:
                if function.get("defer_loading") is not True:
                    raise SystemExit(f"a namespaced function that is not deferred: {json.dumps(function)}")
                deferred[function["name"]] = function
        elif entry.get("defer_loading") is True:
            deferred[entry["name"]] = entry
    if not deferred:
        raise SystemExit(f"no tool is deferred in {json.dumps(tools)}")
    report.out["deferred"] = sorted(deferred)

    response = report.valid(Response.model_validate, data["reply"], "the reply")
    for item in response.output:
        if item.type == "tool_search_call" and item.execution == "client":
            report.out["calls"].append(call(item.call_id, SEARCH_TOOL, item.arguments))
        elif item.type == "function_call":
            report.out["calls"].append(call(item.call_id, item.name, item.arguments))

    item = strict_validator(ResponseInputItemParam)
    loaded = []
    outputs = []
    for answer in data["answers"]:
        report.valid(item, answer, f"the {answer.get('type')} item")
        if answer.get("type") == "tool_search_output":
            outputs.append(answer)
            for entry in answer["tools"]:
                functions = entry["tools"] if entry.get("type") == "namespace" else [entry]
                for function in functions:
                    # What a search loads is the definition the list deferred, byte for byte.
                    if deferred.get(function["name"]) != function:
                        raise SystemExit(f"loaded {json.dumps(function)}, but the list deferred "
                                         f"{json.dumps(deferred.get(function['name']))}")
                    loaded.append(function["name"])
    if not loaded:
        raise SystemExit(f"no tool loaded by a tool_search_output: {json.dumps(data['answers'])}")
    report.out["loaded"] = loaded

    output = next(o for o in outputs if o["tools"])
    bad = copy.deepcopy(output)
    del bad["tools"]
    report.invalid(item, bad, "a tool_search_output without tools")
    bad = copy.deepcopy(output)
    bad["execution"] = "local"
    report.invalid(item, bad, "a tool_search_output of an unknown execution")
    bad = copy.deepcopy(output)
    namespace = next((t for t in bad["tools"] if t.get("type") == "namespace"), None)
    if namespace is not None:
        del namespace["description"]
        report.invalid(item, bad, "a loaded namespace without description")

    # What an SDK from before native search says of our shapes.
    old_function = strict_validator(without_field(FunctionToolParam, "defer_loading"))
    first = next(iter(deferred.values()))
    report.invalid(old_function, first, "a deferred function, to a FunctionToolParam without defer_loading")
    plain = {k: v for k, v in first.items() if k != "defer_loading"}
    report.valid(old_function, plain, "the same function not deferred, to that FunctionToolParam")
    return report


FAMILIES = {"anthropic": anthropic, "responses": responses}


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in FAMILIES:
        raise SystemExit(f"usage: native_search_shapes.py {{{','.join(FAMILIES)}}} < input.json")
    report = FAMILIES[sys.argv[1]](json.load(sys.stdin))
    json.dump(report.out, sys.stdout)


if __name__ == "__main__":
    main()
