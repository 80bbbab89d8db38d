"""Start-up time of nehanda, side by side with its floor and, optionally, another tree.

Run by hand: ``python bench/startup.py [--runs N] [--baseline PATH_TO_OTHER_TREE]``.

One table, one row per measure, one column per tree (this one, and the ``--baseline``
tree, e.g. made with ``git worktree add /tmp/base HEAD`` before a change), with each
median's ratio to the floor, ``python -c "import httpx, click"``. Targets: a one-turn
``nehanda run`` against an instant local server, and the time until the REPL's prompt
appears in a pseudo-terminal, each under 2x the floor. The other rows say where the time
goes: ``--help``, a run's first request byte and its chat request's, and the chat request
against a server that answers the window question 50 ms late, as one across a network
does (what nehanda loads while it waits is not added to the 50 ms).

Every command runs as an installed nehanda runs for its user: with its bytecode cached.
``PYTHONDONTWRITEBYTECODE`` (set on some machines, this one among them) is left out of
the children's environment and one untimed run of each command writes the caches; an
editable install otherwise compiles nehanda's modules from source on every start, which
no installed copy does. Each tree runs as ``python -m nehanda`` with its own ``src`` first
on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import math
import os
import pty
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

# A server across a network answers the window question a round trip later: nehanda loads
# the rest of itself meanwhile, so its chat request should leave less than this later.
REMOTE_DELAY = 0.05
# prompt_toolkit turns bracketed paste on as it starts reading a prompt: the prompt is up.
PROMPT = b"\x1b[?2004h"

ANSWER = (
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},'
    b'"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
MODELS = b'{"object":"list","data":[{"id":"q","object":"model","max_model_len":32768}]}'
FLOOR = "floor: python -c 'import httpx, click'"


@dataclass
class FirstBytes:
    """A server on 127.0.0.1 that answers at once and notes when each request arrives."""

    first: list[float] = field(default_factory=list)  # any request
    chat: list[float] = field(default_factory=list)  # the chat completion itself
    window_delay: float = 0.0  # seconds before the window is answered (a remote server)

    def __post_init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            conn, _ = self.sock.accept()
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            data = conn.recv(65536)
            arrived = time.perf_counter()
            self.first.append(arrived)
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = _content_length(head)
            while len(body) < length:
                body += conn.recv(65536)
            if head.startswith(b"POST"):
                self.chat.append(arrived)
                status, kind, reply = b"200 OK", b"text/event-stream", ANSWER
            elif head.startswith(b"GET /v1/models "):  # as vLLM says its window
                status, kind, reply = b"200 OK", b"application/json", MODELS
                time.sleep(self.window_delay)
            else:
                status, kind, reply = b"404 Not Found", b"text/plain", b"not found"
            conn.sendall(
                b"HTTP/1.1 " + status + b"\r\nContent-Type: " + kind
                + b"\r\nConnection: close\r\nContent-Length: "
                + str(len(reply)).encode() + b"\r\n\r\n" + reply
            )  # fmt: skip


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


@dataclass
class Tree:
    """One source tree's nehanda, run in a private home against its own servers."""

    src: Path
    home: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="nehanda-bench-")))

    @property
    def env(self) -> dict[str, str]:
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        home = str(self.home)
        return {
            **cached,
            "PYTHONPATH": str(self.src),
            "HOME": home,
            "XDG_CONFIG_HOME": f"{home}/config",
            "XDG_STATE_HOME": f"{home}/state",
            "XDG_CACHE_HOME": f"{home}/cache",
            "TERM": "xterm",
        }

    def command(self, *args: str, url: str = "") -> list[str]:
        provider = ["--provider", "vllm", "--base-url", url, "--model", "q"] if url else []
        return [sys.executable, "-m", "nehanda", *args, *provider]

    def wall(self, command: list[str]) -> Sample:
        """Wall and CPU seconds of one run of ``command``."""
        started = time.perf_counter()
        child = subprocess.Popen(
            command, cwd=self.home, env=self.env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode:
            raise RuntimeError(f"{command} exited {child.returncode}")
        return Sample(time.perf_counter() - started, usage.ru_utime + usage.ru_stime)

    def requests(self, server: FirstBytes) -> tuple[Sample, Sample, Sample]:
        """A one-turn run, and when its first request and its chat arrived (wall only)."""
        server.first.clear()
        server.chat.clear()
        started = time.perf_counter()
        run = self.wall(self.command("run", "hi", url=server.url))
        first, chat = server.first[0] - started, server.chat[0] - started
        return run, Sample(first, math.nan), Sample(chat, math.nan)

    def prompt(self, server: FirstBytes) -> Sample:
        """Until the REPL's prompt is up in a 24x100 pseudo-terminal."""
        started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: exec at once
            os.chdir(self.home)
            command = self.command(url=server.url)
            os.execve(command[0], command, self.env)
        seen = b""
        try:
            while PROMPT not in seen:
                ready, _, _ = select.select([fd], [], [], 30)
                if not ready:
                    raise RuntimeError(f"no prompt after 30 s: {seen[-300:]!r}")
                seen += os.read(fd, 65536)
            wall = time.perf_counter() - started
            return Sample(wall, _cpu_seconds(pid))
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)


