"""Shared checks for the dialect-family tests: whole text and small deltas agree."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from nehanda.toolcalls.family import Body
from toolcalls.toolcall_render import KNOWN, SCHEMAS, calls_of, kinds, parse, streamed

READ = {"file_path": "/src/app.py"}
LS = {"command": "ls"}
Calls = list[tuple[str, dict[str, Any]]]


def outcomes(text: str, known: Iterable[str] = KNOWN) -> list[Any]:
    """The result of the whole text and of the text fed in 1- and 7-character deltas."""
    return [parse(text, known), streamed(text, 1, known), streamed(text, 7, known)]


def check(
    text: str,
    expected: Calls,
    problems: Iterable[str] = (),
    *,
    visible: str | None = None,
    hidden: Iterable[str] = (),
) -> None:
    """Every way of feeding ``text`` yields ``expected``, the problem kinds, the text."""
    for result in outcomes(text):
        assert calls_of(result) == expected
        assert kinds(result) == list(problems)
        if visible is not None:
            assert result.text.strip() == visible
        for token in hidden:
            assert token not in result.text


def no_call(text: str) -> None:
    """Nothing runs and nothing is reported: the text stays prose."""
    for result in outcomes(text):
        assert calls_of(result) == []
        assert kinds(result) == []


def body(text: str, *, closed: bool = True, known: Iterable[str] | None = KNOWN) -> Body:
    return Body(text, closed, None if known is None else frozenset(known), SCHEMAS)


def found_calls(found: list[Any] | None) -> list[tuple[str | None, dict[str, Any]]]:
    assert found is not None
    return [(f.name, f.args) for f in found if f.problem is None]


def found_kinds(found: list[Any] | None) -> list[str]:
    assert found is not None
    return [f.problem[0] for f in found if f.problem is not None]
