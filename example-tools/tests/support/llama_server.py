"""llama-cpp-python's OpenAI-compatible server, with one bug of its tool calling worked around.

Run as `python llama_server.py <the server's own arguments>`; it starts `llama_cpp.server`
exactly as `python -m llama_cpp.server` does, after registering the chat format
`chatml-function-calling-tool-results`.

Why: the prompt template of llama-cpp-python 0.3.36's `chatml-function-calling` has no branch
for `role: tool` messages. A tool's answer is rendered as an empty `<|im_start|>tool` header
with no content and no end, so the model never sees what its call returned. The format
registered here hands each tool message to that same handler as a user message holding the
answer (`The tool answered: ...`), which its template does render, and changes nothing
else: the grammar, the sampling and the reply are llama-cpp-python's own.
"""

import runpy
import sys

from llama_cpp import llama_chat_format


def _tool_results_as_user(messages):
    fixed = []
    for message in messages:
        if message.get("role") == "tool":
            fixed.append(
                {
                    "role": "user",
                    "content": f"The tool answered:\n{message.get('content', '')}",
                }
            )
        else:
            fixed.append(message)
    return fixed


@llama_chat_format.register_chat_completion_handler("chatml-function-calling-tool-results")
def chatml_function_calling_tool_results(llama, messages, **kwargs):
    return llama_chat_format.chatml_function_calling(
        llama=llama, messages=_tool_results_as_user(messages), **kwargs
    )


if __name__ == "__main__":
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
