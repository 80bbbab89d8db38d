"""``nehanda run --output text`` into a pipe streams: each delta is written and flushed
as it arrives (``nehanda run ... | tee log``), and a cut-off stream leaves its partial
answer on stdout."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

from cli_process import nehanda
from scripted_server import Reply, ScriptedServer, fixture_body
from waiting import GUARD


def answer_body() -> tuple[bytes, int]:
    """The recorded answer, and where its second text delta starts."""
    body = fixture_body("e2e_vllm_answer.sse")
    return body, body.index(b"data: ", body.index(b"Install it with "))


def test_piped_answer_streams_before_the_stream_ends(
    server: ScriptedServer, tmp_path: Path
) -> None:
    body, second = answer_body()
    # In pieces of 32 bytes; the rest is held back from the piece after the one holding
    # ``second``, so the first delta has been sent whole, until the test has read it.
    server.stream(body, piece=32, stall_after=second + 32, held=server.released)
    command = [sys.executable, "-m", "nehanda", "run", "hi", "--provider", "vllm"]
    command += ["--base-url", server.base_url, "--model", "q"]
    child = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, env=dict(os.environ),
    )  # fmt: skip
    assert child.stdout is not None
    # The first delta is written while the server still holds the rest back.
    readable, _, _ = select.select([child.stdout], [], [], GUARD)
    assert readable, "nothing was written before the stream ended"
    first = os.read(child.stdout.fileno(), 1)
    server.released.set()
    rest, stderr = child.communicate(timeout=GUARD)
    assert child.returncode == 0, stderr
    assert first + rest == b"Install it with `pip install widget`.\n"


def test_cut_off_stream_still_prints_the_partial_answer(
    server: ScriptedServer, tmp_path: Path
) -> None:
    body, second = answer_body()
    server.reply(Reply(200, body[:second], {"Content-Type": "text/event-stream"}, cut=True))
    done = nehanda(
        "run", "hi", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == "Install it with \n"
    assert done.stderr.startswith("error: ")
