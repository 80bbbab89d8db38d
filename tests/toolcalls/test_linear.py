"""The blow-up guard itself: a rescan per chunk fails it, a single pass does not."""

from __future__ import annotations

import pytest

from toolcalls.linear import assert_linear


def _rescans(text: str) -> int:
    """Counts the braces of all the text so far after every 8-character chunk."""
    seen, depth = "", 0
    for start in range(0, len(text), 8):
        seen += text[start : start + 8]
        depth = sum(1 for ch in seen if ch == "{")
    return depth


def _one_pass(text: str) -> int:
    depth = 0
    for start in range(0, len(text), 8):
        depth += sum(1 for ch in text[start : start + 8] if ch == "{")
    return depth


def test_a_rescan_per_chunk_fails_the_guard() -> None:
    with pytest.raises(AssertionError, match="8x the input did"):
        assert_linear(_rescans, lambda n: "{a" * (n // 2), 400)


def test_a_single_pass_passes_the_guard() -> None:
    assert_linear(_one_pass, lambda n: "{a" * (n // 2), 400)
