"""What a person sees at 80 and 120 columns, driven for real: ``nehanda run`` and the REPL
in a pseudo-terminal (pexpect) against a scripted vLLM server on 127.0.0.1, the screen
read off an emulated terminal (pyte). Prose breaks between words, never inside one; the
answer of ``nehanda run`` is rendered Markdown on a terminal and the model's text byte
for byte into a pipe."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import pexpect
import pytest

from cli_process import nehanda
from repl_process import spawn_repl
from scripted_calls import calls_stream, chunk, text_stream
from scripted_server import ScriptedServer
from seen_screen import seen
from waiting import GUARD

# Long enough to wrap at 120 columns, its words of many lengths so that a break by
# columns would land inside one.
SENTENCE = (
    "When the marmalade thermometer hesitates, seventeen quizzical archivists "
    "recalibrate their unexpectedly luminous typewriters beside the crumbling "
    "observatory wall overlooking Kilimanjaro"
)
ROWS = 60
PROMPT = "\x1b[?2004h"
ANSWER = (
    "# Setup guide\n\nUse **bold claims** sparingly, and `inline code` too.\n\n"
    "```python\nprint('hi')\n```\n"
)


def whole_sentences(rows: list[str]) -> int:
    """How many times ``SENTENCE`` shows on ``rows`` with every word whole (read across
    the rows' breaks, the preview's gutter left out)."""
    words = [word for word in " ".join(rows).split() if word != "│"]
    return " ".join(words).count(SENTENCE)


def screen(child: pexpect.spawn, columns: int) -> list[str]:
    return seen(child.logfile_read.getvalue(), columns, ROWS)


def answer_after_a_call(text: str) -> bytes:
    """One message saying ``text`` and then calling Bash ``true``."""
    head = {"id": "call-0", "type": "function", "index": 0, "function": {"name": "Bash"}}
    arguments = {"index": 0, "function": {"arguments": json.dumps({"command": "true"})}}
    parts = [chunk({"role": "assistant", "content": ""}), chunk({"content": text})]
    parts += [chunk({"tool_calls": [head]}), chunk({"tool_calls": [arguments]})]
    parts.append(chunk({"content": ""}, "tool_calls"))
    return ("".join(parts) + "data: [DONE]\n\n").encode()


@pytest.mark.parametrize("columns", [80, 120])
def test_run_breaks_its_plan_and_an_error_between_words(
    server: ScriptedServer, tmp_path: Path, columns: int
) -> None:
    plan = [{"content": SENTENCE, "status": "pending", "activeForm": "Pondering"}]
    server.stream(calls_stream([("TodoWrite", {"todos": plan})]))
    server.stream(calls_stream([("Bash", {"command": f"echo '{SENTENCE}' >&2; exit 3"})]))
    server.stream(text_stream(f"Done: {SENTENCE}.\n"))
    child = spawn_repl(
        server.base_url, tmp_path, "--yes", rows=ROWS, columns=columns, command=("run", "go")
    )
    child.expect(pexpect.EOF)
    rows = screen(child, columns)
    # The plan's item, the error under its tool line, the answer: each whole.
    assert whole_sentences(rows) == 3, "\n".join(rows)
    assert any(row.startswith("  │ ") and "(exit code 3)" in row for row in rows)


@pytest.mark.parametrize("columns", [80, 120])
def test_the_approvals_reason_and_question_break_between_words(
    server: ScriptedServer, tmp_path: Path, columns: int
) -> None:
    server.stream(calls_stream([("Bash", {"command": f"echo '{SENTENCE}'"})]))
    server.stream(text_stream("ok"))
    child = spawn_repl(server.base_url, tmp_path, rows=ROWS, columns=columns)
    child.expect_exact(PROMPT)
    child.send("say it\r")
    child.expect_exact("Run it? (")
    deadline = time.monotonic() + GUARD
    while not "\n".join(rows := screen(child, columns)).rstrip().endswith(")"):
        assert time.monotonic() < deadline, "\n".join(rows)
        with contextlib.suppress(pexpect.TIMEOUT):
            child.expect(r"[\s\S]", timeout=0.1)
    reason = next(n for n, row in enumerate(rows) if row.startswith("It asks because"))
    question = next(n for n, row in enumerate(rows) if row.startswith("Run it? ("))
    assert whole_sentences(rows[reason:question]) == 1, "\n".join(rows)
    asked = " ".join(rows[question:])
    assert "(y = yes, n = no, t = no, and tell the model what to do instead, a =" in asked
    assert all(len(row) <= columns for row in rows)
    child.send("n")
    child.expect_exact(PROMPT)
    child.close(force=True)


def test_run_at_a_terminal_renders_the_markdown_in_order_with_its_tool_lines(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(answer_after_a_call("Let me **check** first.\n"))
    server.stream(text_stream(ANSWER))
    child = spawn_repl(
        server.base_url, tmp_path, "--yes", rows=ROWS, columns=80, command=("run", "go")
    )
    child.expect(pexpect.EOF)
    rows = [row for row in screen(child, 80) if row.strip()]
    shown = "\n".join(rows)
    assert "**" not in shown and "```" not in shown and "# Setup" not in shown, shown
    checked = rows.index("Let me check first.")
    tool = next(n for n, row in enumerate(rows) if row.startswith("✓ Bash true"))
    heading = next(n for n, row in enumerate(rows) if row.strip() == "Setup guide")
    assert checked < tool < heading
    said = next(row for row in rows[heading:] if "bold claims" in row)
    assert said.startswith("Use bold claims sparingly, and inline code too.")
    assert any(row.strip() == "print('hi')" for row in rows[heading:])


def test_run_piped_or_with_no_color_gives_the_markdown_as_the_model_wrote_it(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(text_stream(ANSWER)).stream(text_stream(ANSWER))
    piped = nehanda(
        "run", "go", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        cwd=tmp_path,
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == ANSWER
    child = spawn_repl(
        server.base_url, tmp_path, rows=ROWS, env={"NO_COLOR": "1"}, command=("run", "go")
    )
    child.expect(pexpect.EOF)
    assert "Use **bold claims** sparingly, and `inline code` too." in screen(child, 100)


def test_run_interrupted_at_a_terminal_keeps_the_rendered_answer_so_far(
    server: ScriptedServer, tmp_path: Path
) -> None:
    said = "# Partial heading\n\nFirst paragraph is **done**.\n\nSecond"
    head = chunk({"role": "assistant", "content": ""}) + chunk({"content": said})
    rest = chunk({"content": " half"}) + chunk({"content": ""}, "stop") + "data: [DONE]\n\n"
    body = (head + rest).encode()
    sent = len(head.encode())  # in one piece; the rest is held until the test ends
    server.stream(body, piece=sent, stall_after=sent, held=server.released)
    child = spawn_repl(server.base_url, tmp_path, rows=ROWS, command=("run", "go"))
    child.expect("Partial heading")  # printed once the block after it began
    child.sendintr()
    child.expect(pexpect.EOF)
    rows = [row.strip() for row in screen(child, 100)]
    # The paragraph, still open when Ctrl-C came, rendered on the way out.
    assert rows.index("First paragraph is done.") > rows.index("^C")
    assert "interrupted" in rows and not any("**" in row for row in rows)


def test_run_at_a_terminal_shows_the_prose_before_a_call_before_its_question(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(answer_after_a_call("Let me **check** first.\n"))
    server.stream(text_stream(ANSWER))
    child = spawn_repl(server.base_url, tmp_path, rows=ROWS, command=("run", "go"))
    child.expect_exact("Run it? (")
    child.send("y")
    child.expect(pexpect.EOF)
    rows = screen(child, 100)
    question = next(n for n, row in enumerate(rows) if row.startswith("Run it? ("))
    assert rows.index("Let me check first.") < question
