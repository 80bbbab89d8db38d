"""``KeyReader`` on a real pseudo-terminal: the keys prompt_toolkit's parser makes of
what terminals send. A prompt_toolkit release that parses any of these differently fails
here, before a user finds an arrow key that cancels a reply or answers a question (the
range it may move in is pinned in ``pyproject.toml``)."""

from __future__ import annotations

import asyncio
import itertools
import os
import pty
import termios

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prompt_toolkit.keys import Keys

from nehanda.ui.key_reader import KeyReader

# What a terminal sends, read by read (each chunk one read), and the keys it gives: each
# as (key, data); "flush:" the keys left once nothing more comes (a lone ESC's wait).
TABLE: list[tuple[str, list[bytes], list[tuple[str, str]]]] = [
    ("up", [b"\x1b[A"], [(Keys.Up, "\x1b[A")]),
    ("shift-tab", [b"\x1b[Z"], [(Keys.BackTab, "\x1b[Z")]),
    ("esc alone", [b"\x1b"], [("flush:", ""), (Keys.Escape, "\x1b")]),
    ("alt-b", [b"\x1bb"], [(Keys.Escape, "\x1b"), ("b", "b")]),
    ("alt-up", [b"\x1b[1;3A"], [(Keys.Escape, "\x1b[1;3A"), (Keys.Up, "")]),
    ("alt-enter", [b"\x1b\r"], [(Keys.Escape, "\x1b"), (Keys.ControlM, "\r")]),
    ("F1, F5", [b"\x1bOP\x1b[15~"], [(Keys.F1, "\x1bOP"), (Keys.F5, "\x1b[15~")]),
    ("focus in, dropped", [b"\x1b[I"], []),
    ("a cursor report", [b"\x1b[12;5R"], [(Keys.CPRResponse, "\x1b[12;5R")]),
    ("enter, backspace", [b"\r\x7f"], [(Keys.ControlM, "\r"), (Keys.ControlH, "\x7f")]),
    ("typed text", [b"ls -la"], [(Keys.BracketedPaste, "ls -la")]),
    (
        "text and an arrow",
        [b"ab\x1b[Dc"],
        [("a", "a"), ("b", "b"), (Keys.Left, "\x1b[D"), ("c", "c")],
    ),
    (
        "utf-8 split",
        [b"caf\xc3", b"\xa9"],
        [(Keys.BracketedPaste, "caf"), (Keys.BracketedPaste, "é")],
    ),
    ("a sequence split", [b"\x1b[", b"A"], [(Keys.Up, "\x1b[A")]),
    ("bracketed paste", [b"\x1b[200~a\nb\x1b[201~"], [(Keys.BracketedPaste, "a\nb")]),
    ("paste, marks split", [b"\x1b[20", b"0~x\x1b[2", b"01~"], [(Keys.BracketedPaste, "x")]),
    (
        "paste, escapes kept",
        [b"\x1b[200~\x1b[31mred\x1b[201~"],
        [(Keys.BracketedPaste, "\x1b[31mred")],
    ),
]


@pytest.mark.parametrize(("sent", "pressed"), [row[1:] for row in TABLE], ids=[r[0] for r in TABLE])
def test_what_terminals_send_reads_as_these_keys(
    sent: list[bytes], pressed: list[tuple[str, str]]
) -> None:
    master, slave = pty.openpty()

    async def read() -> list[tuple[str, str]]:
        with os.fdopen(slave, "r", closefd=False) as stream:
            reader = KeyReader(stream)
            keys = []
            with reader.keys_mode():
                for chunk in sent:
                    os.write(master, chunk)
                    while (text := await reader.next_text()) == "":
                        pass
                    assert text is not None
                    keys += [(press.key, press.data) for press in reader.keys(text)]
                if flushed := [(press.key, press.data) for press in reader.flush()]:
                    keys += [("flush:", ""), *flushed]
            return keys

    try:
        assert asyncio.run(read()) == pressed
    finally:
        os.close(master)
        os.close(slave)


def test_the_keys_mode_reads_each_key_unechoed_and_keeps_ctrl_c_a_signal() -> None:
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    try:
        with os.fdopen(slave, "r", closefd=False) as stream, KeyReader(stream).keys_mode():
            flags = termios.tcgetattr(slave)[3]
            assert not flags & (termios.ECHO | termios.ICANON) and flags & termios.ISIG
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


def test_a_paste_the_reading_ends_in_is_kept_and_what_is_half_read_dropped() -> None:
    master, slave = pty.openpty()

    async def read() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        with os.fdopen(slave, "r", closefd=False) as stream:
            reader = KeyReader(stream)
            with reader.keys_mode():
                os.write(master, b"\x1b[200~half a pas\x1b[20")
                assert reader.keys(await reader.next_text() or "") == []
                cut = [(press.key, press.data) for press in reader.end()]
                os.write(master, b"\x1b")
                assert reader.keys(await reader.next_text() or "") == []
                return cut, [(press.key, press.data) for press in reader.end()]

    try:
        cut, half = asyncio.run(read())
        assert cut == [(Keys.BracketedPaste, "half a pas\x1b[20")] and half == []
    finally:
        os.close(master)
        os.close(slave)


@given(
    st.text(alphabet=st.sampled_from("ab\n\x1b[20~1é")),
    st.lists(st.integers(min_value=0, max_value=60), max_size=8),
)
def test_a_bracketed_paste_reads_the_same_however_the_reads_cut_it(
    content: str, cuts: list[int]
) -> None:
    while "\x1b[201~" in content:  # the paste's end, which a paste cannot hold
        content = content.replace("\x1b[201~", "")
    sent = f"x\x1b[200~{content}\x1b[201~y"
    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "r", closefd=False) as stream:
            reader = KeyReader(stream)
            bounds = [0, *sorted(min(cut, len(sent)) for cut in cuts), len(sent)]
            presses = [p for a, b in itertools.pairwise(bounds) for p in reader.keys(sent[a:b])]
    finally:
        os.close(master)
        os.close(slave)
    assert [press.data for press in presses] == ["x", content, "y"]
    assert presses[1].key == Keys.BracketedPaste
