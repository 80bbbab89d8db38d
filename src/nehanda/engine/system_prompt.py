"""The system prompt every session starts with, and the instructions files it carries.

``AGENTS.md`` in the user's config dir and in the workspace root are added the way
other agent tools do it (the workspace's last, so it has the final word); each is
capped so a huge file cannot crowd out the conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nehanda.fs import config_dir

BASE_PROMPT = """\
You are nehanda, a command-line assistant working in the directory {workspace}.
Use the tools to look at files instead of guessing; read before you answer
questions about the code. Paths are relative to that directory. When you have
what you need, answer briefly and plainly."""

INSTRUCTIONS_FILE = "AGENTS.md"
MAX_INSTRUCTIONS_CHARS = 20_000


@dataclass(frozen=True)
class Instructions:
    path: Path
    text: str
    truncated: bool = False


def build_system_prompt(workspace: Path, instructions: list[Instructions] | None = None) -> str:
    sections = [BASE_PROMPT.format(workspace=workspace)]
    for item in instructions or []:
        note = " (cut short: the file is too long)" if item.truncated else ""
        sections.append(f"# Instructions from {item.path}{note}\n\n{item.text.strip()}")
    return "\n\n".join(sections)


def load_instructions(workspace: Path) -> list[Instructions]:
    """The ``AGENTS.md`` files that apply to this workspace, user's first."""
    found = []
    for path in (config_dir() / INSTRUCTIONS_FILE, workspace / INSTRUCTIONS_FILE):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if text.strip():
            cut = len(text) > MAX_INSTRUCTIONS_CHARS
            found.append(Instructions(path, text[:MAX_INSTRUCTIONS_CHARS], cut))
    return found
