"""The wording of tool-call problems: short, and fit to send back to the model."""

from __future__ import annotations

from collections.abc import Collection

_MAX_LISTED = 30
_MAX_RAW = 2000


def _call(name: str | None) -> str:
    return f"the {name} call" if name else "a tool-call block"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def unknown_tool(name: str, known: Collection[str] | None) -> str:
    if not known:
        return f"There is no tool named {name!r}; nothing was run."
    names = sorted(known)
    listed = ", ".join(names[:_MAX_LISTED]) + (", ..." if len(names) > _MAX_LISTED else "")
    return f"There is no tool named {name!r}; nothing was run. Available tools: {listed}."


def invalid_json(name: str | None, detail: str) -> str:
    return (
        f"The arguments of {_call(name)} could not be read as JSON ({detail}); nothing was "
        "run. Send the call again with a valid JSON object."
    )


def duplicate_key(name: str | None, key: str) -> str:
    return (
        f"{_sentence(_call(name))} gives the key {key!r} more than once; nothing was run. "
        "Send the call again naming each argument once."
    )


def truncated(name: str | None) -> str:
    return f"The output ended inside {_call(name)}; nothing was run. Send the complete call again."


def repaired(name: str, notes: tuple[str, ...]) -> str:
    what = ", ".join(notes) if notes else "malformed JSON"
    return f"The {name} call had malformed JSON ({what}); it was repaired and used."


def clip(raw: str) -> str:
    """The raw block as kept in a problem: enough to recognise it, never megabytes."""
    if len(raw) <= _MAX_RAW:
        return raw
    half = _MAX_RAW // 2
    return raw[:half] + f"\n... [{len(raw) - _MAX_RAW} characters] ...\n" + raw[-half:]
