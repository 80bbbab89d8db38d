"""Subagent definitions as users keep them: ``agents/NAME.md`` with YAML front matter.

The format is Claude Code's: front matter ``name``, ``description``, ``tools`` (a list,
or a comma-separated string; absent means every tool) and ``model`` (``inherit`` or a
model name), then the body, the subagent's system prompt. Files come from
``~/.claude/agents/`` and nehanda's ``agents/`` in its config folder, then, for a trusted
project only, ``.claude/agents/`` and ``.nehanda/agents/``; a later one of the same name
wins (the project's over the user's, as in Claude Code). ``general-purpose`` is built in.

The front matter reader is small and pure (``read_front_matter``): ``key: value`` lines,
quoted or not, and ``- item`` lists under a key; that is all these files use, and no YAML
library is a dependency. A file it cannot read is skipped with a note.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nehanda.fs import config_dir

GENERAL_PURPOSE = "general-purpose"
# Bigger than any prompt a person writes: a file past it is not a definition.
_MAX_BYTES = 256 * 1024

FrontMatter = dict[str, str | list[str]]


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


class FrontMatterError(ValueError):
    """The front matter could not be read; the message says where and why."""


def read_front_matter(text: str) -> tuple[FrontMatter, str]:
    """The front matter's keys and the body after it; no front matter: ``{}`` and the text."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        raise FrontMatterError("the front matter has no closing `---` line") from None
    found: FrontMatter = {}
    key = None
    for number, line in enumerate(lines[1:end], 2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        listed = found.get(key) if key is not None else None
        if stripped.startswith("- ") and isinstance(listed, list):
            listed.append(_scalar(stripped[2:]))
            continue
        name, colon, value = line.partition(":")
        if not colon or line[:1].isspace() or not name.strip():
            raise FrontMatterError(f"line {number}: expected `key: value`")
        key = name.strip()
        found[key] = _scalar(value) if value.strip() else []
    return found, "\n".join(lines[end + 1 :]).strip()


def _scalar(raw: str) -> str:
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value.split(" #", 1)[0].rstrip()


def tool_names(value: str | list[str] | None) -> tuple[str, ...] | None:
    """``tools`` as written: ``Read, Grep`` or a list (``[Read, Grep]`` inline too)."""
    if value is None:
        return None
    items = value if isinstance(value, list) else value.strip().strip("[]").split(",")
    return tuple(name for item in items if (name := _scalar(item).strip()))


def parse_definition(text: str, path: Path) -> AgentDefinition:
    """A definition from a file's text; ``FrontMatterError`` when it is not one."""
    found, body = read_front_matter(text)
    name, description = found.get("name", path.stem), found.get("description")
    if not isinstance(name, str) or not name:
        raise FrontMatterError("`name` must be a word such as code-reviewer")
    if not isinstance(description, str) or not description:
        raise FrontMatterError("`description` is missing: it tells the model when to use it")
    if not body:
        raise FrontMatterError("the body, the subagent's system prompt, is empty")
    model = found.get("model")
    if model is not None and not isinstance(model, str):
        raise FrontMatterError("`model` must be one name, or inherit")
    model = None if model in (None, "", "inherit") else model
    return AgentDefinition(name, description, body, tool_names(found.get("tools")), model, path)


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
