"""A tool as a small window can afford it: its descriptions cut to their first sentence.

Native requests in a small window and the rescue prompt's compact form both use it; it
imports nothing of the parser, so a native request pays for none of it. Pure.
"""

from __future__ import annotations

from dataclasses import replace

from nehanda.types import ToolSpec


def first_sentence(text: str, most: int = 200) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    text = text if end < 0 else text[: end + 1]
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def compact_spec(spec: ToolSpec) -> ToolSpec:
    """The tool as a small window can afford it: each description cut to its first sentence
    (the tool's own ``brief``, if it gives one)."""
    properties = spec.input_schema.get("properties")
    schema = dict(spec.input_schema)
    if isinstance(properties, dict):
        schema["properties"] = {
            name: (
                {**value, "description": first_sentence(value["description"], 120)}
                if isinstance(value, dict) and isinstance(value.get("description"), str)
                else value
            )
            for name, value in properties.items()
        }
    brief = first_sentence(spec.description) if spec.brief is None else spec.brief
    return replace(spec, description=brief, input_schema=schema)
