"""Checks provider shapes with the providers' official Python SDKs (PyPI `openai`, `anthropic`,
`google-genai`, and `mcp` for MCP).

Run by tests/tests/provider_shapes.rs with the virtualenv python of `.ci/test`:

    provider_shapes.py FAMILY < {"reply": ..., "stream": [...], "answers": [...]}

FAMILY is `openai` (chat completions), `responses`, `anthropic`, `gemini` or `mcp`. For it:

1. the SDK's own response model parses `reply` (a recorded reply: this proves it real), and the
   calls the SDK reads in it are printed;
2. the SDK's own stream event types parse each event of `stream` (when given), and the calls the
   SDK assembles from them (with its own accumulator where it has one) are printed;
3. the SDK's request types validate each message of `answers` (what hermes produced), and a
   wrong variant of each kind of message (a missing id, an image where the provider takes
   none, ...) must be REJECTED, proving the validation would catch a wrong shape.

The request types of `openai` and `anthropic` are TypedDicts, which pydantic validates leniently:
unknown keys are ignored, and an `Iterable[...]` member is checked only when iterated (never,
here). Each TypedDict is therefore validated through a strict copy of itself: every TypedDict in
it forbids unknown keys, every `Iterable[T]` is a `list[T]`, and no value is coerced.

Prints one JSON object: {"sdk": ..., "calls": [...], "stream_calls": [...], "checked": N,
"rejected": [...]}, calls as {"id", "name", "arguments"} with the arguments as a JSON value.
Exits 1 (with the reason on stderr) when anything is wrong.
"""

from __future__ import annotations

import collections.abc
import copy
import json
import sys
import types as pytypes
from typing import Any, Callable, Dict, List, Union

import pydantic
from typing_extensions import (
    Annotated,
    NotRequired,
    Required,
    TypedDict,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

# --- strict validation of the SDKs' TypedDicts -------------------------------------------------

STRICT = pydantic.ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)
_SHADOWS: dict[Any, Any] = {}
_SEQUENCES = (collections.abc.Iterable, collections.abc.Sequence, list, List)


def strict(tp: Any) -> Any:
    """`tp` with every TypedDict in it replaced by its strict copy."""
    if is_typeddict(tp):
        return _strict_typeddict(tp)
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is Annotated:
        return Annotated[(strict(args[0]), *tp.__metadata__)]
    if origin in (Union, pytypes.UnionType):
        return Union[tuple(strict(arg) for arg in args)]
    if origin in _SEQUENCES and len(args) == 1:
        return List[strict(args[0])]
    if origin in (dict, Dict, collections.abc.Mapping) and len(args) == 2:
        return Dict[args[0], strict(args[1])]
    return tp


def _strict_typeddict(td: Any) -> Any:
    if td in _SHADOWS:
        return _SHADOWS[td]
    # A TypedDict that contains itself keeps its own (lenient) inner self: no SDK type here does.
    _SHADOWS[td] = td
    fields = {}
    for name, hint in get_type_hints(td, include_extras=True).items():
        # Read from the hints, not `__required_keys__`: under `from __future__ import
        # annotations` (as the SDKs write them) the class could not see `Required` when it was
        # made, and its `__required_keys__` are wrong. Pydantic reads the hints too.
        required = getattr(td, "__total__", True)
        while get_origin(hint) in (Required, NotRequired):
            required = get_origin(hint) is Required
            hint = get_args(hint)[0]
        fields[name] = (Required if required else NotRequired)[strict(hint)]
    shadow = TypedDict(td.__name__, fields)  # type: ignore[misc]
    shadow.__pydantic_config__ = STRICT  # type: ignore[attr-defined]
    _SHADOWS[td] = shadow
    return shadow


def strict_validator(tp: Any) -> Callable[[Any], Any]:
    adapter = pydantic.TypeAdapter(strict(tp))
    return lambda value: adapter.validate_python(value, strict=True)


# --- checks ------------------------------------------------------------------------------------


class Report:
    def __init__(self, sdk: str) -> None:
        self.out: dict[str, Any] = {"sdk": sdk, "calls": [], "stream_calls": [], "checked": 0, "rejected": []}

    def valid(self, validate: Callable[[Any], Any], value: Any, what: str) -> Any:
        try:
            parsed = validate(value)
        except pydantic.ValidationError as err:
            raise SystemExit(f"{what} is refused by {self.out['sdk']}:\n{err}\n{json.dumps(value, indent=2)}")
        self.out["checked"] += 1
        return parsed

    def invalid(self, validate: Callable[[Any], Any], value: Any, what: str) -> None:
        try:
            validate(value)
        except pydantic.ValidationError:
            self.out["rejected"].append(what)
            return
        raise SystemExit(f"{self.out['sdk']} accepted {what}, which is wrong: the validation is too "
                         f"lenient to prove anything\n{json.dumps(value, indent=2)}")


