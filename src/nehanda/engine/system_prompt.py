"""The base system prompt every session starts with."""

from __future__ import annotations

from pathlib import Path

BASE_PROMPT = """\
You are nehanda, a command-line assistant working in the directory {workspace}.
Use the tools to look at files instead of guessing; read before you answer
questions about the code. Paths are relative to that directory. When you have
what you need, answer briefly and plainly."""


def build_system_prompt(workspace: Path) -> str:
    return BASE_PROMPT.format(workspace=workspace)
