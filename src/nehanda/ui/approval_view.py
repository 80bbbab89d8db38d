"""What the approval prompt shows of a call, as text: pure, no I/O.

``shown_request`` makes the call safe to show (``ui.shown_text``): a command's lines
(``$``-led, blank runs as one line), the diff of a Write or an Edit, an MCP tool's
arguments, and the reason it asks. ``fitted_request`` fits that above the question on a
terminal of a given size (``ui.screen_fit``): whole, or, with its first line saying so,
the call's first and last rows and the reason cut short, each cut marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nehanda.errors import ToolError
from nehanda.tools.output import cap_lines
from nehanda.types import CheckedCall, ToolFacts, ToolUse
from nehanda.ui.screen_fit import fit, prose_rows, rows_of
from nehanda.ui.shown_text import (
    BlankLines,
    abbreviated,
    collapse_blank_lines,
    shown_diff,
    shown_line,
)
from nehanda.verdicts import Ask

MAX_DIFF_LINES = 5000  # of a diff with its blank runs collapsed; v pages through them


@dataclass(frozen=True)
class ShownRequest:
    """A call as the prompt shows it: the tool's ``name``, the call (``body``: a command's
    lines, a diff, or the arguments), escaped and collapsed, and ``reason``, why it asks."""

    name: str
    body: list[str]
    reason: str

    def title(self) -> str:
        return f"nehanda wants to run {self.name}:"

    def lines(self) -> list[str]:
        """Everything, whole."""
        return [self.title(), *self.body, self.reason]


@dataclass(frozen=True)
class View:
    """What is printed above the question; ``whole``: nothing of the call is left out."""

    text: str
    whole: bool


def shown_request(call: CheckedCall, decision: Ask, workspace: Path) -> ShownRequest:
    """``call`` as its tool's facts say to show it: a command, a diff, or its arguments."""
    tool_use, facts = call.use, call.facts
    if facts.command_argument is not None:
        command = str(tool_use.input.get(facts.command_argument, ""))
        body = _command_lines(command)
    elif facts.diff is not None:
        body = _diff(facts, tool_use, workspace)
    else:
        body = [
            f"  {shown_line(str(key))}: {shown_line(str(value))}"
            for key, value in tool_use.input.items()
        ]
    reason = f"It asks because {shown_line(decision.reason)}."
    return ShownRequest(shown_line(tool_use.name), body, reason)


def fitted_request(shown: ShownRequest, columns: int, rows: int, question: str) -> View:
    """``shown`` as it fits above ``question`` on a screen of ``columns`` by ``rows``, in
    rows no wider than it: whole, or, with the title saying so, the call's first and last
    rows and the reason cut short."""
    asking = len(prose_rows(question, columns))
    # The call's lines (a command, a diff) are cut where the terminal would fold them,
    # never between words: a break put into them would change what they say.
    call = rows_of(shown.body, columns)
    whole = [*prose_rows(shown.title(), columns), *call, *prose_rows(shown.reason, columns)]
    if len(whole) + asking <= rows - 1:
        return View(_text(whole), whole=True)
    size = "1 line, wider" if len(shown.body) == 1 else f"{len(shown.body)} lines, taller"
    title = prose_rows(
        f"nehanda wants to run {shown.name} ({size} than the screen: v shows it all):", columns
    )
    reason = prose_rows(abbreviated(shown.reason, 2 * columns), columns)
    body = fit(shown.body, rows - 2 - len(title) - len(reason) - asking, columns)
    return View(_text([*title, *body, *reason]), whole=False)


def _text(rows: list[str]) -> str:
    return "\n" + "\n".join(rows) + "\n"


def _command_lines(command: str) -> list[str]:
    return [
        f"  {line.text()}" if isinstance(line, BlankLines) else f"  $ {shown_line(line)}"
        for line in collapse_blank_lines(command.split("\n"))
    ]


def _diff(facts: ToolFacts, tool_use: ToolUse, workspace: Path) -> list[str]:
    raw = str(tool_use.input.get(facts.path_argument or "", ""))
    try:
        lines = facts.diff(tool_use.input, workspace) if facts.diff else []
    except (ToolError, ValueError) as error:
        return [f"  {shown_line(raw)}", f"  (no diff to show: {shown_line(str(error))})"]
    if not lines:
        return [f"  {shown_line(raw)}: no change"]
    return cap_lines(shown_diff(lines), MAX_DIFF_LINES).split("\n")
