"""Error lines wrap at word boundaries on a terminal, and stay whole when piped."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.cli.error_text import error_text

PATH = "/home/someone/projects/a-rather-long-folder-name/.nehanda/settings.toml"


@pytest.mark.parametrize(
    ("message", "width", "expected"),
    [
        ("short", 40, "error: short\n"),
        ("short", None, "error: short\n"),
        (
            f"{PATH}: line 3: bad value",
            40,
            f"error:\n       {PATH}:\n       line 3: bad value\n",
        ),
        (
            "one two three four five six seven eight",
            24,
            "error: one two three\n       four five six\n       seven eight\n",
        ),
        ("tried:\n  - one two three four", 20, "error: tried:\n  - one two three\n    four\n"),
        ("a b c d e f g h i j k l m n o p q", None, "error: a b c d e f g h i j k l m n o p q\n"),
    ],
)
def test_error_lines_wrap_between_words(message: str, width: int | None, expected: str) -> None:
    assert error_text(message, width) == expected


@given(st.text(st.sampled_from("ab /-:."), max_size=200), st.integers(20, 120))
def test_wrapping_keeps_every_word_and_breaks_none(message: str, width: int) -> None:
    wrapped = error_text(message, width)
    assert wrapped.split() == ("error: " + message).split()
    for line in wrapped.splitlines():
        assert len(line) <= width or " " not in line.strip()


def test_a_long_error_on_a_terminal_wraps_at_words_and_piped_stays_one_line(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "a-folder-with-a-name-long-enough-to-need-wrapping"
    command = [sys.executable, "-m", "nehanda", "trust", "--remove", str(folder)]
    env = {**os.environ, "COLUMNS": "50"}
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(command, stderr=follower, stdout=subprocess.DEVNULL, env=env)
        os.close(follower)
        seen = b""
        while b"--list)" not in seen:
            seen += os.read(leader, 4096)
    finally:
        os.close(leader)
    assert done.returncode == 1
    lines = seen.decode().replace("\r\n", "\n").splitlines()
    assert len(lines) > 1 and all(len(line) <= 50 for line in lines if " " in line.strip())
    assert str(folder) in [line.strip() for line in lines]  # the path whole on its own line
    piped = subprocess.run(command, capture_output=True, text=True, env=env)
    assert piped.stderr == f"error: {folder} is not trusted (nehanda trust --list)\n"
