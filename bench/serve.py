"""What ``nehanda serve`` adds to a request and to each streamed chunk.

Run by hand: ``python bench/serve.py`` (needs the ``serve`` and ``test`` extras).

An OpenAI-compatible upstream on 127.0.0.1 (``tests/paced_upstream.py``) streams 50
tokens a second per stream; each chunk's text is the moment it was written. The same
requests go to it directly and through ``nehanda serve`` (uvicorn in a child process,
native mode, a tool in the request so the leak scanner runs over every chunk):

- per chunk: from the upstream's write to the client's read, p50 and p99, at 1 and at
  50 concurrent streams; serve's cost is the difference;
- per request: the whole of a non-streaming request of a stated size (20 messages,
  about 8 KB, with one tool; 20 chunks answered unpaced), median over repeats.

Targets: under 1 ms per chunk at p50, under 2 ms per request.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from nehanda.config.settings import ProviderConfig  # noqa: E402
from nehanda.serve.config import ENV_VAR, ServeConfig  # noqa: E402
from paced_upstream import PacedUpstream  # noqa: E402

TOOL = {
    "type": "function",
    "function": {
        "name": "Read",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}}},
    },
}
HISTORY = [
    {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "x" * 380}
    for i in range(20)
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_serve(upstream: str, port: int) -> subprocess.Popen[bytes]:
    config = ProviderConfig(name="bench", type="vllm", base_url=upstream, model="paced")
    env = {**os.environ, ENV_VAR: ServeConfig(default=config, max_concurrency=256).to_env()}
    command = [sys.executable, "-m", "uvicorn", "--factory", "nehanda.serve.app:create_app"]
    command += ["--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen(command, env=env)
    for _ in range(200):
        try:
            httpx.get(f"http://127.0.0.1:{port}/health")
            return process
        except httpx.HTTPError:
            time.sleep(0.05)
    raise SystemExit("serve did not start")


async def one_stream(client: httpx.AsyncClient, url: str, delays: list[float]) -> None:
    body = {"model": "paced", "messages": HISTORY[:1], "tools": [TOOL], "stream": True}
    async with client.stream("POST", url + "/chat/completions", json=body) as answer:
        async for line in answer.aiter_lines():
            now = time.perf_counter()
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            delta = chunk["choices"][0]["delta"] if chunk.get("choices") else {}
            for stamp in (delta.get("content") or "").split():
                delays.append(now - float(stamp))


async def chunk_delays(url: str, streams: int) -> list[float]:
    delays: list[float] = []
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=256)) as c:
        await asyncio.gather(*(one_stream(c, url, delays) for _ in range(streams)))
    return delays


async def request_times(url: str, repeats: int) -> list[float]:
    body = {"model": "paced", "messages": HISTORY, "tools": [TOOL]}
    times = []
    async with httpx.AsyncClient(timeout=60) as client:
        for _ in range(repeats):
            start = time.perf_counter()
            answer = await client.post(url + "/chat/completions", json=body)
            answer.raise_for_status()
            times.append(time.perf_counter() - start)
    return times


def ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    paced = PacedUpstream(chunks=50, rate=50)
    unpaced = PacedUpstream(chunks=20, rate=1e9)
    port, port2 = free_port(), free_port()
    serving = start_serve(paced.base_url, port)
    serving2 = start_serve(unpaced.base_url, port2)
    served, served2 = f"http://127.0.0.1:{port}/v1", f"http://127.0.0.1:{port2}/v1"
    try:
        print("per streamed chunk, upstream write to client read (ms); 50 tokens/s per stream")
        print(f"{'streams':>8} {'path':>7} {'p50':>7} {'p99':>7} {'chunks':>7}")
        rows: dict[tuple[int, bool], list[float]] = {}
        for streams in (1, 50):
            for direct in (True, False):
                url = paced.base_url if direct else served
                delays = asyncio.run(chunk_delays(url, streams))
                rows[(streams, direct)] = delays
                path = "direct" if direct else "serve"
                print(
                    f"{streams:>8} {path:>7} {ms(delays, 0.5):7.3f} {ms(delays, 0.99):7.3f} "
                    f"{len(delays):>7}"
                )
            added = ms(rows[(streams, False)], 0.5) - ms(rows[(streams, True)], 0.5)
            added99 = ms(rows[(streams, False)], 0.99) - ms(rows[(streams, True)], 0.99)
            print(f"{streams:>8} {'added':>7} {added:7.3f} {added99:7.3f}")
        size = len(json.dumps({"messages": HISTORY, "tools": [TOOL]}))
        print(f"\nper request, non-streaming, {len(HISTORY)} messages ({size} bytes), 20 chunks")
        asyncio.run(request_times(unpaced.base_url, 20))  # warm both paths
        asyncio.run(request_times(served2, 20))
        direct_times = asyncio.run(request_times(unpaced.base_url, 200))
        serve_times = asyncio.run(request_times(served2, 200))
        base, through = statistics.median(direct_times), statistics.median(serve_times)
        print(f"direct {1000 * base:.3f} ms  serve {1000 * through:.3f} ms  ", end="")
        print(f"added {1000 * (through - base):.3f} ms (median of 200)")
    finally:
        for process in (serving, serving2):
            process.terminate()
            process.wait(10)
        paced.close()
        unpaced.close()


if __name__ == "__main__":
    main()
