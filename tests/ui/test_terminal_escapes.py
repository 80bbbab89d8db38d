"""What a model writes cannot drive the terminal in ``nehanda run``: its answer, written
to a real pseudo-terminal, arrives with every escape sequence, C1 control and carriage
return shown escaped (``ui.shown_text.printable``, the REPL's own), however the stream
splits it; into a pipe it arrives byte for byte; the reasoning and notes on stderr are
escaped too; the JSON formats escape C1 controls; and the approval prompt shows the call
legibly whatever state something else left the terminal in."""

from __future__ import annotations

import asyncio
import io
import json
import os
import pty
import re
import select
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakes import checked
from nehanda.cli.error_text import show_error
from nehanda.events import ReasoningDelta, RunFinished, TextDelta
from nehanda.types import ToolUse, Usage
from nehanda.ui.approval import TerminalApprover
from nehanda.ui.json_output import JsonOutput, RunDescription
from nehanda.ui.terminal import TerminalOutput
from nehanda.verdicts import Ask
from seen_screen import seen

END = "<<that is all>>"


class Terminal:
    """A pseudo-terminal: ``screen`` is its side a program writes to (and reads keys from);
    ``received`` is what reached the other side, where a terminal emulator reads."""

    def __init__(self) -> None:
        self.master, slave = pty.openpty()
        tty.setraw(slave)  # no "\n" made "\r\n": what is read is what was written
        self.screen: IO[str] = os.fdopen(slave, "w", encoding="utf-8")
        self.keys: IO[str] = os.fdopen(os.dup(slave), "r", encoding="utf-8")
        self._read = b""

    def received(self) -> str:
        """Everything written so far."""
        self.screen.write(END)
        self.screen.flush()
        return self.until(END).removesuffix(END)

    def until(self, text: str) -> str:
        """What was written up to and including the first ``text`` not read yet."""
        wanted = text.encode()
        while wanted not in self._read:
            assert select.select([self.master], [], [], 10)[0], self._read
            self._read += os.read(self.master, 1 << 16)
        end = self._read.index(wanted) + len(wanted)
        done, self._read = self._read[:end], self._read[end:]
        return done.decode()

    def close(self) -> None:
        os.close(self.master)
        self.screen.close()
        self.keys.close()


@contextmanager
def a_terminal() -> Iterator[Terminal]:
    opened = Terminal()
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    with a_terminal() as opened:
        yield opened


def answered(
    text: str | list[str], out: IO[str], err: IO[str] | None = None, *, rendered: bool = False
) -> None:
    """``text`` streamed as ``nehanda run --output text`` writes an answer, in deltas: as
    plain text (``NO_COLOR``), or ``rendered`` as Markdown, as on a colour terminal."""
    with patch.dict(os.environ, {"TERM": "xterm"}):
        if not rendered:
            os.environ["NO_COLOR"] = "1"
        else:
            os.environ.pop("NO_COLOR", None)
        output = TerminalOutput(out, err or io.StringIO())
    for delta in [text] if isinstance(text, str) else text:
        output.handle(TextDelta(delta))
    if rendered:  # the answer's last block shows once the run ends
        output.handle(RunFinished("", 1, "stop", Usage()))


ATTACKS = [  # what it would do, the model's text, what the terminal receives
    ("conceal what follows", "ok\x1b[8m", "ok\\x1b[8m"),
    ("clipboard", "\x1b]52;c;cm0gLXJmIH4=\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07"),
    ("window title", "\x1b]0;sudo\x07\x1b]2;x\x1b\\", "\\x1b]0;sudo\\x07\\x1b]2;x\\x1b\\"),
    ("hyperlink", "\x1b]8;;http://evil\x1b\\docs", "\\x1b]8;;http://evil\\x1b\\docs"),
    ("cursor up, erase line", "a\n\x1b[1A\x1b[2K", "a\n\\x1b[1A\\x1b[2K"),
    ("cursor to the top", "\x1b[H\x1b[2J", "\\x1b[H\\x1b[2J"),
    ("overwrite the line", "rm -rf ~\rls      ", "rm -rf ~ls      "),
    ("C1 CSI", "\x9b8m\x9b2J", "\\x9b8m\\x9b2J"),
    ("C1 OSC and ST", "\x9d52;c;eA==\x9c", "\\x9d52;c;eA==\\x9c"),
    ("backspaces, DEL, bell", "rm\x08\x08ls\x7f\x07", "rm\\x08\\x08ls\\x7f\\x07"),
    ("scroll region, charset", "\x1b[1;1r\x1b(0\x0e", "\\x1b[1;1r\\x1b(0\\x0e"),
    ("tabs and newlines stay", "a\tb\r\nc\n", "a\tb\nc\n"),
]


