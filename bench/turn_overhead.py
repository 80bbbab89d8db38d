"""Engine overhead per turn for a 10-tool request, against a server that answers at once.

Run by hand: ``python bench/turn_overhead.py [turns]``. A raw asyncio HTTP server on
127.0.0.1 answers every chat request instantly with a recorded SSE body (one call to
a no-op tool, then a final answer). The table shows wall time per turn through the
real OpenAI-compatible adapter, and per turn with the HTTP layer replaced by a
scripted in-process provider, for native and rescue modes. Target: under 5 ms.

The second table grows one conversation to about 1 MB of tool results (100 prompts, each
reading 10 kB) and compares the engine's time per turn at its start and at its end, in
process, with context accounting on (a window large enough that nothing is compacted).
Target: turn 100 at most 1.5x turn 1.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

from nehanda.config.settings import ProviderConfig
from nehanda.engine.context import ContextKeeper, TokenCounter
from nehanda.engine.loop import Agent
from nehanda.events import MessageEnd, StreamEvent, TextDelta, ToolUseEnd
from nehanda.providers.base import Capabilities, ChatRequest, Provider
from nehanda.providers.calling import ToolCalling
from nehanda.providers.mode import Mode
from nehanda.providers.openai_compat import OpenAICompatProvider
from nehanda.tools.registry import check_call
from nehanda.types import CheckedCall, ToolResult, ToolSpec, ToolUse, Usage

TURNS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
STREAMS = Path(__file__).parent.parent / "tests" / "fixtures" / "streams"
FILLERS = tuple(
    ToolSpec(
        f"Tool{i}",
        f"Tool number {i}: does something useful with a path and a pattern.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Where to work."},
                "pattern": {"type": "string", "description": "What to look for."},
                "limit": {"type": "integer", "default": 100},
            },
            "required": ["path"],
        },
    )
    for i in range(9)
)
TOOLS = (
    *FILLERS,
    ToolSpec(
        "Read", "Reads a file.", {"type": "object", "properties": {"file_path": {"type": "string"}}}
    ),
)


def sse_body(name: str) -> bytes:
    return (STREAMS / name).read_bytes()


async def serve(bodies: list[bytes]) -> tuple[asyncio.Server, int]:
    served = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal served
        while not reader.at_eof():
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
            body = bodies[served % len(bodies)]
            served += 1
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


class BigResults:
    """The ten tools; every call answered with 10 kB of file-like text."""

    specs = TOOLS
    check = staticmethod(check_call)

    async def run(self, checked: CheckedCall) -> ToolResult:
        line = "    def handle(self, event: StreamEvent) -> list[StreamEvent]:  # line\n"
        return ToolResult(checked.use.id, line * (10_000 // len(line)))

    def plain_output(self, content: str) -> str:
        return content


class NoOpTools:
    """The ten tools offered, each call checked as the built-ins check it, none run."""

    specs = TOOLS
    check = staticmethod(check_call)

    async def run(self, checked: CheckedCall) -> ToolResult:
        return ToolResult(checked.use.id, "ok")

    def plain_output(self, content: str) -> str:
        return content


class Instant:
    """In-process provider: the same events every time, no HTTP."""

    name = type = "instant"

    def __init__(self, replies: list[list[StreamEvent]]) -> None:
        self.replies, self.count = replies, 0

    async def capabilities(self, model: str) -> Capabilities:
        return Capabilities()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        reply = self.replies[self.count % len(self.replies)]
        self.count += 1
        for event in reply:
            yield event

    async def aclose(self) -> None:
        pass


async def per_turn(provider: Provider, mode: Mode) -> float:
    samples = []
    for run in range(TURNS // 2):
        agent = Agent(ToolCalling(provider, mode), "m", NoOpTools())
        started = time.perf_counter()
        async for _ in agent.run(f"run {run}"):
            pass
        samples.append((time.perf_counter() - started) / 2)
    return statistics.median(samples) * 1000


async def growth(provider: Provider, mode: Mode, prompts: int = 100) -> tuple[float, float, int]:
    """Median ms per turn over the first and the last five prompts of one conversation
    that grows by 10 kB a prompt, and its final size in bytes."""
    keeper = ContextKeeper(2_000_000, TokenCounter(3.2))
    calling = ToolCalling(provider, mode)
    agent = Agent(calling, "m", BigResults(), max_turns=4, context=keeper)
    times = []
    for run in range(prompts):
        started = time.perf_counter()
        async for _ in agent.run(f"run {run}"):
            pass
        times.append((time.perf_counter() - started) / 2 * 1000)
    size = sum(len(r.content) for m in agent.messages for r in m.tool_results)
    return statistics.median(times[:5]), statistics.median(times[-5:]), size


async def main() -> None:
    call = ToolUse("c1", "Read", {"file_path": "README.md"})
    native_events = [
        [ToolUseEnd(0, call), MessageEnd("tool_use", Usage(1, 1))],
        [TextDelta("done"), MessageEnd("end_turn")],
    ]
    rescue_text = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "README.md"}}[/TOOL_CALL]'
    rescue_events = [
        [TextDelta(rescue_text), MessageEnd("end_turn")],
        [TextDelta("done"), MessageEnd("end_turn")],
    ]
    server, port = await serve(
        [sse_body("e2e_vllm_read_readme.sse"), sse_body("e2e_vllm_answer.sse")]
    )
    rescue_server, rescue_port = await serve(
        [sse_body("nehanda_cloud_tool_call_split.sse"), sse_body("nehanda_cloud_answer.sse")]
    )

    def http(port: int) -> OpenAICompatProvider:
        config = ProviderConfig(name="bench", type="vllm", base_url=f"http://127.0.0.1:{port}/v1")
        return OpenAICompatProvider(config)

    native_http, rescue_http = http(port), http(rescue_port)
    grown: list[tuple[str, Provider, Mode]] = [
        ("native, in-process", Instant(native_events), "native"),
        ("rescue, in-process", Instant(rescue_events), "rescue"),
        ("native, HTTP (openai_compat)", http(port), "native"),
        ("rescue, HTTP (openai_compat)", http(rescue_port), "rescue"),
    ]
    growth_rows = [(name, *await growth(provider, mode)) for name, provider, mode in grown]
    rows = [
        ("native, HTTP (openai_compat)", await per_turn(native_http, "native")),
        ("rescue, HTTP (openai_compat)", await per_turn(rescue_http, "rescue")),
        ("native, in-process", await per_turn(Instant(native_events), "native")),
        ("rescue, in-process", await per_turn(Instant(rescue_events), "rescue")),
    ]
    for _, provider, _ in grown:
        await provider.aclose()
    for provider in (native_http, rescue_http):
        await provider.aclose()
    await asyncio.sleep(0.05)  # let the handlers see their clients hang up
    for listening in (server, rescue_server):
        listening.close()
        await listening.wait_closed()
    print(f"10 tools, {TURNS} turns each; median wall time per turn")
    print(f"{'path':32} {'ms/turn':>8}")
    for name, ms in rows:
        print(f"{name:32} {ms:8.2f}")
    print()
    print("one conversation growing to ~1 MB of tool results; ms per turn (HTTP rows add")
    print("sending the whole body, which grows with it, and are shown for comparison)")
    print(f"{'path':32} {'turn 1':>8} {'turn 100':>9} {'ratio':>6} {'MB':>5}")
    for name, first, last, size in growth_rows:
        print(f"{name:32} {first:8.2f} {last:9.2f} {last / first:6.2f} {size / 1e6:5.2f}")


if __name__ == "__main__":
    asyncio.run(main())
