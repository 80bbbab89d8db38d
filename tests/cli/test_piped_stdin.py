"""What stdin adds to a prompt, read from real pipes and files."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from nehanda.cli.piped_stdin import CAP_BYTES, Piped, read_piped, with_piped


def test_a_huge_pipe_is_read_whole_but_only_its_head_kept_and_both_sizes_named() -> None:
    reading, writing = os.pipe()

    def write() -> None:
        os.write(writing, b"y" * 300_000)
        os.close(writing)

    writer = threading.Thread(target=write)
    writer.start()
    piped = read_piped(reading, grace=30)
    writer.join()
    os.close(reading)
    assert (len(piped.data), piped.total, piped.waited) == (CAP_BYTES, 300_000, False)
    assert with_piped("look", piped).startswith(
        "look\n\nthe first 100.0 KB of stdin (300.0 KB in all):\n```\nyyy"
    )


def test_a_pipe_nobody_writes_is_left_unread_after_the_grace() -> None:
    reading, writing = os.pipe()
    try:
        assert read_piped(reading, grace=0.05) == Piped(waited=True)
    finally:
        os.close(reading)
        os.close(writing)


def test_a_file_is_read_and_a_blank_one_adds_nothing(tmp_path: Path) -> None:
    (tmp_path / "log").write_bytes(b"line\n\xff\n")
    (tmp_path / "blank").write_bytes(b"\n  \n")
    with (tmp_path / "log").open("rb") as log, (tmp_path / "blank").open("rb") as blank:
        assert with_piped("p", read_piped(log.fileno())) == (
            "p\n\nstdin (7 bytes):\n```\nline\n\N{REPLACEMENT CHARACTER}\n```"
        )
        assert with_piped("p", read_piped(blank.fileno())) == "p"
