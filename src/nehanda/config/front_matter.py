"""YAML front matter of a Markdown file (commands, skills, agents); pure.

A file opens with a line ``---``, then YAML, then a line ``---``; the rest is the body.
A file without that opening has no front matter, and all of it is the body. The YAML is
read with PyYAML's safe loader (plain values only: no tags, no objects), as Claude Code
and the Agent Skills specification write it: quoted or plain scalars, lists, maps,
folded text. Anything else is a ``FrontMatterError`` saying what is wrong.

PyYAML is loaded only when a file has front matter, so a session without command or
skill files never imports it. The fields' meaning is the caller's; ``text_field`` and
``list_field`` read the two shapes the formats use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Front matter is a few lines; a bigger block is a mistake, or a way to use up memory.
MAX_FRONT_MATTER = 64 * 1024


class FrontMatterError(ValueError):
    """Front matter that cannot be read; the message says why, for a one-line note."""


@dataclass(frozen=True)
class Document:
    fields: dict[str, Any]
    body: str


def split_front_matter(text: str) -> Document:
    """``text``'s front matter and body; ``FrontMatterError`` for a block that is not a
    YAML map of names, or is left open."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return Document({}, text)
    for index, line in enumerate(lines[1:], start=1):
        if line.rstrip() == "---":
            block = "".join(lines[1:index])
            return Document(_read_yaml(block), "".join(lines[index + 1 :]))
    raise FrontMatterError("the front matter opened with --- is never closed by a --- line")


def _read_yaml(block: str) -> dict[str, Any]:
    if len(block) > MAX_FRONT_MATTER:
        raise FrontMatterError(f"the front matter is longer than {MAX_FRONT_MATTER} characters")
    if not block.strip():
        return {}
    import yaml

    try:
        # libyaml's loader when PyYAML was built with it: the same safe subset, faster.
        value = yaml.load(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" (line {where.line + 2})" if where is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise FrontMatterError(f"the front matter is not valid YAML{line}: {problem}") from None
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise FrontMatterError("the front matter must be a map of names to values")
    return value


def text_field(fields: dict[str, Any], name: str) -> str | None:
    """The field ``name`` as text (a number or true/false as YAML spells it); ``None``
    when absent; ``FrontMatterError`` for a list or map."""
    value = fields.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    raise FrontMatterError(f"{name} must be text, not a {_shape(value)}")


def list_field(fields: dict[str, Any], name: str) -> tuple[str, ...]:
    """The field ``name`` as a list of texts: a YAML list, or one text whose items are
    separated by commas or spaces outside parentheses (``Bash(git add:*), Read``)."""
    value = fields.get(name)
    if value is None:
        return ()
    if isinstance(value, list):
        if not all(isinstance(item, str) for item in value):
            raise FrontMatterError(f"every item of {name} must be text")
        return tuple(item.strip() for item in value if item.strip())
    return split_items(text_field(fields, name) or "")


def split_items(text: str) -> tuple[str, ...]:
    """``text`` cut at commas and spaces that lie outside parentheses."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in ", \t\n" and depth == 0:
            items.append("".join(current))
            current = []
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        depth = max(depth, 0)
        current.append(char)
    items.append("".join(current))
    return tuple(item for item in items if item)


def _shape(value: object) -> str:
    return "map" if isinstance(value, dict) else "list" if isinstance(value, list) else "value"
