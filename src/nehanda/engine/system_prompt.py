"""The system prompt every session starts with, and the instructions files it carries.

``AGENTS.md`` in the user's config dir and in the workspace root are added the way
other agent tools do it (the workspace's last, so it has the final word); each is
capped so a huge file cannot crowd out the conversation. The workspace's file arrives
with the code, which may be anyone's: it is added only once the user trusts the folder
(``nehanda trust``), and ``withheld_note`` says when it was left out.

In plan mode the prompt ends with ``PLAN_MODE``: the model may read and plan, and must
not change anything (it is offered the read-only tools only). It comes last, so that no
instructions file has the final word over it; a session rebuilds its prompt when the
mode changes.
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

PLAN_MODE = """\
# Plan mode

The user has turned plan mode on: look, think and plan, and change nothing. Only
read-only tools are offered; use them to read and search what you need. Do not
write or edit files, run commands, or say that you did. Answer with a plan: the
steps you would take, the files you would change and how, and anything to settle
first. The user leaves plan mode (Shift-Tab) when the plan suits them."""

INSTRUCTIONS_FILE = "AGENTS.md"
MAX_INSTRUCTIONS_CHARS = 20_000


@dataclass(frozen=True)
class Instructions:
    path: Path
    text: str
    truncated: bool = False


def build_system_prompt(
    workspace: Path, instructions: list[Instructions] | None = None, *, plan: bool = False
) -> str:
    sections = [BASE_PROMPT.format(workspace=workspace)]
    for item in instructions or []:
        note = " (cut short: the file is too long)" if item.truncated else ""
        sections.append(f"# Instructions from {item.path}{note}\n\n{item.text.strip()}")
    if plan:
        sections.append(PLAN_MODE)
    return "\n\n".join(sections)


def load_instructions(workspace: Path, *, trusted: bool) -> list[Instructions]:
    """The ``AGENTS.md`` files that apply to this workspace, user's first; the
    workspace's only when the user trusts the folder (``trusted``)."""
    found = []
    paths = [config_dir() / INSTRUCTIONS_FILE]
    if trusted:
        paths.append(workspace / INSTRUCTIONS_FILE)
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if text.strip():
            cut = len(text) > MAX_INSTRUCTIONS_CHARS
            found.append(Instructions(path, text[:MAX_INSTRUCTIONS_CHARS], cut))
    return found


def withheld_note(workspace: Path, *, trusted: bool) -> str | None:
    """What to tell the user when the workspace's ``AGENTS.md`` was left out."""
    path = workspace / INSTRUCTIONS_FILE
    if trusted or not path.is_file():
        return None
    return (
        f"{path} was not given to the model: this folder is not trusted, and its "
        "instructions could be anyone's (run `nehanda trust` if you trust it)"
    )
