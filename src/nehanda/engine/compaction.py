"""Compaction: older turns replaced by a summary the model writes, before a request overflows.

``keep_within`` runs before every request. When the request would not fit its budget
(``engine.context.Budget.limit``), the conversation is split at a turn boundary: the most
recent turns stay whole (a call is never parted from its result), and the older ones are
sent to the same model, without tools, to be summarised as goal, decisions, files and their
state, open items and the outcome of the last calls. The summary takes their place as one
message. When that request fails, a digest made here (the goal and the calls made, each
with its outcome) takes it instead, so the run goes on; the session log keeps every
original message either way. A request that cannot fit even then stops the run with
``ContextFull``, which says what would fit.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

from nehanda.engine.context import ContextKeeper, cut_middle
from nehanda.errors import NehandaError, ProviderError
from nehanda.events import Compacted, TextDelta
from nehanda.providers.base import ChatRequest, Provider, ToolChoice
from nehanda.types import Message, TextPart, ToolResult, ToolSpec, ToolUse

SUMMARY_HEADER = "[Summary of the earlier conversation, written when it was compacted]\n"
SUMMARY_PROMPT = """\
You are compacting the transcript of a coding assistant's session so that the work can
go on in a smaller context. Write a structured summary with exactly these sections:

## Goal
## Decisions made
## Files touched and their state
## Open items
## Outcome of the last tool calls

Be concrete: paths, names, commands, numbers, error messages. Keep what the assistant
needs to continue; drop what it does not. Do not call tools; write only the summary."""


class ContextFull(NehandaError):
    """A request cannot fit the model's window even after compaction."""


@dataclass(frozen=True)
class Conversation:
    provider: Provider
    model: str
    messages: list[Message]
    tools: tuple[ToolSpec, ...]
    tool_choice: ToolChoice | None = "auto"
    # Called just before older turns are summarised: the trigger ("manual" for a forced
    # compaction, else "auto") and the focus asked for (the PreCompact hooks).
    before: Callable[[str, str], Awaitable[object]] | None = None

    def request(self, keeper: ContextKeeper) -> ChatRequest:
        return keeper.request(self.model, self.messages, self.tools, self.tool_choice)


def units(messages: Sequence[Message], start: int) -> list[int]:
    """Where each turn begins from ``start`` on: a tool-results message joins its call."""
    return [
        i
        for i in range(start, len(messages))
        if not (messages[i].role == "tool" or messages[i].tool_results)
    ]


def split_point(convo: Conversation, keeper: ContextKeeper, room: int) -> int | None:
    """The first message to keep: recent turns whole, within ``room`` tokens, at least the
    last turn; ``None`` when there is nothing older to replace."""
    head = next((i for i, m in enumerate(convo.messages) if m.role != "system"), 0)
    starts = units(convo.messages, head)
    view = keeper.view(convo.messages, convo.tools)
    split = len(convo.messages)
    for start in reversed(starts):
        if split < len(convo.messages) and keeper.counter.messages(view[start:]) > room:
            break
        split = start
    return split if split > head else None


