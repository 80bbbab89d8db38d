"""Custom slash commands: ``commands/NAME.md`` files, found and read, and their body
filled in for one use.

The format is Claude Code's: optional YAML front matter (``description``,
``argument-hint``, ``allowed-tools``, ``model``), then the prompt. ``$ARGUMENTS`` is
what follows the command's name, ``$1``…``$9`` its words; a body naming neither gets
the arguments appended. `` !`cmd` `` marks a command whose output replaces it: the
caller runs it, only when the command's ``allowed-tools`` allow it. A file in a
subfolder keeps its own name (``frontend/component.md`` is ``/component``); its folder
is shown beside it. ``load_commands`` reads the folders ``extension_files.places``
lists; a clash keeps the first, with a note. ``render`` is pure.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from nehanda.config.extension_files import Scope, places, untrusted_notes
from nehanda.config.front_matter import (
    FrontMatterError,
    list_field,
    split_front_matter,
    text_field,
)

COMMAND_NAME = re.compile(r"[A-Za-z0-9_:-]+")
MAX_COMMAND_FILE = 256 * 1024
MAX_COMMAND_FILES = 500  # per folder: more is a folder someone pointed at by mistake
_SHELL = re.compile(r"!`([^`\n]+)`")
_POSITIONAL = re.compile(r"\$([1-9])(?![0-9])")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    path: Path
    scope: Scope
    folder: str  # the subfolder it was found in ("" at the top), shown in /help
    body: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None

    @property
    def where(self) -> str:
        """Whose command it is, and its subfolder: ``project:frontend``."""
        return f"{self.scope}:{self.folder}" if self.folder else self.scope


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Shell:
    """A `` !`cmd` `` of the body: its output goes where it stood."""

    command: str


@dataclass(frozen=True)
class Commands:
    found: dict[str, CustomCommand]
    notes: tuple[str, ...] = ()


def load_commands(workspace: Path, *, trusted: bool) -> Commands:
    """Every command file that counts here, by name, and a note for each left out."""
    found: dict[str, CustomCommand] = {}
    notes: list[str] = []
    for place in places("commands", workspace, trusted=trusted):
        for path, folder in _command_files(place.folder):
            try:
                command = read_command(path, place.scope, folder)
            except (OSError, FrontMatterError, ValueError) as error:
                notes.append(f"{path}: left out: {error}")
                continue
            if command.name in found:
                kept = found[command.name].path
                notes.append(f"/{command.name}: {path} is not used; {kept} has the name")
                continue
            found[command.name] = command
    if not trusted:
        notes += untrusted_notes("commands", workspace)
    return Commands(found, tuple(notes))


def _command_files(root: Path) -> list[tuple[Path, str]]:
    """The ``.md`` files below ``root`` with the subfolder each lies in; no symlinked
    folder is walked into (it could lead anywhere, or round in a loop)."""
    found: list[tuple[Path, str]] = []
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        relative = os.path.relpath(folder, root)
        for name in sorted(files):
            if name.endswith(".md") and len(found) < MAX_COMMAND_FILES:
                found.append((Path(folder) / name, "" if relative == "." else relative))
    return found


def read_command(path: Path, scope: Scope, folder: str) -> CustomCommand:
    """The command in ``path``; ``FrontMatterError``/``ValueError`` saying what is wrong."""
    name = path.name.removesuffix(".md")
    if not COMMAND_NAME.fullmatch(name):
        raise ValueError(f"/{name} is not a command name (letters, digits, -, _ and : only)")
    with path.open("rb") as file:
        raw = file.read(MAX_COMMAND_FILE + 1)
    if len(raw) > MAX_COMMAND_FILE:
        raise ValueError(f"the file is longer than {MAX_COMMAND_FILE} bytes")
    document = split_front_matter(raw.decode("utf-8", errors="replace"))
    fields = document.fields
    return CustomCommand(
        name,
        path,
        scope,
        folder,
        document.body.strip(),
        text_field(fields, "description") or "",
        text_field(fields, "argument-hint") or "",
        list_field(fields, "allowed-tools"),
        text_field(fields, "model"),
    )


def render(command: CustomCommand, arguments: str) -> tuple[Text | Shell, ...]:
    """The body with ``arguments`` filled in, cut where a `` !`cmd` `` stands. The
    commands are those the file wrote (arguments fill them in, never add one)."""
    words = _words(arguments)
    body = command.body
    named = "$ARGUMENTS" in body or _POSITIONAL.search(body)
    if arguments.strip() and not named:
        body = f"{body}\n\nARGUMENTS: {arguments.strip()}"
    pieces: list[Text | Shell] = []
    at = 0
    for match in _SHELL.finditer(body):
        pieces.append(Text(_fill(body[at : match.start()], arguments, words)))
        pieces.append(Shell(_fill(match.group(1), arguments, words).strip()))
        at = match.end()
    pieces.append(Text(_fill(body[at:], arguments, words)))
    return tuple(piece for piece in pieces if not isinstance(piece, Text) or piece.text)


def _fill(text: str, arguments: str, words: list[str]) -> str:
    text = text.replace("$ARGUMENTS", arguments.strip())
    return _POSITIONAL.sub(lambda m: _nth(words, int(m.group(1))), text)


def _nth(words: list[str], number: int) -> str:
    return words[number - 1] if number <= len(words) else ""


def _words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # an unclosed quote: the words as typed
        return arguments.split()