class Sample(NamedTuple):
    wall: float
    cpu: float  # user + system seconds of the process (nan: not measured)


def _cpu_seconds(pid: int) -> float:
    """User and system time of a running process (and its waited children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    ticks = sum(int(field) for field in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def samples(measure: Callable[[], Sample], runs: int) -> list[Sample]:
    measure()  # writes the bytecode caches, warms the disk cache
    return [measure() for _ in range(runs)]


def measures(tree: Tree, runs: int) -> dict[str, list[Sample]]:
    """Every row's samples for one tree."""
    local, remote = FirstBytes(), FirstBytes(window_delay=REMOTE_DELAY)
    rows: dict[str, list[Sample]] = {
        FLOOR: samples(lambda: tree.wall([sys.executable, "-c", "import httpx, click"]), runs),
        "nehanda --help": samples(lambda: tree.wall(tree.command("--help")), runs),
    }
    turns = [tree.requests(local) for _ in range(runs + 1)][1:]
    rows["nehanda run: one turn"] = [run for run, _, _ in turns]
    rows["  its first request byte"] = [first for _, first, _ in turns]
    rows["  its chat request byte"] = [chat for _, _, chat in turns]
    remote_turns = [tree.requests(remote) for _ in range(runs + 1)][1:]
    rows[f"  chat, window answered in {REMOTE_DELAY * 1000:.0f} ms"] = [
        chat for _, _, chat in remote_turns
    ]
    rows["REPL: prompt up (pty)"] = samples(lambda: tree.prompt(local), runs)
    shutil.rmtree(tree.home, ignore_errors=True)
    return rows


def table(columns: dict[str, dict[str, list[Sample]]]) -> None:
    """Median wall and CPU ms and their ratios to the floor's, per tree."""
    head = f"{'measure':40}" + "".join(f" | {name[-33:]:>33}" for name in columns)
    sub = f"{'':40}" + f" | {'wall ms':>9} {'x':>5} {'cpu ms':>9} {'x':>5}" * len(columns)
    print(head + "\n" + sub + "\n" + "-" * len(head))
    for row in next(iter(columns.values())):
        cells = ""
        for rows in columns.values():
            floor = [statistics.median(s) for s in zip(*rows[FLOOR], strict=True)]
            for value, base in zip(
                map(statistics.median, zip(*rows[row], strict=True)), floor, strict=True
            ):
                if math.isnan(value):
                    cells += f"{'':16}"
                else:
                    cells += f" {value * 1000:9.0f} {value / base:5.2f}"
            cells += " |"
        print(f"{row:40} |" + cells.rstrip("|"))
    print("\nmedians; x: to the floor's; targets: one turn and the prompt under 2.00x the floor")
    print("(on a loaded machine the CPU times are the steadier measure)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--baseline", type=Path, help="another tree to compare with")
    args = parser.parse_args()
    trees = {"this tree": Path(__file__).resolve().parent.parent}
    if args.baseline:
        trees[f"baseline {args.baseline}"] = args.baseline.resolve()
    columns = {name: measures(Tree(root / "src"), args.runs) for name, root in trees.items()}
    table(columns)


if __name__ == "__main__":
    main()