def call(id_: Any, name: Any, arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, str):
        arguments = json.loads(arguments) if arguments.strip() else {}
    return {"id": id_, "name": name, "arguments": arguments}


def without(value: dict, key: str) -> dict:
    changed = copy.deepcopy(value)
    del changed[key]
    return changed


def first(messages: list, test: Callable[[Any], bool], what: str) -> Any:
    for message in messages:
        if test(message):
            return message
    raise SystemExit(f"no {what} among the answers: {json.dumps(messages)}")


def openai(data: dict) -> Report:
    import openai as sdk
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import (
        ChatCompletion,
        ChatCompletionChunk,
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
    )

    report = Report(f"openai {sdk.__version__}")
    completion = report.valid(ChatCompletion.model_validate, data["reply"], "the recorded completion")
    for tool_call in completion.choices[0].message.tool_calls or []:
        report.out["calls"].append(call(tool_call.id, tool_call.function.name, tool_call.function.arguments))
    state = ChatCompletionStreamState()
    for event in data.get("stream", []):
        state.handle_chunk(report.valid(ChatCompletionChunk.model_validate, event, "a recorded chunk"))
    if data.get("stream"):
        for tool_call in state.get_final_completion().choices[0].message.tool_calls or []:
            report.out["stream_calls"].append(call(tool_call.id, tool_call.function.name, tool_call.function.arguments))

    message = strict_validator(ChatCompletionMessageParam)
    tool_message = strict_validator(ChatCompletionToolMessageParam)
    answers = data["answers"]
    for answer in answers:
        report.valid(message, answer, f"the {answer.get('role')} message")
        if answer.get("role") == "tool":
            report.valid(tool_message, answer, "a tool message")
    images = first(answers, lambda m: m.get("role") == "user", "user message with the images")
    if not any(part.get("type") == "image_url" and part["image_url"]["url"].startswith("data:image/")
               for part in images["content"]):
        raise SystemExit(f"no data-URL image in {json.dumps(images)}")
    tool = first(answers, lambda m: m.get("role") == "tool", "tool message")
    report.invalid(message, without(tool, "tool_call_id"), "a tool message without tool_call_id")
    report.invalid(tool_message, {**tool, "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]},
                   "a tool message carrying an image (chat tool messages take text only)")
    report.invalid(message, {**tool, "is_error": True}, "a tool message with an unknown key")
    return report


def responses(data: dict) -> Report:
    import openai as sdk
    from openai.types.responses import Response, ResponseInputItemParam, ResponseStreamEvent

    report = Report(f"openai {sdk.__version__}")
    response = report.valid(Response.model_validate, data["reply"], "the recorded response")
    for item in response.output:
        if item.type == "function_call":
            report.out["calls"].append(call(item.call_id, item.name, item.arguments))
    event_type = pydantic.TypeAdapter(ResponseStreamEvent)
    for event in data.get("stream", []):
        parsed = report.valid(event_type.validate_python, event, "a recorded stream event")
        # The item of `output_item.done` is the whole call as the SDK reads it.
        if parsed.type == "response.output_item.done" and parsed.item.type == "function_call":
            report.out["stream_calls"].append(call(parsed.item.call_id, parsed.item.name, parsed.item.arguments))

    item = strict_validator(ResponseInputItemParam)
    answers = data["answers"]
    for answer in answers:
        report.valid(item, answer, "a function_call_output item")
    listed = first(answers, lambda a: isinstance(a.get("output"), list), "output with images")
    if not any(part.get("type") == "input_image" for part in listed["output"]):
        raise SystemExit(f"no input_image in {json.dumps(listed)}")
    output = answers[0]
    report.invalid(item, without(output, "output"), "a function_call_output without output")
    report.invalid(item, {**listed, "output": [{"type": "image", "source": {"type": "base64", "data": "AA=="}}]},
                   "an output part of another provider's shape")
    report.invalid(item, {**output, "is_error": True}, "a function_call_output with an unknown key")
    return report


def anthropic(data: dict) -> Report:
    import anthropic as sdk
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import Message, MessageParam, RawMessageStreamEvent

    report = Report(f"anthropic {sdk.__version__}")
    message = report.valid(Message.model_validate, data["reply"], "the recorded message")
    for block in message.content:
        if block.type == "tool_use":
            report.out["calls"].append(call(block.id, block.name, block.input))
    event_type = pydantic.TypeAdapter(RawMessageStreamEvent)
    snapshot, buffers = None, {}
    for event in data.get("stream", []):
        if event.get("type") == "ping":
            # The SDK's stream drops pings before typing events: no event type has one.
            continue
        parsed = report.valid(event_type.validate_python, event, "a recorded stream event")
        snapshot = accumulate_event(event=parsed, current_snapshot=snapshot, json_bufs=buffers)
    for block in snapshot.content if snapshot else []:
        if block.type == "tool_use":
            report.out["stream_calls"].append(call(block.id, block.name, block.input))

    param = strict_validator(MessageParam)
    answers = data["answers"]
    for answer in answers:
        report.valid(param, answer, "the user message of tool results")
    results = answers[0]["content"]
    if not any(part.get("type") == "image" for result in results for part in result["content"]):
        raise SystemExit(f"no image block in {json.dumps(results)}")
    if not any(result["is_error"] for result in results):
        raise SystemExit(f"no error result in {json.dumps(results)}")
    bad = copy.deepcopy(answers[0])
    del bad["content"][0]["tool_use_id"]
    report.invalid(param, bad, "a tool_result without tool_use_id")
    bad = copy.deepcopy(answers[0])
    image = next(p for r in bad["content"] for p in r["content"] if p["type"] == "image")
    image["source"]["media_type"] = "image/bmp"
    report.invalid(param, bad, "an image of a type Anthropic does not take")
    bad = copy.deepcopy(answers[0])
    bad["content"][0]["is_error"] = "true"
    report.invalid(param, bad, "a tool_result whose is_error is not a boolean")
    return report


def gemini(data: dict) -> Report:
    from google.genai import types, version

    report = Report(f"google-genai {version.__version__}")
    response = report.valid(types.GenerateContentResponse.model_validate, data["reply"], "the recorded response")
    for function_call in response.function_calls or []:
        report.out["calls"].append(call(function_call.id, function_call.name, function_call.args or {}))

    answers = data["answers"]
    for answer in answers:
        report.valid(types.Content.model_validate, answer, "the user content of function responses")
        # As the wire reads it: `data` is base64, decoded into bytes.
        content = report.valid(types.Content.model_validate_json, json.dumps(answer), "the same content, as JSON")
        for part in content.parts:
            for blob in part.function_response.parts or []:
                if not blob.inline_data.data.startswith(b"\x89PNG"):
                    raise SystemExit(f"an inline image is not the PNG sent: {blob.inline_data.data[:8]!r}")
    if not any(p["functionResponse"].get("parts") for a in answers for p in a["parts"]):
        raise SystemExit(f"no image in {json.dumps(answers)}")
    validate = types.Content.model_validate
    bad = copy.deepcopy(answers[0])
    bad["parts"][0]["functionResponse"]["response"] = "a string"
    report.invalid(validate, bad, "a functionResponse whose response is not an object")
    bad = copy.deepcopy(answers[0])
    bad["parts"][0]["functionResult"] = bad["parts"][0].pop("functionResponse")
    report.invalid(validate, bad, "a part with an unknown key")
    bad = copy.deepcopy(answers[0])
    bad["parts"][0]["functionResponse"]["parts"] = [{"inlineData": {"mimeType": "image/png", "data": 42}}]
    report.invalid(validate, bad, "an inline image whose data is not base64 text")
    return report


def mcp(data: dict) -> Report:
    import mcp_types
    from importlib.metadata import version

    report = Report(f"mcp {version('mcp')}")
    request = report.valid(mcp_types.JSONRPCRequest.model_validate, data["reply"], "the recorded request")
    tools_call = report.valid(mcp_types.CallToolRequest.model_validate,
                              {"method": request.method, "params": request.params}, "its tools/call")
    report.out["calls"].append(call(str(request.id), tools_call.params.name, tools_call.params.arguments or {}))

    validate = mcp_types.CallToolResult.model_validate
    for answer in data["answers"]:
        report.valid(validate, answer, "a CallToolResult")
    text = first(data["answers"], lambda a: a["content"][0]["type"] == "text", "text result")
    bad = copy.deepcopy(text)
    del bad["content"][0]["text"]
    report.invalid(validate, bad, "a text block without text")
    image = first(data["answers"], lambda a: any(c["type"] == "image" for c in a["content"]), "image result")
    bad = copy.deepcopy(image)
    for block in bad["content"]:
        block.pop("mimeType", None)
    report.invalid(validate, bad, "an image block without mimeType")
    return report


FAMILIES = {"openai": openai, "responses": responses, "anthropic": anthropic, "gemini": gemini, "mcp": mcp}


def main() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in FAMILIES:
        raise SystemExit(f"usage: provider_shapes.py {{{','.join(FAMILIES)}}} < input.json")
    report = FAMILIES[sys.argv[1]](json.load(sys.stdin))
    json.dump(report.out, sys.stdout)


if __name__ == "__main__":
    main()
