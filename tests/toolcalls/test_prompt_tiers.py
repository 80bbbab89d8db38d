"""The compact tier of the rescue prompt: every tool and parameter, in far fewer words."""

from __future__ import annotations

from nehanda.toolcalls.brief_specs import compact_spec
from nehanda.toolcalls.prompt import render_tool_prompt
from nehanda.tools.registry import builtin_specs


def test_the_compact_tier_names_every_tool_and_parameter_with_one_example() -> None:
    full = render_tool_prompt(builtin_specs())
    compact = render_tool_prompt(builtin_specs(), compact=True)
    assert len(compact) < len(full) / 2
    for spec in builtin_specs():
        assert f"## {spec.name}\n" in compact
        for name in spec.input_schema.get("properties", {}):
            assert f"- {name} (" in compact
    assert compact.count('[TOOL_CALL]{"name": "') == 2  # the format, and one example


def test_a_compact_spec_keeps_the_schema_and_the_first_sentence() -> None:
    for spec in builtin_specs():
        short = compact_spec(spec)
        assert short.name == spec.name
        assert spec.description.startswith(short.description.rstrip("…").rstrip())
        assert set(short.input_schema["properties"]) == set(spec.input_schema["properties"])
        assert short.input_schema.get("required") == spec.input_schema.get("required")
