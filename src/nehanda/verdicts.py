"""What the permission layer answers about a call, and what the user answers back: values.

``decide`` (``permissions.decision``) answers every call with ``Allow``, ``Ask`` or
``Deny``; the gate takes an ``Ask`` to an ``Approver`` (the terminal prompt,
``ui.approval``), whose ``Answer`` says whether the call runs. They live here, with the
core values, so that a front end can show and answer a question without loading the
rule engine. ``Allow`` and ``Ask`` carry the resolved paths outside the workspace the
call uses, so that the runner can grant exactly those to the tool once the call may run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nehanda.types import CheckedCall


@dataclass(frozen=True)
class Allow:
    reason: str
    outside: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Ask:
    """``suggestions``: the rules that answering "always" adds, if any may be offered;
    ``broader``: the same with a prefix rule for each part that has one, offered beside;
    ``edited``: the edited files that make it ask, which the user's approval covers."""

    reason: str
    suggestions: tuple[str, ...] = ()
    outside: tuple[Path, ...] = ()
    broader: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()


@dataclass(frozen=True)
class Deny:
    reason: str


Decision = Allow | Ask | Deny


@dataclass(frozen=True)
class Answer:
    """The user's answer; ``reason`` says, for the model, why a call did not run.

    ``words``: what the user told the model with their no ("use uv run pytest
    instead"), passed on as theirs. ``rules``: with ``always``, the rules picked among
    those the question offered (``Ask.suggestions`` or ``Ask.broader``; the suggestions
    when empty). ``answered`` is false where nobody could be asked.
    """

    run: bool
    always: bool = False
    reason: str = ""
    words: str = ""
    rules: tuple[str, ...] = ()
    answered: bool = True


class Approver(Protocol):
    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        """The user's answer on ``call``, shown as its tool's facts say."""
        ...
