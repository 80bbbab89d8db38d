"""What the REPL's pickers list, and what a resumed conversation shows of itself. Pure
but for reading the session files.

``/model`` lists what the server answers (``providers.discovery.list_models``), ``/provider``
the providers the settings files configure, ``/resume`` this folder's sessions with their
first prompt and age; ``recent_lines`` is the end of a resumed conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nehanda.cli.picker import Choice
from nehanda.cli.session_list import age_of, sessions_of
from nehanda.config.settings import ProviderConfig, Settings
from nehanda.engine.transcript import Session, SubagentLog
from nehanda.providers.http_errors import redact_url
from nehanda.types import Message

LISTED_SESSIONS = 10
RECENT_MESSAGES = 4
PROMPT_WIDTH = 50
SHOWN_LINES = 3
SHOWN_WIDTH = 300


def model_choices(names: Sequence[str]) -> list[Choice]:
    return [Choice(name, name) for name in names]


def provider_choices(settings: Settings, current: ProviderConfig) -> list[Choice]:
    """The configured providers; the one in use first when no settings entry names it
    (a type given with ``--provider``, a server found on its port)."""
    choices = [
        Choice(name, name, _where(entry.type, entry.model, entry.base_url))
        for name, entry in settings.providers.items()
    ]
    if current.name not in settings.providers:
        detail = _where(current.type, current.model, current.base_url)
        choices.insert(0, Choice(current.name, current.name, detail))
    return choices


def _where(kind: str, model: str | None, base_url: str | None) -> str:
    parts = [kind, model or "its default model"]
    return " · ".join([*parts, redact_url(base_url)] if base_url else parts)


def session_choices(workspace: Path, directory: Path | None = None) -> list[Choice]:
    """This folder's recent sessions, newest first: first prompt, age and length."""
    choices = []
    for path, session in sessions_of(workspace, directory):
        prompt = " ".join(session.first_prompt.split())
        if len(prompt) > PROMPT_WIDTH:
            prompt = prompt[: PROMPT_WIDTH - 1] + "…"
        replies = f"{session.turns} repl{'y' if session.turns == 1 else 'ies'}"
        choices.append(Choice(session.id, prompt or "(no prompt)", f"{age_of(path)} · {replies}"))
        if len(choices) == LISTED_SESSIONS:
            break
    return choices


def recent_lines(session: Session, count: int = RECENT_MESSAGES) -> list[str]:
    """The last ``count`` prompts and answers, each cut to a few lines, as ``> prompt``
    and the answer's text (the tools it called, when it said nothing)."""
    shown = [m for m in session.messages if m.role in ("user", "assistant") and _said(m)]
    lines = []
    for message in shown[-count:]:
        lines.append(_line(message))
        lines += [
            _subagent_line(session.subagents[u.id])
            for u in message.tool_uses
            if u.id in session.subagents
        ]
    return lines


def _subagent_line(log: SubagentLog) -> str:
    """``  ↳ general-purpose (called Read, Grep): its answer's first line``."""
    names = [use.name for message in log.messages for use in message.tool_uses]
    called = f" (called {', '.join(names)})" if names else ""
    answer = (log.answer.strip().splitlines() or ["no answer"])[0][:SHOWN_WIDTH]
    return f"  ↳ {log.agent}{called}: {answer}"


def _said(message: Message) -> str:
    text = message.text.strip()
    if text:
        return text
    names = [use.name for use in message.tool_uses]
    return f"(called {', '.join(names)})" if names else ""


def _line(message: Message) -> str:
    text = _said(message)
    lines = text.splitlines()
    cut = "\n".join(lines[:SHOWN_LINES])[:SHOWN_WIDTH]
    if cut != text:
        cut += " …"
    return f"> {cut}" if message.role == "user" else cut
