"""TodoWrite: the model's plan for a task, as Claude Code's tool of that name keeps it.

Each call sends the whole list again (``{"todos": [{"content", "status", "activeForm"}]}``);
the tool only acknowledges it. What the list is lives in the call itself, which the
transcript and the session log keep: the renderers read it through the tool's ``plan``
fact and show it while a turn runs. It changes nothing outside the conversation, so it is
a ``think`` tool: it runs unasked, and it stays in plan mode.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from nehanda.tools.base import Tool, ToolContext
from nehanda.types import JsonObject, Todo

NAME = "TodoWrite"

DESCRIPTION = """\
Create and update a structured task list for the current work, so that you and the user \
can follow its progress. Use it for tasks of three steps or more; skip it for a single \
simple step. Each call replaces the whole list. Give every item its imperative form \
(`content`: "Run the tests") and its present continuous form (`activeForm`: "Running the \
tests"). Keep exactly one item `in_progress` while you work, and mark each one \
`completed` as soon as it is done."""


class TodoItem(BaseModel):
    # Earlier versions of Claude Code's tool gave each item an id and a priority; a
    # model trained on those may still send them.
    model_config = ConfigDict(extra="ignore")

    content: str = Field(min_length=1, description="The task, in imperative form.")
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str = Field(
        default="", description="The task in present continuous form, shown while it runs."
    )


class TodoWriteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    todos: list[TodoItem] = Field(description="The updated todo list.")


def plan_of(arguments: JsonObject) -> tuple[Todo, ...]:
    """The list a call sets; an empty one for arguments the tool would refuse."""
    try:
        args = TodoWriteArgs.model_validate(arguments)
    except ValidationError:
        return ()
    return tuple(Todo(item.content, item.status, item.activeForm) for item in args.todos)


async def write_todos(args: TodoWriteArgs, context: ToolContext) -> str:
    done = sum(item.status == "completed" for item in args.todos)
    return (
        f"The todo list now has {len(args.todos)} item{'' if len(args.todos) == 1 else 's'} "
        f"({done} completed). Keep it up "
        "to date as you work, and carry on with the current task."
    )


def _outcome(arguments: JsonObject, output: str) -> str:
    todos = plan_of(arguments)
    done = sum(todo.status == "completed" for todo in todos)
    return f"{done}/{len(todos)} done"


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=TodoWriteArgs,
    read_only=True,
    kind="think",
    handler=write_todos,
    outcome=_outcome,
    plan=plan_of,
    small_window=False,
)
