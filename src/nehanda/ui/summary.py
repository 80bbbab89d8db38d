"""One-line descriptions of tool calls and results, shared by every renderer."""

from __future__ import annotations

import json
from dataclasses import dataclass

from nehanda.events import (
    Compacted,
    EngineEvent,
    LeakedCallsRecovered,
    ModeSwitched,
    Notice,
    Retrying,
    ToolExecuted,
)
from nehanda.providers.http_errors import redact_url
from nehanda.tools.watched import steering_note
from nehanda.types import UNKNOWN_TOOL, Refusal, ToolFacts, ToolResult, ToolUse
from nehanda.ui.shown_text import shown_line


@dataclass(frozen=True)
class Chosen:
    """What a session runs with, as it starts: said at the start of ``run`` and the REPL."""

    provider: str
    base_url: str
    model: str
    mode: str
    mode_reason: str
    permission_mode: str

    def __str__(self) -> str:
        """``vllm · q · native tool calls (why) · permission mode default · URL``."""
        why = f" ({self.mode_reason})" if self.mode_reason else ""
        where = f" · {redact_url(self.base_url)}" if self.base_url else ""
        line = (
            f"{self.provider} · {self.model} · {self.mode} tool calls{why} · "
            f"permission mode {self.permission_mode}{where}"
        )
        # A server names the model (the first it lists) and words a refusal: no escape
        # sequence of its own reaches the terminal.
        return "".join(ch if ch.isprintable() else "?" for ch in line)


def describe_call(tool_use: ToolUse, facts: ToolFacts = UNKNOWN_TOOL) -> str:
    """``Read README.md``: the tool and the argument that says most about the call (its
    facts' ``summary``), else its arguments as JSON; as the approval prompt shows it
    (escaped, its padding collapsed), so that what the line keeps is what ran."""
    if (summary := facts.summary(tool_use.input)) is not None:
        return f"{tool_use.name} {_shorten(shown_line(summary), 80)}"
    if facts.plan is not None:  # the plan's item under way says what it is at
        doing = [
            t.active_form or t.content
            for t in facts.plan(tool_use.input)
            if t.status == "in_progress"
        ]
        return f"{tool_use.name} {_shorten(shown_line(doing[0]), 80)}" if doing else tool_use.name
    if not tool_use.input:
        return tool_use.name
    arguments = json.dumps(tool_use.input, ensure_ascii=False)
    return f"{tool_use.name} {_shorten(shown_line(arguments), 80)}"


def describe_result(
    result: ToolResult, tool_use: ToolUse | None = None, facts: ToolFacts = UNKNOWN_TOOL
) -> str:
    """``3 lines``, ``wrote 2 lines``: what the call did, as its tool says it
    (``ToolFacts.describe_outcome``); an error's first line; a refused call's
    line says who refused it."""
    if result.refusal is not None:
        return describe_refusal(result.refusal)
    first_line = result.content.strip().splitlines()[0] if result.content.strip() else ""
    if result.is_error:
        return f"error: {_shorten(first_line, 120)}"
    return facts.describe_outcome(tool_use.input if tool_use else {}, result.content)


def describe_refusal(refusal: Refusal) -> str:
    """Why a call did not run, in full and said as it happened: the user said no (with
    what they told the model), a rule or the mode denies it, or nobody could be asked."""
    if refusal.by == "user":
        return f"you said no: {refusal.words}" if refusal.words else "you said no"
    if refusal.by == "nobody":
        return f"not run: it needs approval ({refusal.reason})"
    return f"not allowed: {refusal.reason}"


def _shorten(text: str, width: int) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def describe_notice(event: EngineEvent) -> str | None:
    """What the user must be told about a change of course, on stderr in every output mode."""
    if isinstance(event, Notice):
        return event.message
    if isinstance(event, Retrying):
        return describe_retry(event)
    if isinstance(event, ToolExecuted):
        said = [steering_note(event.result.content), event.result.sandbox_denial]
        return "\n".join(line for line in said if line) or None
    if isinstance(event, ModeSwitched):
        return f"switched to {event.mode} mode for this model ({event.reason})"
    if isinstance(event, Compacted):
        return describe_compaction(event)
    if isinstance(event, LeakedCallsRecovered):
        count = len(event.calls)
        return (
            f"the server did not parse {count} tool call{'s' if count > 1 else ''} "
            "the model wrote as text; running them as calls"
        )
    return None


def describe_retry(event: Retrying) -> str:
    """``retrying in 2 s (HTTP 503, attempt 2 of 4)``."""
    seconds = f"{event.delay:.0f}" if event.delay >= 10 else f"{event.delay:.2g}"
    return f"retrying in {seconds} s ({event.reason}, attempt {event.attempt} of {event.attempts})"


def describe_compaction(event: Compacted) -> str:
    how = "a summary" if event.problem is None else f"a list of the calls ({event.problem})"
    return (
        f"context compacted: {event.replaced} older message{'s' if event.replaced != 1 else ''} "
        f"replaced by {how}; "
        f"{event.before:,} -> {event.after:,} of {event.window:,} tokens"
    )
