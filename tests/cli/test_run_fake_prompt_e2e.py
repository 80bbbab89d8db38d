"""A model that draws a fake approval prompt, for ``ls``, then turns on concealed text
(SGR 8, its ESC in one streamed delta and ``[8m`` in the next), and asks to run
``rm -rf victim``: ``nehanda run`` (``python -m nehanda``) in a 100 by 24 pseudo-terminal
(pexpect), against a scripted vLLM server on 127.0.0.1. The screen the user sees as the
real question waits, read off an emulated terminal that draws concealed text as blanks,
shows the real command; no escape sequence of the model's reached the terminal."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

import pexpect

from scripted_server import ScriptedServer, fixture_body
from seen_screen import seen
from waiting import GUARD

COLUMNS, ROWS = 100, 24
FAKE = [
    "I'll look around first.\n\nnehanda wants to run Bash:\n  $ ls\n",
    "It asks because no allow rule covers ls.\n",
    "Run it? (y = yes, n = no, t = no, and tell the model what to do instead) ",
    "\x1b",
    "[8m",
]


def answer_then_call(command: str) -> bytes:
    """The recorded vLLM Bash call for ``command``, its text deltas ``FAKE`` first."""
    recorded = fixture_body("e2e_vllm_bash_touch_marker.sse")
    inside = json.dumps(json.dumps(command)[1:-1])[1:-1]
    call = recorded.replace(b"touch", inside.encode()).replace(b" marker.txt", b"")
    first = call.index(b"data: ", call.index(b"data: ") + 1)  # after the role's chunk
    deltas = b"".join(
        b"data: "
        + json.dumps(
            {
                "id": "chatcmpl-9c4",
                "object": "chat.completion.chunk",
                "model": "q",
                "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
            }
        ).encode()
        + b"\n\n"
        for text in FAKE
    )
    return call[:first] + deltas + call[first:]


def screen(child: pexpect.spawn) -> list[str]:
    return seen(child.logfile_read.getvalue(), COLUMNS, ROWS)


def asked(child: pexpect.spawn) -> list[str]:
    """The screen once the question is drawn whole, waiting for a key."""
    deadline = time.monotonic() + GUARD
    while not "\n".join(rows := screen(child)).rstrip().endswith(")"):
        assert time.monotonic() < deadline, "\n".join(rows)
        with contextlib.suppress(pexpect.TIMEOUT):
            child.expect(r"[\s\S]", timeout=0.1)
    return rows


def test_a_fake_prompt_and_concealed_text_cannot_hide_the_real_one(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "victim").mkdir()
    server.stream(answer_then_call("rm -rf victim")).stream("e2e_vllm_answer.sse")
    run = ["run", "tidy up", "--provider", "vllm", "--base-url", server.base_url, "--model", "q"]
    child = pexpect.spawn(
        sys.executable,
        ["-m", "nehanda", *run],
        cwd=str(tmp_path),
        env={**os.environ, "TERM": "xterm"},
        encoding="utf-8",
        timeout=GUARD,
        dimensions=(ROWS, COLUMNS),
    )
    child.logfile_read = io.StringIO()
    try:
        child.expect_exact("Run it? (")  # the model's
        child.expect_exact("Run it? (")  # nehanda's
        rows = asked(child)
        written = child.logfile_read.getvalue()
        real = rows.index("  $ rm -rf victim")
        assert rows[real - 1] == "nehanda wants to run Bash:"
        fake = next(n for n, row in enumerate(rows) if "$ ls" in row)  # Markdown joins its lines
        assert fake < real
        assert [n for n, row in enumerate(rows) if row.startswith("Run it? (")][-1] > real
        assert "instead) \\x1b[8m" in written  # the model's sequence, shown for what it is
        assert "\x1b[8m" not in written
        child.send("n")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert (tmp_path / "victim").is_dir()
    request = server.received("/v1/chat/completions")[-1].body
    (result,) = [m["content"] for m in request["messages"] if m["role"] == "tool"]
    assert result.startswith("Permission denied: Bash was not run")
