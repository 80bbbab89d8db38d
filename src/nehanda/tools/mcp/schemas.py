"""Whether an MCP tool's schemas are safe to use: bounded, resolvable, shaped as read.

Pure. A server's ``inputSchema``, and its ``outputSchema`` (which the SDK checks each
result against), are hostile input: jsonschema follows ``$ref`` by recursion, so
``{"$ref": "#"}`` or a ``$defs`` cycle never ends, a ``$ref`` to a URL or to nowhere
raises, and the prompt and ToolSearch walk and print the whole schema. A tool whose
schema breaks one of these bounds is left out, with a note naming it:

- depth: at most 64 levels of JSON nesting. Real schemas stay far below (generated ones
  nest through ``$defs``, not inline); 64 keeps each recursive walk of a schema (the
  metaschema check, validation, rendering) far from Python's recursion limit. The SDK
  reads no message nested deeper than about 200 levels, so deeper ones never arrive.
- size: at most 128 KiB as JSON, some 32k tokens: more than a small model's whole
  window, several times the largest real tool schemas.
- ``$ref``: only to a place in the same schema (``#`` or ``#/a/b``), and coming back to a
  subschema already on the way only after going deeper into the value (``properties``,
  ``items``, ...), as a tree's ``{"properties": {"children": {"items": {"$ref": "#"}}}}``
  does: coming back at the same place of the value (``{"$ref": "#"}``, ``a`` to ``b`` to
  ``a``) never ends. Unfolded from the root, the refs may reach at most 10,000
  subschemas: a schema at the size bound holds a few thousand, and more is refs
  multiplying (an ``anyOf`` of two refs to the next doubles them at each step), which
  would make checking one call take seconds.
- shape (input schemas): each parameter, and each of its ``anyOf``/``oneOf`` options,
  is an object, a parameter's ``enum`` is a list, and ``required`` lists names; the
  prompt describes parameters from them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

MAX_DEPTH = 64
MAX_BYTES = 128 * 1024
MAX_UNFOLDED = 10_000

# Keywords whose schemas apply to the same value, and those that apply to a part of it.
_HERE_ONE = ("not", "if", "then", "else")
_HERE_MANY = ("allOf", "anyOf", "oneOf")
_HERE_NAMED = ("dependentSchemas",)
_DEEPER_ONE: tuple[str, ...] = ("additionalProperties", "additionalItems", "contains")
_DEEPER_ONE += ("propertyNames", "unevaluatedItems", "unevaluatedProperties", "items")
_DEEPER_MANY = ("prefixItems", "items")
_DEEPER_NAMED = ("properties", "patternProperties")
_UNFOLLOWED = ("$dynamicRef", "$recursiveRef")

# A subschema reached by following refs: (schema, refs on the way as (id, depth), depth).
_Step = tuple[Any, tuple[tuple[int, int], ...], int]


def schema_problem(schema: Any, label: str) -> str | None:
    """What makes ``schema`` unsafe to use, in words naming it ``label``, or ``None``; an
    ``inputSchema``'s shape is checked too, since the prompt reads it."""
    if too_deep(schema):
        return f"its {label} nests more than {MAX_DEPTH} levels deep"
    size = len(json.dumps(schema))
    if size > MAX_BYTES:
        return f"its {label} takes {size // 1024} KiB, more than {MAX_BYTES // 1024} KiB"
    problem = _ref_problem(schema) or (_shape_problem(schema) if label == "inputSchema" else None)
    return None if problem is None else f"its {label} {problem}"


def too_deep(value: Any) -> bool:
    """Whether ``value`` (a model's arguments, say) nests more than ``MAX_DEPTH`` levels."""
    return _depth(value) > MAX_DEPTH


def _depth(value: Any) -> int:
    """How deep ``value`` nests, counted without recursion, up to one past ``MAX_DEPTH``."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= MAX_DEPTH:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack += [(child, level + 1) for child in item.values()]
        elif isinstance(item, list):
            stack += [(child, level + 1) for child in item]
    return deepest


def _ref_problem(root: Any) -> str | None:
    stack: list[_Step] = [(root, (), 0)]
    for _ in range(MAX_UNFOLDED + 1):
        if not stack:
            return None
        schema, refs, depth = stack.pop()
        if not isinstance(schema, dict):
            continue
        if used := next((key for key in _UNFOLLOWED if key in schema), None):
            return f"uses {used}, which nehanda does not follow"
        if "$ref" in schema:
            target = _resolve(root, schema["$ref"])
            if isinstance(target, str):
                return target
            earlier = next((at for key, at in refs if key == id(target)), None)
            if earlier == depth:
                ref = schema["$ref"]
                return f"has a $ref {ref[:80]!r} that leads back to itself, going no deeper"
            if earlier is None:
                stack.append((target, (*refs, (id(target), depth)), depth))
        stack += [(child, refs, depth) for child in _applied(schema, deeper=False)]
        stack += [(child, refs, depth + 1) for child in _applied(schema, deeper=True)]
    return f"has $refs that unfold into more than {MAX_UNFOLDED} subschemas"


def _applied(schema: dict[str, Any], *, deeper: bool) -> Iterator[Any]:
    """The subschemas ``schema`` applies to its value itself, or (``deeper``) to parts of it."""
    one, many, named = (
        (_DEEPER_ONE, _DEEPER_MANY, _DEEPER_NAMED)
        if deeper
        else (_HERE_ONE, _HERE_MANY, _HERE_NAMED)
    )
    for key in one:
        if isinstance(schema.get(key), dict):
            yield schema[key]
    for key in many:
        if isinstance(schema.get(key), list):
            yield from schema[key]
    for key in named:
        if isinstance(schema.get(key), dict):
            yield from schema[key].values()


def _resolve(root: Any, ref: Any) -> Any:
    """The subschema ``ref`` points to, or a ``str`` saying why it points nowhere usable."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return f"has a $ref {str(ref)[:80]!r} that points outside it"
    pointer, found = unquote(ref[1:]), root
    if pointer and not pointer.startswith("/"):
        return f"has a $ref {ref[:80]!r} that is not a JSON pointer (#/...)"
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(found, dict) and part in found:
            found = found[part]
        elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
        else:
            return f"has a $ref {ref[:80]!r} that points to nothing in it"
    return found


def _shape_problem(schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return "is not an object"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        return "has a required that is not a list of parameter names"
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return "has properties that are not an object"
    for name, described in properties.items():
        if isinstance(described, dict) and not isinstance(described.get("enum", []), list):
            return f"gives its parameter {name[:80]!r} an enum that is not a list"
        options = [described]
        while options:
            option = options.pop()
            if not isinstance(option, dict):
                return f"describes its parameter {name[:80]!r} by something not an object"
            for key in ("anyOf", "oneOf"):
                listed = option.get(key, [])
                if not isinstance(listed, list):
                    return f"gives its parameter {name[:80]!r} an {key} that is not a list"
                options += listed
    return None
