"""Asking the user whether a tool call may run: a one-key prompt on the terminal.

The prompt shows exactly what would run: a command as written, with hidden
characters (control, zero-width and direction-changing characters) shown escaped, or
the file and a unified diff of the change for Edit and Write. ``y`` runs the call,
``n`` refuses it, ``a`` runs it and adds the suggested rules for the rest of the
session. ``TerminalApprover`` implements ``permissions.approver.Approver``.
"""

from __future__ import annotations

import asyncio
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from nehanda.errors import ToolError
from nehanda.permissions.approver import Answer
from nehanda.permissions.decision import Ask
from nehanda.tools.base import Tool
from nehanda.tools.output import cap_lines
from nehanda.tools.registry import BUILTIN_TOOLS
from nehanda.types import ToolUse

MAX_DIFF_LINES = 200
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


@dataclass
class TerminalApprover:
    """Asks on ``output`` and reads one key from ``input`` (a terminal, or a test's fake)."""

    input: IO[str]
    output: IO[str]
    workspace: Path

    async def ask(self, tool_use: ToolUse, decision: Ask) -> Answer:
        self.output.write(describe_request(tool_use, decision, self.workspace))
        always = f", a = always allow {' and '.join(decision.suggestions)} this session"
        choices = "y = yes, n = no" + (always if decision.suggestions else "")
        while True:
            self.output.write(f"Run it? ({escape_hidden(choices)}) ")
            self.output.flush()
            key = (await read_key(self.input)).lower()
            if key == "y":
                self.output.write("yes\n")
                return Answer(run=True)
            if key == "a" and decision.suggestions:
                self.output.write("always\n")
                return Answer(run=True, always=True)
            if key in ("n", "\x1b", "\x04", ""):
                self.output.write("no\n")
                return Answer(run=False, reason="the user said no")
            self.output.write("\n")


async def read_key(stream: IO[str]) -> str:
    """One key from a terminal, without waiting for Enter; one character elsewhere."""
    if not _is_terminal(stream):
        return stream.read(1)
    import termios
    import tty

    descriptor = stream.fileno()
    saved = termios.tcgetattr(descriptor)
    try:
        tty.setcbreak(descriptor)
        return await _next_char(descriptor)
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return os.isatty(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False


async def _next_char(descriptor: int) -> str:
    """One key, read without blocking the event loop, so that Ctrl-C still cancels."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(descriptor, wake)
    try:
        await ready
    finally:
        loop.remove_reader(descriptor)
    return os.read(descriptor, 4).decode("utf-8", "replace")[:1]


def describe_request(tool_use: ToolUse, decision: Ask, workspace: Path) -> str:
    """What the prompt shows: the call in full, and why it needs approval."""
    lines = [f"\nnehanda wants to run {tool_use.name}:"]
    tool = BUILTIN_TOOLS.get(tool_use.name)
    if tool is not None and tool.command_argument is not None:
        command = str(tool_use.input.get(tool.command_argument, ""))
        lines += [f"  $ {escape_hidden(line)}" for line in command.split("\n")]
    elif tool is not None and tool.diff is not None:
        lines += [escape_hidden(line, keep="\t") for line in _diff(tool, tool_use, workspace)]
    else:
        lines += [f"  {key}: {escape_hidden(str(value))}" for key, value in tool_use.input.items()]
    lines.append(f"It asks because {escape_hidden(decision.reason)}.")
    return "\n".join(lines) + "\n"


def _diff(tool: Tool, tool_use: ToolUse, workspace: Path) -> list[str]:
    raw = str(tool_use.input.get(tool.path_argument or "", ""))
    try:
        lines = tool.diff(tool_use.input, workspace) if tool.diff else []
    except (ToolError, ValueError) as error:
        return [f"  {raw}", f"  (no diff to show: {error})"]
    return cap_lines(lines, MAX_DIFF_LINES).split("\n") if lines else [f"  {raw}: no change"]


def escape_hidden(text: str, keep: str = "") -> str:
    """``text`` with every character that would not show as itself written escaped."""
    return "".join(
        char if char == " " or char in keep or not _hidden(char) else _escape(char) for char in text
    )


def _hidden(char: str) -> bool:
    category = unicodedata.category(char)
    return category in _HIDDEN_CATEGORIES or category.startswith("Z")


def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")
