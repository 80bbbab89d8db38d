"""What keys mean while a REPL turn runs (``TypeAhead``): tables and properties; and
``TurnKeys`` reading them off a real pseudo-terminal, sent as terminals send them."""

from __future__ import annotations

import asyncio
import os
import pty
import signal
import termios
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys

from nehanda.cli.turn_keys import TurnKeys, TypeAhead


def typed(*keys: str | Keys, paste: str | None = None) -> TypeAhead:
    ahead = TypeAhead()
    for key in keys:
        ahead.key(KeyPress(key))
    if paste is not None:
        ahead.key(KeyPress(Keys.BracketedPaste, paste))
    return ahead


def test_shift_tab_and_esc_ask_the_turn_and_type_nothing() -> None:
    ahead = TypeAhead()
    assert ahead.key(KeyPress(Keys.BackTab)) == "cycle"
    assert ahead.key(KeyPress(Keys.Escape)) == "stop"
    assert (ahead.queued, ahead.line) == ([], "")


def test_enter_queues_the_line_and_blank_lines_queue_nothing() -> None:
    ahead = typed(*"run the tests", Keys.ControlM, Keys.ControlM, *"  ", Keys.ControlJ, *"and")
    assert ahead.queued == ["run the tests"] and ahead.line == "and"


def test_backspace_and_ctrl_u_edit_the_line() -> None:
    assert typed(*"tesst", Keys.ControlH, Keys.ControlH, "t").line == "test"
    assert typed(*"oops", Keys.ControlU, *"ok").line == "ok"
    assert typed(Keys.ControlH).line == ""


def test_a_paste_keeps_its_newlines_and_queues_nothing() -> None:
    ahead = typed(*"look: ", paste="line one\r\nline two\rthree")
    assert ahead.queued == [] and ahead.line == "look: line one\nline two\nthree"


def test_keys_that_type_nothing_are_ignored() -> None:
    assert typed(Keys.Up, Keys.ControlA, Keys.Tab, "\x07").line == ""


def test_take_back_returns_everything_typed_and_empties_the_queue() -> None:
    ahead = typed(*"first", Keys.ControlM, *"second")
    assert ahead.take_back() == "first\nsecond"
    assert (ahead.queued, ahead.line) == ([], "")
    assert typed(*"only", Keys.ControlM).take_back() == "only"


@given(st.text(alphabet=st.characters(categories=("L", "N", "P", "S", "Zs")), max_size=40))
def test_what_is_typed_then_entered_is_queued_as_typed(text: str) -> None:
    ahead = typed(*text, Keys.ControlM)
    assert ahead.queued == ([text] if text.strip() else []) and ahead.line == ""


# TurnKeys on a real pseudo-terminal: what the terminal sends, as it sends it.


@dataclass
class Terminal:
    master: int
    keys: TurnKeys
    asked: list[str] = field(default_factory=list)

    async def send(self, *chunks: bytes, gap: float = 0.01) -> None:
        """Writes each chunk as the terminal would, then waits past the Esc wait."""
        for chunk in chunks:
            os.write(self.master, chunk)
            await asyncio.sleep(gap)
        await asyncio.sleep(0.15)


def on_a_terminal(test: Callable[[Terminal, TypeAhead], Awaitable[None]]) -> None:
    """Runs ``test`` inside one turn's ``TurnKeys.reading`` on a fresh pseudo-terminal."""
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "r")

    async def turn() -> None:
        terminal = Terminal(master, None)  # type: ignore[arg-type]
        asked = terminal.asked
        terminal.keys = TurnKeys(
            stream, lambda: asked.append("cycle"), lambda: asked.append("stop")
        )
        with terminal.keys.reading() as typed:
            await test(terminal, typed)

    try:
        asyncio.run(turn())
    finally:
        os.close(master)
        stream.close()


@pytest.mark.parametrize(
    "sent",
    [
        pytest.param([b"\x1bb", b"\x1bf"], id="alt-b, alt-f (option-arrows on a Mac)"),
        pytest.param([b"\x1b[1;3A", b"\x1b[1;3D"], id="alt-up, alt-left"),
        pytest.param([b"\x1b\r"], id="alt-enter"),
        pytest.param([b"\x1b[I", b"\x1b[O"], id="focus in and out"),
        pytest.param([b"\x1b[15~", b"\x1bOP", b"\x1b[A"], id="F5, F1, up"),
        pytest.param([b"\x1b[12;5R", b"\x1b[<0;10;5M"], id="a cursor report, a mouse report"),
        pytest.param([b"\x1b[", b"1;5C"], id="a sequence cut short"),
    ],
)
def test_only_an_esc_on_its_own_stops_the_turn(sent: list[bytes]) -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        await terminal.send(*sent, gap=0.1)  # each chunk read alone, past the Esc wait
        assert terminal.asked == [] and typed.queued == []
        assert typed.line in ("", "1;5C")  # a cut-short sequence's end may read as text
        await terminal.send(b"\x1b")
        assert terminal.asked == ["stop"]

    on_a_terminal(test)


