"""A FastMCP 4 server with background tasks (`io.modelcontextprotocol/tasks`, SEP-2663), for
the client tests, over Streamable HTTP (`http PORT`).

The tasks are FastMCP's own: its `fastmcp_tasks.TasksExtension` (on Docket's in-memory
backend, one process) answers `tasks/get`, `tasks/update` and `tasks/cancel`; this script only
declares which tools run as tasks. Its tools:
- `add` (a plain call, never a task);
- `slow_steps(steps, step_ms)` (a task for a client that declared the extension): `steps` steps, each reported with
  `ctx.report_progress`, which FastMCP shows as the task's `statusMessage`;
- `seen_cancels`: the ids of the tasks whose `slow_steps` run FastMCP cancelled, as JSON (a
  run records itself when its work is cancelled)."""
import asyncio
import json
import sys
from datetime import timedelta

from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from fastmcp_tasks.context import get_task_context

server = FastMCP("fastmcp-tasks")
server.add_extension(TasksExtension(url="memory://"))

# The ids of the tasks whose run FastMCP cancelled.
cancelled: list[str] = []


@server.tool
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


# `optional`: a task for a client that declared the extension (ours does). Polled every 200 ms
# rather than FastMCP's default 5 s, so that a test sees several steps.
@server.tool(task=TaskConfig(mode="optional", poll_interval=timedelta(milliseconds=200)))
async def slow_steps(steps: int, step_ms: int, ctx: Context) -> str:
    """Take `steps` steps of `step_ms` ms each, reporting each one."""
    step = 0
    try:
        for step in range(1, steps + 1):
            await asyncio.sleep(step_ms / 1000)
            await ctx.report_progress(step, steps, f"step {step} of {steps}")
    except asyncio.CancelledError:
        task = get_task_context()
        cancelled.append(task.task_id if task else f"a run outside a task, at step {step}")
        raise
    return f"finished {steps} steps"


@server.tool
def seen_cancels() -> str:
    """The ids of the tasks whose `slow_steps` run was cancelled."""
    return json.dumps(cancelled)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "http":
        sys.exit("usage: fastmcp_tasks_server.py http PORT")
    server.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
