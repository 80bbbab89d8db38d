"""How soon ``nehanda acp`` answers an editor: from ``initialize`` to the first
``agent_message_chunk``, against a local server that answers at once as vLLM does.

Run by hand: ``python bench/acp_first_chunk.py [runs]`` (not ``bench/acp.py``: a script
there would be the ``acp`` its import finds). Each run starts ``nehanda acp`` as an editor
does (the SDK's client side, ``spawn_agent_process``), and times: the start (process
spawn to the ``initialize`` answer: Python, click and the SDK's schema imported), then
from sending ``initialize`` to the first chunk of the answer (``session/new``: settings,
provider, tools, gate, log; then ``session/prompt`` until the model's first words), and
the two parts of that. A request sent before the child is up waits for it, so the
second row holds the start too: ``import acp`` (its pydantic schema) is most of it. The
server is ``startup.FirstBytes`` (bench/startup.py).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import RequestPermissionResponse
from startup import CACHED, FirstBytes

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 10


class FirstChunk:
    """An editor that notes when the first message chunk arrives."""

    def __init__(self) -> None:
        self.first: float | None = None
        self.arrived = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if update.session_update == "agent_message_chunk" and self.first is None:
            self.first = time.perf_counter()
            self.arrived.set()

    async def request_permission(self, **kwargs: Any) -> RequestPermissionResponse:
        raise AssertionError("the answer makes no call")


async def one_run(url: str, env: dict[str, str], home: str) -> dict[str, float]:
    editor = FirstChunk()
    args = ["-m", "nehanda", "acp", "--provider", "vllm", "--base-url", url, "--model", "q"]
    spawned = time.perf_counter()
    async with spawn_agent_process(editor, sys.executable, *args, env=env, cwd=home) as (conn, _):
        began = time.perf_counter()
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        initialized = time.perf_counter()
        opened = await conn.new_session(cwd=home, mcp_servers=[])
        opened_at = time.perf_counter()
        await conn.prompt(session_id=opened.session_id, prompt=[text_block("hi")])
        await editor.arrived.wait()
    assert editor.first is not None
    return {
        "start: spawn to initialize answered": initialized - spawned,
        "initialize to first agent_message_chunk": editor.first - began,
        "initialize answered to first chunk": editor.first - initialized,
        "  session/new": opened_at - initialized,
        "  session/prompt to first chunk": editor.first - opened_at,
    }


def main() -> None:
    server = FirstBytes()
    home = tempfile.mkdtemp(prefix="nehanda-bench-acp-")
    env = {
        **CACHED,
        "HOME": home,
        "XDG_CONFIG_HOME": f"{home}/config",
        "XDG_STATE_HOME": f"{home}/state",
        "XDG_CACHE_HOME": f"{home}/cache",
    }
    url = f"http://127.0.0.1:{server.port}/v1"
    asyncio.run(one_run(url, env, home))  # writes the bytecode caches; not timed
    runs = [asyncio.run(one_run(url, env, home)) for _ in range(RUNS)]
    shutil.rmtree(home, ignore_errors=True)
    print(f"nehanda acp against an instant local server, {RUNS} runs, {os.cpu_count()} CPUs")
    print(f"{'':42} {'median':>9} {'best':>9}")
    for name in runs[0]:
        samples = [run[name] for run in runs]
        median, best = statistics.median(samples), min(samples)
        print(f"{name:42} {median * 1000:7.0f} ms {best * 1000:7.0f} ms")


if __name__ == "__main__":
    main()
