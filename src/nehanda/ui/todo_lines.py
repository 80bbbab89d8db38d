"""The model's plan (a TodoWrite list) as lines, and the subagent lines' indent; pure.

A call that sets the plan says so through its tool's ``plan`` fact, read here from the
call's arguments once it succeeded (``plan_set``). Each item is one line: ``☐`` still to
do, ``◐`` under way (its ``activeForm``, bold), ``☒`` done (dim); ASCII terminals get
``[ ]``, ``[~]`` and ``[x]``. Lines are spans, as ``ui.tool_lines`` makes them.
"""

from __future__ import annotations

from nehanda.events import EngineEvent, ToolExecuted
from nehanda.types import Todo
from nehanda.ui.shown_text import printable
from nehanda.ui.tool_lines import Line

# What a subagent's call lines are indented by, under the Task line that started it.
SUBAGENT_INDENT = "    "

_MARKS = {"pending": "☐", "in_progress": "◐", "completed": "☒"}
_ASCII = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
_STYLES = {"pending": "", "in_progress": "bold", "completed": "dim"}


def plan_set(event: EngineEvent) -> tuple[Todo, ...] | None:
    """The plan a finished call set (an empty one clears it); ``None``: it set none."""
    if not isinstance(event, ToolExecuted) or event.facts.plan is None:
        return None
    if event.result.is_error:
        return None
    return event.facts.plan(event.tool_use.input)


def todo_lines(todos: tuple[Todo, ...], *, ascii_only: bool = False) -> list[Line]:
    marks = _ASCII if ascii_only else _MARKS
    lines: list[Line] = []
    for todo in todos:
        text = todo.active_form if todo.status == "in_progress" and todo.active_form else None
        shown = printable(text or todo.content).replace("\n", " ")
        lines.append(((f"  {marks[todo.status]} ", "cyan"), (shown, _STYLES[todo.status])))
    return lines
