"""What a built-in tool is: an argument model, a description, a permission default, a handler.

The JSON Schema the model sees comes from the argument model (``Tool.spec``), so the
arguments are described once. Handlers receive the validated model instance and the
``ToolContext``; they return the text sent back to the model or raise ``ToolError``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pydantic

from nehanda.tools.filestate import FileRecord
from nehanda.tools.paths import resolve_in_workspace
from nehanda.types import JsonObject, ToolSpec

# Keys whose value maps names to schemas: the names are data, not schema keywords.
_SCHEMA_MAPS = ("properties", "$defs", "patternProperties")


@dataclass(frozen=True)
class ToolContext:
    """Where a tool runs; ``workspace`` is absolute and already resolved (realpath).

    ``files`` is shared by every call of a session: what the model last saw of each
    file. ``secret_env`` names environment variables that Bash must not pass on, beyond
    the ``*_API_KEY`` ones it always drops. ``granted`` holds resolved paths outside the
    workspace that the user allowed for the one call at hand.
    """

    workspace: Path
    files: FileRecord = field(default_factory=FileRecord)
    secret_env: frozenset[str] = frozenset()
    granted: tuple[Path, ...] = ()

    def resolve(self, raw: str, *, tool: str, action: str) -> Path:
        """``raw`` resolved, or a ``ToolError`` when it leaves the workspace unallowed."""
        return resolve_in_workspace(
            raw, self.workspace, tool=tool, action=action, granted=self.granted
        )


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args_model: type[pydantic.BaseModel]
    read_only: bool
    handler: Callable[[Any, ToolContext], Awaitable[str]]

    def spec(self) -> ToolSpec:
        return self._spec

    @cached_property
    def _spec(self) -> ToolSpec:
        schema = compact_schema(self.args_model.model_json_schema())
        return ToolSpec(self.name, self.description, schema)


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
