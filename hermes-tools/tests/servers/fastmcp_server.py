"""A FastMCP 4 server for the client tests, over stdio or (`http PORT`) Streamable HTTP.

Its tools: `add` (a plain call), `greet` (a guard tool of the 2026-07-28 era: it answers
`input_required` with an elicitation until the retry carries the answer, then greets the
name given) and `haiku` (the same with a sampling request). Its lists carry `ttlMs` of
FASTMCP_TTL_MS (when set)."""
import os
import sys

import mcp.types as types
from fastmcp import Context, FastMCP

ttl = os.environ.get("FASTMCP_TTL_MS")
server = FastMCP("fastmcp-eras", cache_ttl=int(ttl) if ttl else None)


@server.tool
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool
def greet(ctx: Context) -> str | types.InputRequiredResult:
    """Greet the user by the name they give."""
    answers = ctx.input_responses or {}
    answer = answers.get("name")
    if answer is None:
        form = types.ElicitRequestFormParams(
            message="What is your name?",
            requested_schema={
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        )
        return types.InputRequiredResult(
            input_requests={"name": types.ElicitRequest(params=form)},
            request_state="asked-name",
        )
    answer = answer if isinstance(answer, dict) else answer.model_dump(by_alias=True)
    if answer.get("action") != "accept":
        return f"no name given ({answer.get('action')}; state {ctx.request_state})"
    return f"Hello, {answer['content']['name']}! (state {ctx.request_state})"


@server.tool
def haiku(topic: str, ctx: Context) -> str | types.InputRequiredResult:
    """A haiku on the topic, written by the client's model."""
    answer = (ctx.input_responses or {}).get("poem")
    if answer is None:
        request = types.CreateMessageRequestParams(
            messages=[
                types.SamplingMessage(
                    role="user",
                    content=types.TextContent(type="text", text=f"A haiku about {topic}"),
                )
            ],
            max_tokens=50,
        )
        return types.InputRequiredResult(
            input_requests={"poem": types.CreateMessageRequest(params=request)}
        )
    answer = answer if isinstance(answer, dict) else answer.model_dump(by_alias=True)
    return f"{answer['model']} wrote: {answer['content']['text']}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        server.run(show_banner=False)
