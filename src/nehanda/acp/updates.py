"""nehanda's events as ACP ``session/update`` payloads; pure.

A call's line comes from its tool's facts, never from its name: the title is the one the
terminal shows (``ui.summary.describe_call``), the kind is ``ToolFacts.kind`` (the same
vocabulary as ACP's ``ToolKind``), the location is the path argument, and a tool that
says it makes a diff (``ToolFacts.diff``) reports the file's text before and after.
TodoWrite's list (``ToolFacts.plan``) is the agent's plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    UserMessageChunk,
)

from nehanda.events import EngineEvent, ReasoningDelta, TextDelta, ToolExecuted, ToolStarted
from nehanda.types import UNKNOWN_TOOL, Message, ToolFacts, ToolResult, ToolUse
from nehanda.ui.summary import describe_call

Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
)
Content = ContentToolCallContent | FileEditToolCallContent


@dataclass(frozen=True)
class FileText:
    """A file a call changes, as it was before the call (``None``: it did not exist)."""

    path: Path
    before: str | None


def changed_file(use: ToolUse, facts: ToolFacts, workspace: Path) -> Path | None:
    """The file a call that makes a diff works on, resolved against ``workspace``."""
    if facts.diff is None:
        return None
    return call_path(use, facts, workspace)


def call_path(use: ToolUse, facts: ToolFacts, workspace: Path) -> Path | None:
    if facts.path_argument is None:
        return None
    value = use.input.get(facts.path_argument, facts.path_default)
    if not isinstance(value, str) or not value:
        return None
    return workspace / Path(value).expanduser()


def streamed(event: EngineEvent) -> AgentMessageChunk | AgentThoughtChunk | None:
    """The answer's text and the model's reasoning, as they stream."""
    if isinstance(event, TextDelta) and event.text:
        return update_agent_message_text(event.text)
    if isinstance(event, ReasoningDelta) and event.text:
        return update_agent_thought_text(event.text)
    return None


def call_started(event: ToolStarted, workspace: Path) -> list[Update]:
    """The call's line, pending until it is allowed; and the plan, if it sets one."""
    use, facts = event.tool_use, event.facts
    path = call_path(use, facts, workspace)
    start = start_tool_call(
        use.id,
        describe_call(use, facts),
        kind=facts.kind,
        status="pending",
        locations=[ToolCallLocation(path=str(path))] if path is not None else None,
        raw_input=use.input,
    )
    return [start, *planned(use, facts)]


def planned(use: ToolUse, facts: ToolFacts) -> list[AgentPlanUpdate]:
    if facts.plan is None:
        return []
    try:
        todos = facts.plan(use.input)
    except (ValueError, TypeError, KeyError):
        return []  # a list the tool will refuse is no plan
    return [update_plan(plan_entry(t.content, status=t.status) for t in todos)]


def call_finished(
    event: ToolExecuted, changed: FileText | None, after: str | None
) -> ToolCallProgress:
    """The call's end: completed or failed, its output, and the diff it made."""
    return finished(event.tool_use.id, event.result, event.facts, changed, after)


def finished(
    call_id: str,
    result: ToolResult,
    facts: ToolFacts,
    changed: FileText | None = None,
    after: str | None = None,
) -> ToolCallProgress:
    content: list[Content] = []
    if changed is not None and after is not None and not result.is_error:
        content.append(tool_diff_content(str(changed.path), after, changed.before))
    text = result.content
    if facts.plain_output is not None and not result.is_error:
        text = facts.plain_output(text)
    if text:
        content.append(tool_content(text_block(text)))
    status: ToolCallStatus = "failed" if result.is_error else "completed"
    return update_tool_call(call_id, status=status, content=content, raw_output=result.content)


def replayed(
    messages: list[Message], facts: Mapping[str, ToolFacts], workspace: Path
) -> list[Update]:
    """A logged conversation as the updates that would have shown it (``session/load``)."""
    updates: list[Update] = []
    for message in messages:
        if message.role == "user" and message.text:
            updates.append(update_user_message_text(message.text))
        elif message.role == "assistant":
            if message.text:
                updates.append(update_agent_message_text(message.text))
            for use in message.tool_uses:
                started = ToolStarted(use, facts.get(use.name, UNKNOWN_TOOL))
                updates.extend(call_started(started, workspace))
        for result in message.tool_results:
            updates.append(finished(result.tool_use_id, result, UNKNOWN_TOOL))
    return updates