async def keep_within(
    convo: Conversation, keeper: ContextKeeper, *, force: bool = False, focus: str = ""
) -> AsyncIterator[Compacted]:
    """Compacts ``convo.messages`` in place when the next request would not fit."""
    count = keeper.count(convo.request(keeper))
    budget = keeper.budget
    if not force and (count.total <= budget.limit or not keeper.auto_compact):
        _check_fits(count.total, count.system + count.tools, keeper)
        return
    fixed = count.system + count.tools
    _check_fits(fixed, fixed, keeper)  # no summary makes room the fixed part lacks
    room = 0 if force else max((budget.limit - fixed) // 2 - budget.summary_tokens, 0)
    split = split_point(convo, keeper, room)
    if split is not None:
        if convo.before is not None:
            await convo.before("manual" if force else "auto", focus)
        compacted = await _compact(convo, keeper, split, count.total, focus, force)
        if compacted is not None:
            yield compacted
    after = keeper.count(convo.request(keeper))
    _check_fits(after.total, fixed, keeper)


async def _compact(
    convo: Conversation, keeper: ContextKeeper, split: int, before: int, focus: str, force: bool
) -> Compacted | None:
    """The older messages replaced by their summary; None, and the conversation left as it
    was, when that would not make the request smaller (what overflows is in the turns kept)
    unless ``force``: a ``/compact`` asked for by hand is made whatever it saves."""
    head = next((i for i, m in enumerate(convo.messages) if m.role != "system"), 0)
    older = convo.messages[head:split]
    problem = None
    try:
        text = await summarise(convo, keeper, older, focus)
    except ProviderError as exc:
        text, problem = digest(older, keeper), str(exc)
    if not text.strip():
        text, problem = digest(older, keeper), "the model's summary was empty"
    summary = Message.text_message("user", SUMMARY_HEADER + text.strip())
    convo.messages[head:split] = [summary]
    after = keeper.count(convo.request(keeper)).total
    if after >= before and not force:
        convo.messages[head : head + 1] = older
        return None
    keeper.counter.forget(convo.messages)
    kept = len(convo.messages) - head - 1
    return Compacted(len(older), kept, before, after, keeper.window, summary, problem)


async def summarise(
    convo: Conversation, keeper: ContextKeeper, older: Sequence[Message], focus: str
) -> str:
    budget = keeper.budget
    room = budget.limit - budget.summary_tokens - keeper.counter.tokens(len(SUMMARY_PROMPT))
    transcript = render_transcript(older, int(room * keeper.counter.chars_per_token))
    ask = f"<transcript>\n{transcript}\n</transcript>\n\nWrite the summary now."
    if focus:
        ask += f" Give most room to: {focus}"
    request = ChatRequest(
        convo.model,
        (Message.text_message("system", SUMMARY_PROMPT), Message.text_message("user", ask)),
        tools=(),
        tool_choice=None,
        max_tokens=budget.summary_tokens,
    )
    chunks = [e.text async for e in convo.provider.stream(request) if isinstance(e, TextDelta)]
    return "".join(chunks)


def render_transcript(messages: Sequence[Message], most: int) -> str:
    """The older messages as text within ``most`` characters: each result cut to its share,
    then, if still too long, the start (the goal) and the most recent part."""
    results = sum(len(m.tool_results) for m in messages)
    share = max(most // (results + 2), 400)
    names = {use.id: use.name for m in messages for use in m.tool_uses}
    lines = [_line(message, names, share) for message in messages]
    text = "\n".join(line for line in lines if line)
    if len(text) <= most:
        return text
    first = lines[0][: most // 4]
    return first + "\n[...]\n" + text[len(text) - (most - len(first) - 7) :]


def _line(message: Message, names: dict[str, str], share: int) -> str:
    out = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            role = "Assistant" if message.role == "assistant" else "User"
            out.append(f"{role}: {cut_middle(part.text.strip(), share, 'this message')}")
        elif isinstance(part, ToolUse):
            out.append(f"Assistant called {part.name} {json.dumps(part.input)[:share]}")
        elif isinstance(part, ToolResult):
            label = "Error from" if part.is_error else "Result of"
            name = names.get(part.tool_use_id, "a tool")
            out.append(f"{label} {name}: {cut_middle(part.content, share)}")
    return "\n".join(out)


def digest(older: Sequence[Message], keeper: ContextKeeper) -> str:
    """A summary made without the model: the requests made and each call's outcome."""
    most = int(keeper.budget.summary_tokens * keeper.counter.chars_per_token)
    outcomes = {r.tool_use_id: r for m in older for r in m.tool_results}
    lines = ["The model's summary could not be had; this lists what happened."]
    for message in older:
        if message.role == "user" and message.text.strip():
            lines.append(f"User: {message.text.strip()[:400]}")
        for use in message.tool_uses:
            result = outcomes.get(use.id)
            first = result.content.strip().split("\n", 1)[0][:80] if result else "no result"
            state = "error" if result and result.is_error else "ok"
            lines.append(f"- {use.name} {json.dumps(use.input)[:120]} -> {state}: {first}")
    text = "\n".join(lines)
    return text if len(text) <= most else cut_middle(text, most, "this list")


def _check_fits(total: int, fixed: int, keeper: ContextKeeper) -> None:
    budget = keeper.budget
    hard = budget.window - budget.reply_reserve
    if total <= hard:
        return
    raise ContextFull(
        f"the next request needs about {total:,} tokens but the model's window is "
        f"{budget.window:,} ({budget.reply_reserve:,} kept for the reply); the system prompt "
        f"and tool definitions alone take {fixed:,}, which leaves {max(hard - fixed, 0):,} for "
        "the conversation. Raise context_window in the provider's settings if the server was "
        "started with a larger context, or start a new session"
    )
