"""The ``Task`` tool as the model sees it: Claude Code's arguments, and its facts.

``{"description": "3-5 words", "prompt": "...", "subagent_type": "NAME"}``;
``subagent_type`` may be left out (``general-purpose``). ``Agent``, Claude Code's newer
name for the tool, is accepted as the same tool. The description lists the subagents
the session has, with what each is for and the tools it gets.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nehanda.config.agent_files import GENERAL_PURPOSE, AgentDefinition
from nehanda.tools.base import compact_schema
from nehanda.types import JsonObject, ToolFacts, ToolSpec

NAME = "Task"
NAMES = frozenset({NAME, "Agent"})

_ABOUT = """\
Launch a subagent to handle a complex, multi-step task on its own. It works in a \
conversation of its own with its own tools, and its final answer comes back to you as \
this call's result; the user does not see it, so pass on what matters. Give it a \
complete, self-contained prompt: it knows nothing of this conversation. Say whether it \
should only research or also change code. Launch several at once, in one reply, when \
their tasks are independent. Use Read, Grep or Glob directly for a single file or \
pattern instead.

Available agent types and the tools they have access to:"""


class TaskArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str = Field(description="A short (3-5 word) description of the task.")
    prompt: str = Field(min_length=1, description="The task for the agent to perform.")
    subagent_type: str = Field(
        default=GENERAL_PURPOSE, description="The type of specialized agent to use."
    )


def _outcome(arguments: JsonObject, output: str) -> str:
    return f"{arguments.get('subagent_type') or GENERAL_PURPOSE} answered"


FACTS = ToolFacts(
    kind="think",
    source="subagent",
    read_only=True,  # the subagent's own calls are judged one by one
    summary_keys=("description", "prompt"),
    outcome=_outcome,
    parallel=True,
    small_window=False,
)


def task_spec(definitions: dict[str, AgentDefinition]) -> ToolSpec:
    listed = "\n".join(
        f"- {item.name}: {item.description} (Tools: {_tools_named(item)})"
        for item in definitions.values()
    )
    schema = compact_schema(TaskArgs.model_json_schema())
    # A small window gets the first sentence and the list: the list is what it offers.
    brief = f"{_ABOUT.split('.')[0]}. The agent types:\n{listed}"
    return ToolSpec(NAME, f"{_ABOUT}\n{listed}", schema, brief=brief, facts=FACTS)


def _tools_named(definition: AgentDefinition) -> str:
    if definition.tools is not None:
        return ", ".join(definition.tools) or "none"
    return "the read-only tools" if definition.read_only else "*"
