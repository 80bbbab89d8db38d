"""What a built-in tool is: an argument model, a description, a permission default, a handler.

The JSON Schema the model sees comes from the argument model (``Tool.spec``), so the
arguments are described once. Handlers receive the validated model instance and the
``ToolContext``; they return the text sent back to the model or raise ``ToolError``.

A tool also says what the layers above need to know about it (``Tool.facts``, the
``ToolFacts`` each of its specs and checked calls carry), so that none of them keeps a
table of tools: its kind, which argument is the path it works on (permissions), which
is the command it runs, which arguments sum a call up in one line (the renderers),
the diff a call would make (the approval prompt), how to read its output as the
plain text it frames (Read's line numbers, for spotting calls copied from output), and
what a tool line says of a call that succeeded (Write: the lines it wrote).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pydantic

from nehanda.config.skills import SkillShelf
from nehanda.errors import ToolError
from nehanda.sandbox.programs import Programs
from nehanda.tools.checkpoint import Checkpoint, NoCheckpoint
from nehanda.tools.filestate import FileRecord
from nehanda.tools.paths import Placed, place_in_workspace
from nehanda.tools.web_access import WebAccess
from nehanda.types import ImagePart, JsonObject, Todo, ToolFacts, ToolKind, ToolSpec

if TYPE_CHECKING:
    from nehanda.sandbox.confine import Sandbox
    from nehanda.tools.background import BackgroundShells

# Keys whose value maps names to schemas: the names are data, not schema keywords.
_SCHEMA_MAPS = ("properties", "$defs", "patternProperties")


class EditorFiles(Protocol):
    """The editor's own copy of the files (ACP's ``fs`` methods): its unsaved buffers.

    Read, Write and Edit use it in place of the disk, and only for a resolved path that
    every check of theirs has passed. An ``OSError`` says the editor could not.
    """

    async def read_text(self, path: Path) -> str: ...

    async def write_text(self, path: Path, text: str) -> None: ...


@dataclass(frozen=True)
class ToolContext:
    """Where a tool runs; ``workspace`` is absolute and already resolved (realpath).

    ``files`` is shared by every call of a session: what the model last saw of each
    file. ``secret_env`` names environment variables that Bash must not pass on, beyond
    the ``*_API_KEY`` ones it always drops. ``granted`` holds resolved paths outside the
    workspace that the user allowed for the one call at hand. ``sandbox`` is the kernel
    sandbox Bash runs its commands in (``None``: none). ``hidden`` says which paths the
    walks of Grep, Glob and LS never enter, list or search (the secret places and the
    Read deny rules, ``permissions.hidden.HiddenPaths``). ``programs`` are the helper
    programs found at start where no sandboxed command can write (none by default: Grep
    then searches in Python). ``skills`` are the session's skills (the Skill tool's).
    ``shells`` holds the session's background shells (``None``:
    Bash runs nothing in the background), ``web`` what WebFetch reaches the web through.
    ``image_bytes`` is the largest image the provider takes: Read downscales a larger one,
    or refuses it. ``checkpoint`` records what Write, Edit and Bash are about to change.
    ``editor``: the editor's files, which Read, Write and Edit read and write instead of
    the disk (``None``: the disk).
    """

    workspace: Path
    files: FileRecord = field(default_factory=FileRecord)
    secret_env: frozenset[str] = frozenset()
    granted: tuple[Path, ...] = ()
    sandbox: Sandbox | None = None
    hidden: Callable[[Path], bool] = field(default=lambda path: False)
    programs: Programs = field(default_factory=Programs)
    skills: SkillShelf = field(default_factory=SkillShelf)
    shells: BackgroundShells | None = None
    web: WebAccess = field(default_factory=WebAccess)
    image_bytes: int = 20 * 1024 * 1024  # the largest image the provider takes
    checkpoint: Checkpoint = field(default_factory=NoCheckpoint)
    editor: EditorFiles | None = None

    def resolve_walk(self, raw: str, *, tool: str, action: str) -> Path:
        """Like ``resolve``, and a ``ToolError`` for a hidden place to walk from."""
        path = self.resolve(raw, tool=tool, action=action)
        if self.hidden(path):
            raise ToolError(
                tool,
                f"{raw} is kept from the model (a secret place, or a Read deny rule covers "
                "it); its contents cannot be searched or listed.",
            )
        return path

    def resolve(self, raw: str, *, tool: str, action: str) -> Path:
        """``raw`` resolved, or a ``ToolError`` when it leaves the workspace unallowed."""
        return self.place(raw, tool=tool, action=action).path

    def place(self, raw: str, *, tool: str, action: str) -> Placed:
        """``resolve``, with the root to open the path beneath (``tools.beneath``)."""
        return place_in_workspace(
            raw, self.workspace, tool=tool, action=action, granted=self.granted
        )


@dataclass(frozen=True)
class Shown:
    """A tool's answer that shows images beside its text (Read of a picture)."""

    text: str
    images: tuple[ImagePart, ...]


