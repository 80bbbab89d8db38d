"""``read_key`` on a real pseudo-terminal: one key, and never an answer made of the first
byte of something longer (an arrow key's escape sequence, a paste)."""

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
            await asyncio.sleep(0.05)  # the terminal is set up before the key comes
            os.write(master, typed)
            return await pending

    try:
        assert asyncio.run(read()) == key
    finally:
        os.close(master)
        os.close(slave)
