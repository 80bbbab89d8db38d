"""Checks one reply against the turn it answers; pure, and nothing runs.

A call first passes the check a run applies (``tools.registry.check_call``: a known tool,
readable arguments valid for its schema). *Malformed* counts what the model wrote badly:
calls failing that check, call-like text the parser had to drop (unknown tool,
unreadable JSON, a block cut short, the prompt's example copied back), and calls whose
JSON the parser repaired (those still run, so they fail nothing by themselves). A valid
call matching no expected call (another tool, other arguments, one call too many, a call
where none was needed) is *false*: in a run it would have done something the user did
not ask for. A turn passes when every expected call was made, in that reply, and nothing
was dropped and no false call came with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from nehanda.events import ToolCallProblem
from nehanda.exam.checks import quote
from nehanda.exam.tasks import Expect, Turn
from nehanda.tools.registry import check_call
from nehanda.types import ToolResult, ToolUse

# Problems after which the call still came out, as a call.
_KEPT = frozenset({"repaired", "duplicate_key"})


@dataclass(frozen=True)
class TurnScore:
    passed: bool
    failure: str | None = None
    malformed: int = 0
    false_calls: int = 0
    results: tuple[ToolResult, ...] = ()  # the canned results, when it passed


def score_turn(
    turn: Turn,
    text: str,
    calls: list[ToolUse],
    problems: list[ToolCallProblem],
) -> TurnScore:
    dropped = [problem.message for problem in problems if problem.kind not in _KEPT]
    repaired = sum(problem.kind == "repaired" for problem in problems)
    valid: list[tuple[ToolUse, dict[str, Any]]] = []
    for use in calls:
        checked = check_call(use)
        if isinstance(checked, ToolResult):
            dropped.append(checked.content)
        else:
            arguments = checked.arguments
            values = arguments.model_dump() if isinstance(arguments, BaseModel) else use.input
            valid.append((use, values))
    matched = _match(turn.calls, valid)
    extra = [use for use, _ in valid if use.id not in matched]
    failure = _failure(turn, text, dropped, valid, matched, extra)
    passed = failure is None
    return TurnScore(
        passed=passed,
        failure=failure,
        malformed=len(dropped) + repaired,
        false_calls=len(extra),
        results=tuple(ToolResult(u.id, matched[u.id].result) for u, _ in valid) if passed else (),
    )


def _match(
    expected: tuple[Expect, ...], valid: list[tuple[ToolUse, dict[str, Any]]]
) -> dict[str, Expect]:
    """Each valid call paired with the first expected call it satisfies (any order)."""
    free = list(expected)
    matched: dict[str, Expect] = {}
    for use, values in valid:
        found = next((want for want in free if _satisfies(want, use, values)), None)
        if found is not None:
            free.remove(found)
            matched[use.id] = found
    return matched


def _satisfies(want: Expect, use: ToolUse, values: dict[str, Any]) -> bool:
    return use.name == want.tool and all(
        check(values.get(name)) for name, check in want.arguments.items()
    )


def _failure(
    turn: Turn,
    text: str,
    dropped: list[str],
    valid: list[tuple[ToolUse, dict[str, Any]]],
    matched: dict[str, Expect],
    extra: list[ToolUse],
) -> str | None:
    if dropped:
        return "malformed call: " + _gist(dropped[0])
    missing = [want for want in turn.calls if want not in matched.values()]
    if missing:
        unmatched = [(use, values) for use, values in valid if use.id not in matched]
        return _missing(missing[0], unmatched, len(turn.calls), len(matched))
    if extra:
        use = extra[0]
        why = "no call was needed" if not turn.calls else "it was not asked for"
        return f"called {use.name}({_arguments(use.input)}) but {why}"
    if not turn.calls:
        if not text.strip():
            return "an empty answer"
        if turn.answer is not None and not turn.answer(text):
            return f"the answer is not {turn.answer.describe()}"
    return None


def _missing(
    want: Expect, unmatched: list[tuple[ToolUse, dict[str, Any]]], wanted: int, made: int
) -> str:
    """Why ``want`` was not met, by the nearest call that did not match anything."""
    for use, values in unmatched:
        wrong = [(n, check) for n, check in want.arguments.items() if not check(values.get(n))]
        if use.name == want.tool and wrong:
            name, check = wrong[0]
            return f"{want.tool} {name}: got {quote(values.get(name))}, expected {check.describe()}"
    if unmatched:
        return f"called {unmatched[0][0].name} where {want.tool} was expected"
    if wanted > 1 and made:
        return f"made {made} of the {wanted} calls asked for in one reply"
    return f"no call (expected {want.tool})"


def _gist(message: str) -> str:
    """The part of a message written for the model that says what was wrong."""
    return re.split(r"; nothing was run|\. (?=[A-Z])", message, maxsplit=1)[0].rstrip(".")


def _arguments(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{name}={quote(value)}" for name, value in arguments.items())
