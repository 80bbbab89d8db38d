"""What MCP support costs: the SDK's import, a server's start, a call, and ToolSearch.

Run by hand: ``python bench/mcp_tools.py [calls]`` (named so as not to shadow the SDK's
``mcp``). Uses the test suite's notes server (tests/fixtures/mcp/notes_server.py) over
stdio. Prints a table: the SDK import in a fresh interpreter (and the modules it loads),
starting the server and listing its tools, the median round trip of a call, and what the
tools offered cost with 200 more MCP tools, in full or deferred behind ToolSearch.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nehanda.config.mcp import McpServerEntry, McpTable
from nehanda.tools.mcp import search
from nehanda.tools.mcp.servers import McpServers

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
NOTES = Path(__file__).parents[1] / "tests" / "fixtures" / "mcp" / "notes_server.py"


def sdk_import() -> tuple[float, int]:
    code = "import sys, time; t = time.perf_counter(); from mcp import Client; "
    code += "print(time.perf_counter() - t, len(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    seconds, modules = out.split()
    return float(seconds), int(modules)


async def server_timings(log: Path, many: int) -> tuple[float, list[float], McpServers]:
    env = {"NOTES_LOG": str(log), "NOTES_MANY": str(many)}
    entry = McpServerEntry(command=sys.executable, args=[str(NOTES), "stdio"], env=env)
    started = time.perf_counter()
    servers = McpServers.launch([("notes", entry)], 30)
    await servers.settled()
    servers.admit()
    start = time.perf_counter() - started
    calls = []
    for _ in range(CALLS if not many else 0):
        begun = time.perf_counter()
        await servers.connection("notes").call("list_notes", {})
        calls.append(time.perf_counter() - begun)
    return start, calls, servers


async def main() -> None:
    seconds, modules = sdk_import()
    rows = [("import the SDK (fresh interpreter)", f"{seconds * 1000:.0f} ms, {modules} modules")]
    with tempfile.TemporaryDirectory() as folder:
        start, calls, servers = await server_timings(Path(folder) / "log", 0)
        await servers.stop()
        rows.append(("start a stdio server, list its tools", f"{start * 1000:.0f} ms"))
        rows.append(
            (f"call a tool (median of {CALLS})", f"{statistics.median(calls) * 1000:.1f} ms")
        )
        _, _, servers = await server_timings(Path(folder) / "log", 200)
        await servers.stop()
    specs = [tool.spec for tool in servers.tools]
    budget = search.tool_budget(128000, McpTable())
    full = search.spec_tokens(specs)
    names_only = search.spec_tokens([search.search_spec([s.name for s in specs], budget)])
    rows.append((f"{len(specs)} MCP tools in full (~tokens)", str(full)))
    rows.append((f"the same behind ToolSearch (~tokens, budget {budget})", str(names_only)))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    asyncio.run(main())
