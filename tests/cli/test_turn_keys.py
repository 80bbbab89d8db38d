"""What keys mean while a REPL turn runs (``TypeAhead``: tables and properties), and
``TurnKeys`` reading them from a real pseudo-terminal."""

from __future__ import annotations

import asyncio
import os

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


def read_keys(*chunks: bytes, wait: float = 0.1) -> tuple[TypeAhead, list[str]]:
    """What a ``TurnKeys`` on a real pseudo-terminal makes of ``chunks``, each written
    to it ``wait`` seconds after the one before, the turn ending ``wait`` after the last."""
    master, slave = os.openpty()
    called: list[str] = []

    async def turn() -> TypeAhead:
        with os.fdopen(slave, "r", closefd=False) as stream:
            keys = TurnKeys(stream, lambda: called.append("cycle"), lambda: called.append("stop"))
            with keys.reading() as typed:
                for chunk in chunks:
                    os.write(master, chunk)
                    await asyncio.sleep(wait)
            await asyncio.sleep(0.1)  # anything left over would act by now
            return typed

    try:
        return asyncio.run(turn()), called
    finally:
        os.close(master)
        os.close(slave)


def test_on_a_terminal_keys_become_actions_and_text() -> None:
    typed, called = read_keys(b"\x1b[Z", b"fix it", b"\r", b"more", b"\x1b")
    assert called == ["cycle", "stop"]
    assert typed.queued == ["fix it"] and typed.line == "more"


def test_a_chunk_with_a_newline_is_a_paste_and_utf8_may_split_across_reads() -> None:
    typed, called = read_keys(b"one\rtwo", b" caf\xc3", b"\xa9")
    assert called == [] and typed.queued == [] and typed.line == "one\ntwo café"


def test_an_esc_half_read_as_the_turn_ends_does_not_cancel_it() -> None:
    _, called = read_keys(b"\x1b", wait=0.005)  # the turn ends before ESC could be Esc
    assert called == []
