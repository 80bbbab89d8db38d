"""Prompts as the user typed them, made ready to send: custom commands and ``@path``.

A prompt whose first word is ``/`` and a command-like name (letters, digits, ``-``,
``_``, ``:``) names a command: a custom one becomes its body filled in
(``config.commands.render``), and one no command has is an ``UnknownCommand`` naming
the closest, so nothing is sent. ``/etc/hosts is broken`` is a prompt: its first word
goes on past the name.

A `` !`cmd` `` of a command's body runs only when the command's own ``allowed-tools``
allow it (judged with the user's deny and ask rules, in default mode, with no command
let through for only reading): a project's command file can run nothing that a rule
does not name. It then runs as a Bash call through the gate, with those rules added, in
the sandbox; its output takes its place. The turn then runs with the same rules added
(``ChatSession.ask``), and with the command's ``model`` if the provider lists it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from nehanda.cli.mentions import attach_mentions, run_call
from nehanda.config.commands import CustomCommand, Text, load_commands, render
from nehanda.config.trust import is_trusted
from nehanda.errors import NehandaError
from nehanda.permissions.decision import decide
from nehanda.permissions.rules import Rule, parse_rule
from nehanda.types import ImagePart, ToolResult, ToolUse
from nehanda.verdicts import Allow

if TYPE_CHECKING:
    from nehanda.cli.session import ChatSession

COMMAND_WORD = re.compile(r"/([A-Za-z0-9_:-]+)(?=\s|$)")


class UnknownCommand(NehandaError):
    """A prompt naming a command nobody has; nothing was sent."""

    exit_code = 2


@dataclass(frozen=True)
class Prepared:
    """A prompt ready to send, and what its turn runs with."""

    text: str
    rules: tuple[Rule, ...] = ()
    model: str | None = None
    notes: tuple[str, ...] = ()
    images: tuple[ImagePart, ...] = ()  # the images its mentions attached


def command_word(text: str) -> tuple[str, str] | None:
    """The command ``text`` names and the arguments after it; ``None`` for a prompt."""
    stripped = text.strip()
    match = COMMAND_WORD.match(stripped)
    if match is None:
        return None
    return match.group(1), stripped[match.end() :].strip()


def unknown_message(word: str, names: Iterable[str], elsewhere: Iterable[str] = ()) -> str:
    """What to say of ``/word`` when no command has it: the closest name, if one is close;
    ``elsewhere`` are the names that work only in the REPL."""
    if word.lower() in elsewhere:
        return f"/{word} works in the interactive session (nehanda), not in nehanda run"
    known = sorted(set(names))
    close = difflib.get_close_matches(word, known, n=1)
    hint = f"; did you mean /{close[0]}?" if close else ""
    return f"unknown command /{word}{hint} (nothing was sent)"


def check_run_prompt(text: str, workspace: Path, repl_only: Iterable[str]) -> None:
    """``UnknownCommand`` before ``nehanda run`` sends anything, for a prompt naming a
    command that no command file here has."""
    named = command_word(text)
    if named is None:
        return
    found = load_commands(workspace, trusted=is_trusted(workspace)).found
    if named[0] not in found:
        raise UnknownCommand(unknown_message(named[0], found, repl_only))


async def prepare_prompt(chat: ChatSession, text: str, repl_only: Iterable[str] = ()) -> Prepared:
    """``text`` made ready: a custom command filled in, mentioned files attached."""
    named = command_word(text)
    if named is None:
        return await _with_mentions(chat, Prepared(text))
    command = chat.commands.found.get(named[0])
    if command is None:
        raise UnknownCommand(unknown_message(named[0], chat.commands.found, repl_only))
    return await prepare_command(chat, command, named[1])


async def prepare_command(chat: ChatSession, command: CustomCommand, arguments: str) -> Prepared:
    rules = command_rules(command)
    parts, written = [], []
    for piece in render(command, arguments):
        if isinstance(piece, Text):
            parts.append(piece.text)
            written.append(piece.text)
        else:  # a command's output attaches no file it happens to name
            parts.append(await _shell(chat, piece.command, rules, command))
    model, notes = await _model(chat, command)
    prepared = Prepared("".join(parts).strip(), rules, model, notes)
    return await _with_mentions(chat, prepared, "\n".join(written))


def command_rules(command: CustomCommand) -> tuple[Rule, ...]:
    """The command's ``allowed-tools`` as rules (those that do not parse were noted at
    start and are left out)."""
    rules = []
    for text in command.allowed_tools:
        try:
            rules.append(parse_rule(text))
        except ValueError:
            continue
    return tuple(rules)


async def _shell(
    chat: ChatSession, line: str, rules: tuple[Rule, ...], command: CustomCommand
) -> str:
    use = ToolUse("command_shell", "Bash", {"command": line})
    checked = chat.agent.toolset.check(use)
    if isinstance(checked, ToolResult):
        return f"(`{line}` was not run: {checked.content})"
    gate = chat.gate
    # The command's own rules alone must allow it: no mode, no other allow rule, and no
    # command let through because it only reads.
    alone = replace(gate.rules, mode="default", allow=rules)
    if not isinstance(decide(checked, alone, gate.workspace), Allow):
        return f"(`{line}` was not run: the allowed-tools of {command.path} do not allow it)"
    with gate.for_turn(rules):
        result = await run_call(chat.agent.toolset, "Bash", {"command": line})
    return result.content


async def _model(chat: ChatSession, command: CustomCommand) -> tuple[str | None, tuple[str, ...]]:
    """The command's model if the provider lists it; else none, with a note."""
    wanted = command.model
    if not wanted or wanted == chat.agent.model:
        return None, ()
    from nehanda.providers.discovery import list_models

    try:
        offered = await list_models(chat.config)
    except NehandaError:
        offered = []
    if wanted in offered:
        return wanted, ()
    note = (
        f"/{command.name} asks for the model {wanted!r}, which {chat.config.name} does not list; "
    )
    return None, (note + f"it runs with {chat.agent.model}",)


async def _with_mentions(
    chat: ChatSession, prepared: Prepared, written: str | None = None
) -> Prepared:
    workspace = chat.gate.workspace
    attached = await attach_mentions(prepared.text, workspace, chat.agent.toolset, written)
    notes, images = prepared.notes + attached.notes, prepared.images + attached.images
    return replace(prepared, text=attached.text, notes=notes, images=images)