@pytest.mark.parametrize(("what", "text", "shown"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_the_answer_reaches_a_terminal_escaped(
    terminal: Terminal, what: str, text: str, shown: str
) -> None:
    answered(text, terminal.screen)
    assert terminal.received() == shown


def test_the_answer_rendered_as_markdown_lets_no_control_through(terminal: Terminal) -> None:
    """On a colour terminal the answer is Markdown drawn by rich: the model's controls are
    shown escaped in it, and the only sequences that arrive are rich's own styles."""
    answered([text for _, text, _ in ATTACKS], terminal.screen, rendered=True)
    received = terminal.received()
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in received and "\\x9b8m" in received
    ours = re.sub(r"\x1b\[[0-9;]*m", "", received)
    assert not any(char in ours for char in "\x1b\r\x7f")
    assert not any(0x80 <= ord(char) <= 0x9F for char in ours)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_no_split_of_an_attack_lets_a_control_through(data: st.DataObject) -> None:
    """ESC in one delta and ``[8m`` in the next, a C1 in a delta of its own…: whatever
    the deltas, the terminal gets no ESC, no C1, no carriage return, and the text shown
    is the same as for the answer in one piece."""
    pieces = data.draw(st.lists(st.sampled_from([a[1] for a in ATTACKS] + ["x"]), min_size=1))
    text = "".join(pieces)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=len(text))))
    deltas = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    with a_terminal() as split, a_terminal() as whole:
        answered(deltas, split.screen)
        answered(text, whole.screen)
        received = split.received()
        assert received == whole.received()
    assert not any(char in received for char in "\x1b\r\x7f")
    assert not any(0x80 <= ord(char) <= 0x9F for char in received)


def test_into_a_pipe_the_answer_is_the_models_text_byte_for_byte(tmp_path: Path) -> None:
    text = "colours: \x1b[31mred\x1b[0m\r\nbell \x07 and \x9b\n"
    reading, writing = os.pipe()
    with os.fdopen(writing, "w", encoding="utf-8") as pipe:
        answered(["colours: \x1b", "[31mred\x1b[0m\r", "\nbell \x07 and \x9b\n"], pipe)
    with os.fdopen(reading, encoding="utf-8", newline="") as got:
        assert got.read() == text


def test_reasoning_and_notes_on_a_terminal_are_escaped(
    terminal: Terminal, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("NO_COLOR", raising=False)
    output = TerminalOutput(io.StringIO(), terminal.screen)
    output.handle(ReasoningDelta("thinking\x1b]0;pwned\x07\x1b[8m"))
    output.note("the server said \x1b[2J")
    output.error("and \x9b8m")
    received = terminal.received()
    assert "\\x1b]0;pwned\\x07\\x1b[8m" in received and "\\x1b[2J" in received
    assert "\\x9b8m" in received
    # nehanda's own styles only: the reasoning dimmed, the labels coloured, each reset
    assert received.count("\x1b") == received.count("\x1b[0m") * 2


def test_an_error_line_on_a_terminal_is_escaped_and_into_a_pipe_kept(
    terminal: Terminal, tmp_path: Path
) -> None:
    body = "HTTP 401: \x1b]52;c;cm0gLXJmIH4=\x07\x1b[8m bad key"
    show_error(body, terminal.screen)
    received = terminal.received()
    assert "\x1b" not in received and "\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[8m bad key" in received
    piped = tmp_path / "stderr"
    with piped.open("w", encoding="utf-8") as stream:
        show_error(body, stream)
    assert piped.read_text(encoding="utf-8") == f"error: {body}\n"


def test_the_json_formats_escape_c1_controls_and_mean_the_same() -> None:
    out = io.StringIO()
    output = JsonOutput(out, io.StringIO(), RunDescription("vllm", "q", "native", "s"), True)
    text = "\x9b8m\x9d0;title\x9c \x1b[8m \x7f é\n"
    output.handle(TextDelta(text))
    line = out.getvalue()
    assert not any(0x7F <= ord(char) <= 0x9F or char == "\x1b" for char in line)
    assert "é" in line  # not made ASCII: only what a terminal acts on is escaped
    assert json.loads(line) == {"type": "text", "text": text}


# -- the approval prompt, after something else left the terminal in a state -------------

LEFT_SET = {
    "concealed text": "\x1b[8m",
    "a two-row scroll region at the bottom": "\x1b[23;24r\x1b[24;1H",
    "the line-drawing character set": "\x1b(0",
    "shifted to G1, the line-drawing set": "\x1b)0\x0e",
}


@pytest.mark.parametrize("state", LEFT_SET.values(), ids=LEFT_SET.keys())
def test_the_approval_prompt_shows_the_call_whatever_state_the_terminal_was_left_in(
    terminal: Terminal, tmp_path: Path, state: str
) -> None:
    """As if the model's answer had reached the terminal raw (through ``| tee``, say),
    after a fake prompt for ``ls``: the real one still shows ``rm -rf`` as written."""
    fake = "nehanda wants to run Bash:\n  $ ls\nRun it? (y = yes, n = no) "
    terminal.screen.write("".join(f"earlier {n}\n" for n in range(30)) + fake + state)
    approver = TerminalApprover(terminal.keys, terminal.screen, tmp_path, size=(80, 24))

    async def ask() -> None:
        asking = asyncio.ensure_future(
            approver.ask(
                checked(ToolUse("c1", "Bash", {"command": "rm -rf ~"})), Ask("commands ask")
            )
        )
        shown = await asyncio.to_thread(terminal.until, "what to do instead")
        shown += await asyncio.to_thread(terminal.until, ") ")
        os.write(terminal.master, b"n")
        assert not (await asking).run
        rows = seen(shown, utf8=False)
        assert "  $ rm -rf ~" in rows, "\n".join(rows)
        assert rows[rows.index("  $ rm -rf ~") - 1] == "nehanda wants to run Bash:"
        assert rows[-1].startswith("Run it? (")  # drawn where the cursor was, the bottom

    asyncio.run(ask())
