"""``read_key`` on a real pseudo-terminal: one key, and never an answer made of the first
byte of something longer (an arrow key's escape sequence, a paste), nor a key typed
before it was asked for."""

from __future__ import annotations

import asyncio
import os

import pytest

from nehanda.ui.approval import read_key


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        (b"y", "y"),
        (b"\x1b", "\x1b"),
        (b"\x1b[A", "\x1b[A"),  # an arrow key is not Esc, so it does not answer "no"
        (b"\x1b[Z", "\x1b[Z"),  # nor is Shift-Tab
        (b"yes\n", "yes\n"),  # a paste answers nothing
        ("é".encode(), "é"),
    ],
)
def test_one_read_is_one_key(typed: bytes, key: str) -> None:
    master, slave = os.openpty()

    async def read() -> str:
        with os.fdopen(slave, "r", closefd=False) as stream:
            pending = asyncio.ensure_future(read_key(stream))
            await asyncio.sleep(0)  # read_key runs until it waits for the key
            os.write(master, typed)
            return await pending

    try:
        assert asyncio.run(read()) == key
    finally:
        os.close(master)
        os.close(slave)


def test_a_key_typed_before_it_was_asked_for_never_answers() -> None:
    master, slave = os.openpty()

    async def read() -> str:
        with os.fdopen(slave, "r", closefd=False) as stream:
            os.write(master, b"y")
            assert os.read(master, 16) == b"y"  # echoed: the terminal holds it
            pending = asyncio.ensure_future(read_key(stream))
            await asyncio.sleep(0)
            os.write(master, b"n")
            return await pending

    try:
        assert asyncio.run(read()) == "n"
    finally:
        os.close(master)
        os.close(slave)
