"""Whether a call's arguments are its tool's schema echoed back, not a call.

A model that was shown its tools sometimes prints one back: ``{"name": "Read",
"parameters": {"type": "object", "properties": {...}, "required": [...]}}`` in a
Hermes block, a ``<tools>`` list, OpenAI's ``{"type": "function", "function":
{"name", "description", "parameters"}}``. The shapes read each as a call whose
arguments are a JSON Schema. ``is_schema_echo(args, schema)`` tells such arguments
from real ones: a pure predicate, bounded by the size of ``args``'s top level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# JSON Schema keywords that describe an object (draft 4 to 2020-12, plus OpenAPI's).
_OBJECT_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$ref",
        "definitions",
        "type",
        "title",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "unevaluatedProperties",
        "default",
        "examples",
        "nullable",
        "strict",
    }
)
# Keywords a property's own schema is made of (one is enough to look like one).
_PROPERTY_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "enum",
        "const",
        "items",
        "properties",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "format",
        "default",
        "minimum",
        "maximum",
        "pattern",
        "title",
    }
)
_PROPERTY_EXTRAS = frozenset(
    {
        "additionalProperties",
        "required",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "examples",
        "nullable",
    }
)
# The wrapper an Anthropic-style tool list uses around the schema.
_TOOL_KEYS = frozenset({"description", "input_schema", "parameters", "strict", "title"})
_MAX_PROPERTIES = 1000


def _looks_like_property(value: Any) -> bool:
    if not isinstance(value, Mapping) or not value:
        return False
    keys = set(value)
    return keys <= _PROPERTY_KEYWORDS | _PROPERTY_EXTRAS and not keys.isdisjoint(_PROPERTY_KEYWORDS)


def _declared(schema: Mapping[str, Any] | None) -> frozenset[str]:
    if not isinstance(schema, Mapping):
        return frozenset()
    props = schema.get("properties")
    return frozenset(props) if isinstance(props, Mapping) else frozenset()


def _is_object_schema(args: Mapping[str, Any]) -> bool:
    keys = set(args)
    if not keys <= _OBJECT_KEYWORDS:
        return False
    kind = args.get("type")
    props = args.get("properties")
    if props is not None:
        if not isinstance(props, Mapping) or len(props) > _MAX_PROPERTIES:
            return False
        if not all(_looks_like_property(v) for v in props.values()):
            return False
    elif kind != "object":
        return False
    if kind is not None and kind != "object" and kind != ["object"]:
        return False
    required = args.get("required")
    return required is None or (
        isinstance(required, list) and all(isinstance(r, str) for r in required)
    )


def is_schema_echo(args: Any, schema: Mapping[str, Any] | None) -> bool:
    """Whether ``args`` is a JSON Schema (the tool's own, or any) rather than arguments.

    ``schema`` is the tool's input schema when known. Arguments that the tool's own
    schema declares (a tool that really takes ``type`` and ``properties``) are
    arguments, unless they mirror that schema's property names.
    """
    if not isinstance(args, Mapping) or not args:
        return False
    if set(args) <= _TOOL_KEYS and not set(args).isdisjoint({"input_schema", "parameters"}):
        inner = args.get("input_schema", args.get("parameters"))
        return isinstance(inner, Mapping) and is_schema_echo(inner, schema)
    if not _is_object_schema(args):
        return False
    declared = _declared(schema)
    if declared and set(args) <= declared:
        # The tool itself takes these keys; an echo would repeat its property names.
        props = args.get("properties")
        return isinstance(props, Mapping) and bool(props) and set(props) <= declared
    return True
