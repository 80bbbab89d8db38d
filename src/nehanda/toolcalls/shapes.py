"""From a decoded JSON value to the calls it names, whatever keys the model chose.

Models drift: ``parameters``, ``input`` and ``args`` mean ``arguments``; ``tool``,
``function`` and ``tool_name`` mean ``name``; OpenAI's ``{"function": {"name",
"arguments"}}`` wraps a call, and ``{"tool_calls": [...]}`` a list of them; arguments
may arrive as a JSON-encoded string. A
``Found`` is one call or one reason it was dropped, before ids are handed out.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from nehanda.events import ProblemKind
from nehanda.toolcalls import messages
from nehanda.toolcalls.jsonvalue import Failure, decode

NAME_KEYS = ("name", "tool", "tool_name", "function")
# What may sit around the list in an OpenAI message printed as text besides "tool_calls".
_WRAPPER_KEYS = frozenset({"tool_calls", "role", "content", "type"})
ARG_KEYS = ("arguments", "parameters", "input", "args")
META_KEYS = frozenset({"id", "type", "call_id", "tool_call_id"})


@dataclass
class Found:
    """One call a block yielded, or (``problem`` set) one call it had to drop."""

    name: str | None
    args: dict[str, Any]
    problem: tuple[ProblemKind, str] | None = None
    repaired: tuple[str, ...] | None = None
    index: int | None = None


def failure_found(name: str | None, failure: Failure) -> Found:
    if failure.kind == "duplicate_key":
        return Found(name, {}, ("duplicate_key", messages.duplicate_key(name, failure.detail)))
    return Found(name, {}, ("invalid_json", messages.invalid_json(name, failure.detail)))


def checked(name: str, args: dict[str, Any], known: Collection[str] | None) -> Found:
    if known is not None and name not in known:
        return Found(name, {}, ("unknown_tool", messages.unknown_tool(name, known)))
    return Found(name, args)


def _arguments(name: str, raw: Any) -> dict[str, Any] | Found:
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, str):
        value = decode(raw.strip())
        if isinstance(value, Failure):
            return failure_found(name, value)
        if isinstance(value, dict):
            return value
    return failure_found(name, Failure("invalid_json", "the arguments are not an object"))


def _from_object(obj: dict[str, Any], known: Collection[str] | None, loose: bool) -> Found | None:
    inner = obj.get("function")
    if isinstance(inner, dict) and isinstance(inner.get("name"), str):
        obj = inner
    name_key = next((k for k in NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name_key is None:
        if loose and len(obj) == 1:
            ((key, value),) = obj.items()
            if known is not None and key in known and isinstance(value, dict):
                return Found(key, value)
        return None
    name: str = obj[name_key]
    args_key = next((k for k in ARG_KEYS if k in obj), None)
    if args_key is not None:
        args = _arguments(name, obj[args_key])
        if isinstance(args, Found):
            return args
        return checked(name, args, known)
    rest = {k: v for k, v in obj.items() if k != name_key and k not in META_KEYS}
    if rest and not loose:
        return None
    return checked(name, rest, known)


def unwrap_tool_calls(value: Any) -> Any:
    """The list inside ``{"tool_calls": [...]}`` (an OpenAI message printed as text).

    Only a wrapper whose other keys are message fields (``role``, ``content``,
    ``type``), with empty content, is unwrapped; anything else is returned unchanged.
    """
    if not isinstance(value, dict) or "tool_calls" not in value:
        return value
    inner = value["tool_calls"]
    if not isinstance(inner, list) or not inner or not set(value) <= _WRAPPER_KEYS:
        return value
    if value.get("content") not in (None, "") or value.get("role", "assistant") != "assistant":
        return value
    return inner


def calls_in(
    value: Any,
    known: Collection[str] | None,
    *,
    name: str | None = None,
    loose: bool = True,
) -> list[Found] | None:
    """The calls ``value`` holds, or None when it is not shaped like calls at all.

    ``name`` is given when the format put the tool name outside the JSON, which then
    holds only the arguments. ``loose`` accepts arguments written beside the name
    (``{"name": "Read", "path": "x"}``), only inside a block reserved for calls.
    """
    if type(value) is dict and len(value) == 2 and name is None:
        # The canonical shape, first: most calls look exactly like this.
        tool, args = value.get("name"), value.get("arguments")
        if type(tool) is str and type(args) is dict:
            return [checked(tool, args, known)]
    value = unwrap_tool_calls(value) if name is None else value
    if name is not None:
        if not isinstance(value, dict):
            return [failure_found(name, Failure("invalid_json", "the arguments are not an object"))]
        return [checked(name, value, known)]
    if isinstance(value, dict):
        found = _from_object(value, known, loose)
        return None if found is None else [found]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        items = [_from_object(v, known, loose) for v in value]
        if any(item is None for item in items):
            return None
        return [item for item in items if item is not None]
    return None
