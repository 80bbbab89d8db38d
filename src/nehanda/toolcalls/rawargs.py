"""Arguments written as raw text (XML-style dialects), typed by the tool's schema.

Raw-text dialects (Qwen3-Coder, GLM, MiniMax, Seed-OSS, Step-3, DSML) keep each
value as written: one framing newline is dropped on each side, no escape is
decoded, and a value is converted only where the schema says integer, number,
boolean, null, array or object.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from nehanda.toolcalls import messages
from nehanda.toolcalls.shapes import Found, checked
from nehanda.toolcalls.xmlcalls import schema_property, typed, unframe


def raw_call(
    name: str,
    params: list[tuple[str, str]],
    known: Collection[str] | None,
    schemas: Mapping[str, Mapping[str, Any]],
) -> Found:
    """One call from its name and its (key, raw value) pairs, in order of writing."""
    args: dict[str, Any] = {}
    schema = schemas.get(name)
    for key, value in params:
        if key in args:
            return Found(name, {}, ("duplicate_key", messages.duplicate_key(name, key)))
        args[key] = typed(unframe(value), schema_property(schema, key))
    return checked(name, args, known)


def truncated(name: str | None) -> Found:
    """The call the output ended inside: nothing runs, the model is asked again."""
    return Found(name, {}, ("truncated", messages.truncated(name)))
