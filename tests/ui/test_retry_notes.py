"""A retry is a note in every output mode: the REPL, ``run``'s text, and the JSON formats."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from nehanda.events import Retrying, TurnStarted
from nehanda.ui.json_output import JsonOutput, RunDescription
from nehanda.ui.live import LiveRenderer
from nehanda.ui.summary import describe_retry
from nehanda.ui.terminal import TerminalOutput

RETRY = Retrying(2.0, 2, 4, "HTTP 503")


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (RETRY, "retrying in 2 s (HTTP 503, attempt 2 of 4)"),
        (Retrying(1.37, 3, 4, "HTTP 429"), "retrying in 1.4 s (HTTP 429, attempt 3 of 4)"),
        (Retrying(0.3, 2, 6, "connection refused"), "retrying in 0.3 s (connection refused, "
         "attempt 2 of 6)"),
        (Retrying(12.4, 4, 4, "HTTP 529"), "retrying in 12 s (HTTP 529, attempt 4 of 4)"),
    ],
)  # fmt: skip
def test_the_retry_line(event: Retrying, line: str) -> None:
    assert describe_retry(event) == line


def test_the_repl_shows_a_retry_as_a_note() -> None:
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=80), Path())
    with renderer.turn("qwen"):
        renderer.handle(TurnStarted(1))
        renderer.handle(RETRY)
    assert "note: retrying in 2 s (HTTP 503, attempt 2 of 4)" in out.getvalue()


def test_run_text_shows_a_retry_on_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    TerminalOutput(out, err).handle(RETRY)
    assert (out.getvalue(), err.getvalue()) == (
        "",
        "note: retrying in 2 s (HTTP 503, attempt 2 of 4)\n",
    )


def test_stream_json_shows_a_retry_as_an_event_and_on_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    JsonOutput(out, err, RunDescription("vllm", "q", "native", "s1"), stream=True).handle(RETRY)
    assert json.loads(out.getvalue()) == {
        "type": "retry", "delay": 2.0, "attempt": 2, "attempts": 4, "reason": "HTTP 503"
    }  # fmt: skip
    assert err.getvalue() == "note: retrying in 2 s (HTTP 503, attempt 2 of 4)\n"
