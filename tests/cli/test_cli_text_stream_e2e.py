"""``nehanda run --output text`` into a pipe streams: each delta is written and flushed
as it arrives (``nehanda run ... | tee log``), and a cut-off stream leaves its partial
answer on stdout."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from cli_process import nehanda
from scripted_server import Reply, ScriptedServer, fixture_body

STALL = 4.0


def answer_body() -> tuple[bytes, int]:
    """The recorded answer, and where its second text delta starts."""
    body = fixture_body("e2e_vllm_answer.sse")
    return body, body.index(b"data: ", body.index(b"Install it with "))


def test_piped_answer_streams_before_the_stream_ends(
    server: ScriptedServer, tmp_path: Path
) -> None:
    body, second = answer_body()
    server.reply(
        # In pieces of 32 bytes; the stall comes in the piece after the one holding
        # ``second``, so the first delta has been sent whole.
        Reply(200, body, {"Content-Type": "text/event-stream"}, 32, 0.0, second + 32, STALL)
    )
    command = [sys.executable, "-m", "nehanda", "run", "hi", "--provider", "vllm"]
    command += ["--base-url", server.base_url, "--model", "q"]
    started = time.monotonic()
    child = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, env=dict(os.environ),
    )  # fmt: skip
    assert child.stdout is not None
    first = os.read(child.stdout.fileno(), 1)
    first_at = time.monotonic() - started
    rest, stderr = child.communicate(timeout=60)
    ended_at = time.monotonic() - started
    assert child.returncode == 0, stderr
    assert first + rest == b"Install it with `pip install widget`.\n"
    # The first byte came with the first delta, while the server still stalled.
    assert ended_at - first_at > STALL / 2, (first_at, ended_at)


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
