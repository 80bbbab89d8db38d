"""Subagent definitions as users keep them: ``agents/NAME.md`` with YAML front matter.

The format is Claude Code's: front matter ``name``, ``description``, ``tools`` (a list,
or a comma-separated string; absent means every tool) and ``model`` (``inherit`` or a
model name), then the body, the subagent's system prompt. Files come from
``~/.claude/agents/`` and nehanda's ``agents/`` in its config folder, then, for a trusted
project only, ``.claude/agents/`` and ``.nehanda/agents/``; a later one of the same name
wins (the project's over the user's, as in Claude Code). ``general-purpose`` is built in.

The front matter is YAML, read by ``config.front_matter`` as commands' and skills' is. A
file it cannot read is skipped with a note.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nehanda.config.front_matter import FrontMatterError, list_field, split_front_matter, text_field
from nehanda.fs import config_dir

GENERAL_PURPOSE = "general-purpose"
# Bigger than any prompt a person writes: a file past it is not a definition.
_MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class AgentDefinition:
    """``tools`` ``None``: the tools the definition leaves to nehanda (every tool for a
    file, the read-only ones for the built-in); ``model`` ``None``: the session's."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    path: Path | None = None
    read_only: bool = False  # the built-in's default: only the read-only tools


BUILT_IN = AgentDefinition(
    GENERAL_PURPOSE,
    "General-purpose agent for researching complex questions, searching for code and "
    "running multi-step tasks that only read. When you are searching for a keyword or "
    "file and are not confident of finding it in the first few tries, use this agent.",
    "You are a subagent of nehanda, an agentic coding assistant. Carry out the task you "
    "are given with the tools you have, then answer with a concise report of what you "
    "found: the facts, file paths and line numbers that matter. Your answer goes back to "
    "the agent that asked, not to the user; it cannot ask you anything back.",
    read_only=True,
)


def parse_definition(text: str, path: Path) -> AgentDefinition:
    """A definition from a file's text; ``FrontMatterError`` when it is not one."""
    document = split_front_matter(text)
    fields, body = document.fields, document.body.strip()
    name, description = text_field(fields, "name") or path.stem, text_field(fields, "description")
    if not description:
        raise FrontMatterError("`description` is missing: it tells the model when to use it")
    if not body:
        raise FrontMatterError("the body, the subagent's system prompt, is empty")
    model = text_field(fields, "model")
    model = None if model in (None, "", "inherit") else model
    tools = None if fields.get("tools") is None else list_field(fields, "tools")
    return AgentDefinition(name, description, body, tools, model, path)


def agent_folders(workspace: Path, *, trusted: bool, home: Path | None = None) -> list[Path]:
    """Where definitions are read from, the later winning; a project's only if trusted."""
    home = home or Path.home()
    folders = [home / ".claude" / "agents", config_dir() / "agents"]
    if trusted:
        folders += [workspace / ".claude" / "agents", workspace / ".nehanda" / "agents"]
    return folders


def load_definitions(folders: list[Path]) -> tuple[dict[str, AgentDefinition], list[str]]:
    """Every definition by name, the built-in first; and a note for each file skipped."""
    found = {GENERAL_PURPOSE: BUILT_IN}
    notes: list[str] = []
    for folder in folders:
        try:
            paths = sorted(path for path in folder.iterdir() if path.suffix == ".md")
        except OSError:
            continue
        for path in paths:
            try:
                if path.stat().st_size > _MAX_BYTES:
                    raise FrontMatterError(f"it is larger than {_MAX_BYTES // 1024} KiB")
                definition = parse_definition(path.read_text(encoding="utf-8"), path)
            except (OSError, UnicodeDecodeError, FrontMatterError) as error:
                notes.append(f"{path}: skipped, not a subagent definition: {error}")
                continue
            found[definition.name] = definition
    return found, notes