def test_keys_read_with_a_newline_are_a_paste_even_with_escape_sequences_in_them() -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        await terminal.send(b"rm -rf \x1b[Abuild\rnow\x1b[1;3D")
        assert terminal.asked == [] and typed.queued == [] and typed.line == "rm -rf build\nnow"

    on_a_terminal(test)


def test_control_and_bidi_characters_never_reach_the_line() -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        await terminal.send("a\x07b\x1b]0;title\x07c\n\u202eevil\x00".encode())
        await terminal.send(b"\x1b[200~x\x1b[31my\x05\x1b[201~")
        assert typed.line == "ab0;titlec\nevilxy"
        assert terminal.asked == [] and typed.queued == []

    on_a_terminal(test)


def test_keys_read_together_still_edit_the_line_and_a_pasted_tab_stays() -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        await terminal.send(b"tesst\x7f\x7ft")
        await terminal.send(b"\x15def f():\n\treturn 1")
        assert typed.line == "def f():\n\treturn 1" and typed.queued == []

    on_a_terminal(test)


def test_a_megabyte_typed_ahead_on_one_line_is_read_in_linear_time() -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        started = time.monotonic()
        for _ in range(250):
            os.write(terminal.master, b"x" * 4000)
            while len(typed.line) < 4000 * (_ + 1) and time.monotonic() - started < 30:
                await asyncio.sleep(0.001)
        # A blow-up guard: one concatenation per key took 30 s.
        assert len(typed.line) == 1_000_000 and time.monotonic() - started < 6

    on_a_terminal(test)


def test_a_bracketed_paste_the_turn_ends_in_the_middle_of_is_kept() -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        await terminal.send(b"\x1b[200~first line\nsec")
        await terminal.send(b"ond")  # no escape in it: read after the rest all the same
        assert typed.line == ""

    keys: list[TurnKeys] = []

    async def kept(terminal: Terminal, typed: TypeAhead) -> None:
        keys.append(terminal.keys)
        await test(terminal, typed)

    on_a_terminal(kept)
    assert keys[0].typed.line == "first line\nsecond"


def test_a_terminal_that_goes_away_stops_the_reading_without_an_error() -> None:
    problems: list[dict[str, object]] = []

    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        asyncio.get_running_loop().set_exception_handler(
            lambda _, context: problems.append(context)
        )
        await terminal.send(b"ab")
        os.close(terminal.master)  # the terminal window is closed: reads fail with EIO
        terminal.master = os.open(os.devnull, os.O_RDONLY)
        await asyncio.sleep(0.2)
        assert typed.line == "ab"

    on_a_terminal(test)
    assert problems == []


def test_the_terminal_is_restored_after_a_failed_turn_and_cbreak_comes_back_after_ctrl_z() -> None:
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    assert before[3] & termios.ECHO and before[3] & termios.ICANON
    stream = os.fdopen(slave, "r")

    async def turn() -> None:
        keys = TurnKeys(stream, lambda: None, lambda: None)
        with keys.reading():
            assert not termios.tcgetattr(slave)[3] & (termios.ECHO | termios.ICANON)
            termios.tcsetattr(slave, termios.TCSANOW, before)  # the shell's modes, after fg
            os.kill(os.getpid(), signal.SIGCONT)
            await asyncio.sleep(0.1)
            assert not termios.tcgetattr(slave)[3] & (termios.ECHO | termios.ICANON)
            raise RuntimeError("the turn failed")

    try:
        with pytest.raises(RuntimeError):
            asyncio.run(turn())
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        stream.close()


def test_the_footer_shows_what_its_width_holds_and_each_queued_prompt_on_one_row() -> None:
    ahead = TypeAhead(queued=["fix it\nand then\ntest it", "go"], line="x" * 1_000_000)
    rows = ahead.rows("> ", 80)
    assert rows[:2] == [("⏎ fix it (2 lines below)", "dim"), ("⏎ go", "dim")]
    assert rows[2][0].startswith("> xxx") and len(rows[2][0]) < 1000
    ahead.line = "one\ntwo\nthree"
    assert ahead.rows("> ", 80)[2] == ("> (2 lines above) three", "")


def test_shift_tab_typed_text_enter_and_esc_each_do_their_part() -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        await terminal.send(b"\x1b[Z", b"fix it", b"\r", b"more", b"\x1b", gap=0.1)
        assert terminal.asked == ["cycle", "stop"]
        assert typed.queued == ["fix it"] and typed.line == "more"

    on_a_terminal(test)


def test_utf8_split_across_reads_is_one_character() -> None:
    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        await terminal.send(b"caf\xc3", b"\xa9", gap=0.1)
        assert typed.line == "café"

    on_a_terminal(test)


def test_an_esc_half_read_as_the_turn_ends_does_not_cancel_it() -> None:
    terminals: list[Terminal] = []

    async def test(terminal: Terminal, typed: TypeAhead) -> None:
        terminals.append(terminal)
        os.write(terminal.master, b"\x1b")
        await asyncio.sleep(0.01)  # read, and the turn ends before it could be Esc

    on_a_terminal(test)
    assert terminals[0].asked == []
