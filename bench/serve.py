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

``python bench/serve.py --cpu [--baseline SRC] [--rounds N]``: serve's own CPU per
streamed chunk at 20 streams (the serve process's user and system time over a round,
divided by the chunks its clients read), for this tree and, with ``--baseline``, for
another tree's ``src`` folder (such as ``git archive`` of main unpacked in /tmp), each
on uvicorn's h11/asyncio and on its fastest (httptools, uvloop) when installed; the
servers run side by side and take turns, and the table gives each one's median.
"""

from __future__ import annotations

import argparse
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
KEY, TOKEN = "sk-bench-0123456789abcdefXYZ", "bench-token-9876543210"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
HISTORY = [
    {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " + "x" * 380}
    for i in range(20)
]


def client(connections: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=connections)
    return httpx.AsyncClient(timeout=60, limits=limits, headers=AUTH)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_serve(
    upstream: str, port: int, src: Path | None = None, stack: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    config = ProviderConfig(
        name="bench", type="vllm", base_url=upstream, model="paced", api_key_env="BENCH_KEY"
    )
    served = ServeConfig(default=config, token_env="BENCH_TOKEN", max_concurrency=256)
    # A key and a token, as a real deployment has: every byte out is masked for both.
    env = {**os.environ, ENV_VAR: served.to_env(), "BENCH_KEY": KEY, "BENCH_TOKEN": TOKEN}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    command = [sys.executable, "-m", "uvicorn", "--factory", "nehanda.serve.app:create_app"]
    command += ["--port", str(port), "--log-level", "warning", *stack]
    process = subprocess.Popen(command, env=env)
    for _ in range(200):
        try:
            httpx.get(f"http://127.0.0.1:{port}/health", headers=AUTH)
            return process
        except httpx.HTTPError:
            time.sleep(0.05)
    raise SystemExit("serve did not start")


async def one_stream(
    client: httpx.AsyncClient, url: str, delays: list[float], chunks: list[int] | None = None
) -> None:
    body = {"model": "paced", "messages": HISTORY[:1], "tools": [TOOL], "stream": True}
    async with client.stream("POST", url + "/chat/completions", json=body) as answer:
        async for line in answer.aiter_lines():
            now = time.perf_counter()
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            if chunks is not None:
                chunks.append(1)
            delta = chunk["choices"][0]["delta"] if chunk.get("choices") else {}
            for stamp in (delta.get("content") or "").split():
                delays.append(now - float(stamp))


async def chunk_delays(url: str, streams: int) -> list[float]:
    delays: list[float] = []
    async with client(256) as c:
        await asyncio.gather(*(one_stream(c, url, delays) for _ in range(streams)))
    return delays


async def request_times(url: str, repeats: int) -> list[float]:
    body = {"model": "paced", "messages": HISTORY, "tools": [TOOL]}
    times = []
    async with httpx.AsyncClient(timeout=60, headers=AUTH) as client:
        for _ in range(repeats):
            start = time.perf_counter()
            answer = await client.post(url + "/chat/completions", json=body)
            answer.raise_for_status()
            times.append(time.perf_counter() - start)
    return times


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def cpu_per_chunk(process: subprocess.Popen[bytes], url: str, streams: int) -> float:
    """Milliseconds of ``process``'s CPU per chunk its clients read, over one round."""
    delays: list[float] = []
    chunks: list[int] = []
    before = cpu_seconds(process.pid)
    async with client(256) as c:
        await asyncio.gather(*(one_stream(c, url, delays, chunks) for _ in range(streams)))
    return 1000 * (cpu_seconds(process.pid) - before) / len(chunks)


def cpu_table(baseline: Path | None, rounds: int, streams: int = 20) -> None:
    paced = PacedUpstream(chunks=200, rate=50)
    stacks = {"h11/asyncio": ("--http", "h11", "--loop", "asyncio")}
    try:
        import httptools  # noqa: F401
        import uvloop  # noqa: F401

        stacks["httptools/uvloop"] = ("--http", "httptools", "--loop", "uvloop")
    except ImportError:
        pass
    trees = {"this tree": ROOT / "src", **({"baseline": baseline} if baseline else {})}
    servers = {}
    results: dict[tuple[str, str], list[float]] = {}
    try:  # a server that fails to start must not leave the others running
        for tree, src in trees.items():
            for stack, options in stacks.items():
                port = free_port()
                servers[(tree, stack)] = (start_serve(paced.base_url, port, src, options), port)
                results[(tree, stack)] = []
        for process, port in servers.values():  # warm each one
            asyncio.run(cpu_per_chunk(process, f"http://127.0.0.1:{port}/v1", 2))
        for _ in range(rounds):
            for key, (process, port) in servers.items():
                url = f"http://127.0.0.1:{port}/v1"
                results[key].append(asyncio.run(cpu_per_chunk(process, url, streams)))
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(10)
        paced.close()
    print(f"serve's CPU per streamed chunk at {streams} streams (ms), median of {rounds} rounds")
    print(f"{'tree':>10} {'uvicorn on':>17} {'median':>7} {'min':>7} {'max':>7}")
    for (tree, stack), values in results.items():
        print(
            f"{tree:>10} {stack:>17} {statistics.median(values):7.3f} "
            f"{min(values):7.3f} {max(values):7.3f}"
        )


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
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpu", action="store_true", help="serve's CPU per chunk")
    parser.add_argument("--baseline", type=Path, help="another tree's src folder")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    if options.cpu:
        cpu_table(options.baseline, options.rounds)
    else:
        main()
