"""The REPL's slash commands: what each takes, how a line is read, and the help text. Pure.

A line is a command when its first word is ``/`` and a command-like name (letters,
digits, ``-``, ``_``, ``:``; ``/model qwen3``); any other line, ``/usr/bin/env``
included, is a prompt for the model. A custom command's name (``config.commands``) is
a prompt too, which ``cli.custom_commands`` fills in; a name no command has is
``Invalid``, naming the closest.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from nehanda.config.commands import CustomCommand
from nehanda.config.permission_modes import MODES, PERMISSION_MODES, Mode


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    summary: str
    max_args: int = 0
    min_args: int = 0
    choices: tuple[str, ...] = ()
    then: tuple[str, ...] = ()  # what the second word must be, when the first is given


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "/help", "these commands and keys"),
    CommandSpec(
        "model",
        "/model [NAME]",
        "switch the model (a list to pick from); the conversation goes on",
        1,
    ),
    CommandSpec(
        "provider",
        "/provider [NAME [MODEL]]",
        "switch provider (a list to pick from; its default model unless MODEL)",
        2,
    ),
    CommandSpec(
        "mode",
        "/mode [auto|native|rescue]",
        "how tools are called (auto: as detected)",
        1,
        choices=("auto", "native", "rescue"),
    ),
    CommandSpec("tools", "/tools", "what the model may call, with what permission"),
    CommandSpec(
        "permissions",
        f"/permissions [mode {'|'.join(MODES)}]",
        "the permission mode and rules in force, or set the mode (also Shift-Tab)",
        2,
        choices=("mode",),
        then=MODES,
    ),
    CommandSpec("mcp", "/mcp", "the MCP servers, their state and tools"),
    CommandSpec("skills", "/skills", "the skills the model may load, and where each is kept"),
    CommandSpec("init", "/init", "have the model read the project and write its AGENTS.md"),
    CommandSpec("bashes", "/bashes", "the background shells: state, command, output file"),
    CommandSpec("clear", "/clear", "start a new conversation"),
    CommandSpec(
        "resume", "/resume [ID]", "pick a recent session here to continue, or session ID", 1
    ),
    CommandSpec(
        "rewind",
        "/rewind",
        "go back to before an earlier prompt: the files, the conversation or both",
    ),
    CommandSpec("cost", "/cost", "tokens used so far"),
    CommandSpec("context", "/context", "what the context window holds: prompt, tools, messages"),
    CommandSpec(
        "compact", "/compact [FOCUS]", "summarise older turns now (FOCUS: what to keep most of)", 64
    ),
    CommandSpec("reasoning", "/reasoning", "the model's reasoning for the last answer, in full"),
    CommandSpec(
        "output", "/output [N]", "the whole output of the last prompt's tool calls (N: one)", 1
    ),
    CommandSpec("exit", "/exit", "leave (also Ctrl-D, or Ctrl-C twice)"),
)
ALIASES = {"quit": "exit", "q": "exit", "?": "help"}
KEYS = (
    ("Enter", "send"),
    ("Esc Enter, Alt-Enter, \\ Enter", "new line (pasted text keeps its lines)"),
    ("Up, Down", "earlier prompts, kept across sessions"),
    ("Shift-Tab", "next permission mode: default, accept-edits, plan"),
    ("Esc", "while a reply runs: stop it, its tool included"),
    ("Esc Esc", "at an empty prompt: /rewind; with text typed: clear it"),
    ("Ctrl-C", "cancel the turn; twice at an empty prompt: leave"),
    ("Ctrl-O", "the whole output of the last prompt's tool calls (as /output)"),
    ("Ctrl-D", "leave"),
)
_SPECS = {spec.name: spec for spec in COMMANDS}
_COMMAND_WORD = re.compile(r"/([A-Za-z0-9_:-]+|\?)(?=\s|$)")
Custom = Mapping[str, CustomCommand]


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Invalid:
    """A command that cannot run as typed; ``message`` says what to type instead."""

    message: str


def parse(line: str, custom: Custom | None = None) -> Command | Invalid | None:
    """The command ``line`` asks for, ``Invalid``, or ``None`` when it is a prompt (one
    of the ``custom`` commands among them)."""
    text = line.strip()
    match = _COMMAND_WORD.match(text)
    if match is None:
        return None
    word = match.group(1).lower()
    name = ALIASES.get(word, word)
    spec = _SPECS.get(name)
    if spec is None:
        if custom and match.group(1) in custom:
            return None
        return Invalid(_unknown(match.group(1), custom or {}))
    args = tuple(text[match.end() :].split())
    if not spec.min_args <= len(args) <= spec.max_args:
        return Invalid(f"usage: {spec.usage}")
    if spec.choices and args and args[0] not in spec.choices:
        return Invalid(f"usage: {spec.usage}")
    if spec.then and args and (len(args) < 2 or args[1] not in spec.then):
        return Invalid(f"usage: {spec.usage}")
    return Command(name, args)


def _unknown(word: str, custom: Custom) -> str:
    names = [spec.name for spec in COMMANDS]
    close = difflib.get_close_matches(word, [*names, *custom], n=1)
    hint = f" (did you mean /{close[0]}?)" if close else ""
    listed = " ".join(f"/{name}" for name in [*names, *custom])
    return f"unknown command /{word}{hint}. The commands are: {listed}"


def help_sections(custom: Custom | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """What ``/help`` shows: titled lists of (what to type, what it does)."""
    sections = [("Commands", [(spec.usage, spec.summary) for spec in COMMANDS])]
    if custom:
        sections.append(("Custom commands", [_custom_row(c) for c in custom.values()]))
    return [*sections, ("Keys", list(KEYS))]


def _custom_row(command: CustomCommand) -> tuple[str, str]:
    usage = f"/{command.name} {command.argument_hint}".rstrip()
    first = command.body.splitlines()[0][:60] if command.body else ""
    summary = command.description or first
    return usage, f"{summary} ({command.where})".lstrip()


def shadowed(custom: Custom) -> list[str]:
    """A note for each custom command whose name is one of nehanda's own commands."""
    return [
        f"/{name}: {command.path} is not used; /{name} is one of nehanda's own commands"
        for name, command in custom.items()
        if ALIASES.get(name.lower(), name.lower()) in _SPECS
    ]


def command_words(custom: Custom | None = None) -> list[str]:
    """Every command as typed, for completion."""
    return [f"/{spec.name}" for spec in COMMANDS] + [f"/{name}" for name in custom or {}]


def mode_line(mode: Mode) -> str:
    """What the line under the prompt says of the permission mode ``mode``."""
    return f"{PERMISSION_MODES[mode].status} · Shift-Tab to change"
