"""An MCP tool's arguments checked against its ``inputSchema``, with the built-ins' leniency.

Pure. Small models write ``{"limit": "5"}`` and ``{"pattern": 404}`` alike; as for the
built-ins (where pydantic reads the first and ``registry`` turns the second into text),
a top-level value is converted when the schema wants the other kind and the conversion
is exact. Then the JSON Schema decides, and a failure names each wrong parameter. The
schema passed ``schemas.schema_problem`` when its server listed it; arguments nested
deeper than the schema may be are refused before jsonschema, which recurses, sees them.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema
from referencing.exceptions import Unresolvable

from nehanda.tools.mcp.schemas import MAX_DEPTH, too_deep
from nehanda.types import JsonObject

_INTEGER = re.compile(r"[-+]?\d+")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_MAX_PROBLEMS = 5


def coerce(arguments: JsonObject, schema: JsonObject) -> JsonObject:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return arguments
    return {name: _coerce(value, properties.get(name)) for name, value in arguments.items()}


def _coerce(value: Any, schema: Any) -> Any:
    wanted = schema.get("type") if isinstance(schema, dict) else None
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if wanted == "string" and is_number:
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        if wanted == "integer" and _INTEGER.fullmatch(text):
            return int(text)
        if wanted == "number" and _NUMBER.fullmatch(text):
            return float(text) if not _INTEGER.fullmatch(text) else int(text)
        if wanted == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true"
    return value


def problems(arguments: JsonObject, schema: JsonObject) -> list[str]:
    """What is wrong with ``arguments`` under ``schema``, in words a model can act on."""
    if too_deep(arguments):
        return [f"the arguments nest more than {MAX_DEPTH} levels deep"]
    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except jsonschema.SchemaError:
        return []  # the server's schema is broken: let the server judge the call
    validator = validator_class(schema)
    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    except (RecursionError, Unresolvable):
        return []  # a schema nehanda cannot follow (a $ref under a nested $id): as broken
    found = []
    for error in errors:
        where = ".".join(str(part) for part in error.path)
        found.append(f"parameter {where!r}: {error.message}" if where else error.message)
    return found[:_MAX_PROBLEMS]


def parameter_list(schema: JsonObject) -> str:
    required = set(schema.get("required", ()))
    properties = schema.get("properties", {})
    names = [f"{name} (required)" if name in required else name for name in properties]
    return ", ".join(names) or "none"