@dataclass(frozen=True)
class Tool:
    """A built-in tool: what it is called, how the model calls it, what runs, and its
    facts (``kind``, ``read_only`` and the rest, as ``types.ToolFacts`` describes them)."""

    name: str
    description: str
    args_model: type[pydantic.BaseModel]
    read_only: bool
    handler: Callable[[Any, ToolContext], Awaitable[str | Shown]]
    kind: ToolKind = "other"
    path_argument: str | None = None
    path_default: str | None = None
    more_paths: Callable[[JsonObject, str], list[str]] | None = None
    command_argument: str | None = None
    url_argument: str | None = None
    summary_keys: tuple[str, ...] = ()
    diff: Callable[[JsonObject, Path], list[str]] | None = None
    plain_output: Callable[[str], str] | None = None
    outcome: Callable[[JsonObject, str], str] | None = None
    # The spec as a session offers it (None: not offered), for a tool whose description
    # depends on what the session found (Skill); such a tool is not in the fixed list.
    offered_in: Callable[[ToolContext], ToolSpec | None] | None = None
    plan: Callable[[JsonObject], tuple[Todo, ...]] | None = None
    small_window: bool = True

    def spec(self) -> ToolSpec:
        return self._spec

    @cached_property
    def facts(self) -> ToolFacts:
        return ToolFacts(
            kind=self.kind,
            read_only=self.read_only,
            path_argument=self.path_argument,
            path_default=self.path_default,
            more_paths=self.more_paths,
            command_argument=self.command_argument,
            url_argument=self.url_argument,
            summary_keys=self.summary_keys,
            diff=self.diff,
            plain_output=self.plain_output,
            outcome=self.outcome,
            plan=self.plan,
            small_window=self.small_window,
        )

    @cached_property
    def _spec(self) -> ToolSpec:
        schema = compact_schema(self.args_model.model_json_schema())
        return ToolSpec(self.name, self.description, schema, facts=self.facts)


def compact_schema(schema: JsonObject) -> JsonObject:
    """Drop ``title`` keywords and collapse ``X | None`` to ``X``.

    Small models read every token of a schema; pydantic's titles repeat the property
    names, and an optional argument is simply one the model may leave out.
    """
    node = _collapse_optional(schema)
    out: JsonObject = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _compact_any(sub) for name, sub in value.items()}
        else:
            out[key] = _compact_any(value)
    return out


def _compact_any(value: Any) -> Any:
    if isinstance(value, dict):
        return compact_schema(value)
    if isinstance(value, list):
        return [_compact_any(item) for item in value]
    return value


def _collapse_optional(node: JsonObject) -> JsonObject:
    variants = node.get("anyOf")
    if not isinstance(variants, list) or len(variants) != 2 or {"type": "null"} not in variants:
        return node
    other = next(v for v in variants if v != {"type": "null"})
    merged = {k: v for k, v in node.items() if k != "anyOf"}
    if merged.get("default", ...) is None:
        del merged["default"]
    return {**other, **merged}
