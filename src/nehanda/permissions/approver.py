"""How a user is asked about a call that needs approval: the ``Approver`` protocol.

The gate asks an approver about a checked call (its tool's facts say how to show it)
and acts on its ``Answer``; a front end provides one (the
terminal prompt lives in ``ui.approval``). ``NoTerminal`` is the approver for where
nobody can answer: asking means refusing, and the model is told why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from nehanda.permissions.decision import Ask
from nehanda.types import CheckedCall


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
    async def ask(self, call: CheckedCall, decision: Ask) -> Answer: ...


class NoTerminal:
    """Where nobody can be asked: every call that needs approval is refused."""

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        return Answer(
            run=False,
            answered=False,
            reason="nehanda is not running in a terminal, so the user could not be asked "
            "(they can rerun with --yes, or allow such calls in their settings)",
        )
