"""The approver for where nobody can answer: asking means refusing, and the model is told why.

The gate asks an ``Approver`` (``nehanda.verdicts``) about a checked call (its facts say
how to show it) and acts on its ``Answer``; a front end provides one (the terminal prompt
lives in ``ui.approval``), and ``NoTerminal`` is the one used where there is no terminal
to ask on.
"""

from __future__ import annotations

from nehanda.types import CheckedCall
from nehanda.verdicts import Answer, Ask


class NoTerminal:
    """Where nobody can be asked: every call that needs approval is refused."""

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        return Answer(
            run=False,
            answered=False,
            reason="nehanda is not running in a terminal, so the user could not be asked "
            "(they can rerun with --yes, or allow such calls in their settings)",
        )
