"""FastMCP (pinned in .ci/requirements.txt) serving the load bench's `add` over Streamable HTTP.

Run by `bench/load` as `python bench/load_fastmcp.py PORT`; served as FastMCP serves by
default (`run(transport="http")`: sessions, SSE answers), uvicorn logging only warnings.
"""

import sys

from fastmcp import FastMCP

mcp = FastMCP("load")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    port = int(sys.argv[1])
    print(f"listening on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    mcp.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        log_level="warning",
        show_banner=False,
    )
