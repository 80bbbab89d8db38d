"""The pure parts of MCP support: names, arguments, results and ToolSearch."""

from __future__ import annotations

import re
from dataclasses import replace
from types import SimpleNamespace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from nehanda.config.mcp import McpTable, server_part
from nehanda.tools.mcp import search
from nehanda.tools.mcp.arguments import coerce, parameter_list, problems
from nehanda.tools.mcp.names import offered_names
from nehanda.tools.mcp.results import result_text
from nehanda.tools.mcp.schemas import schema_problem
from nehanda.types import ToolSpec

ALLOWED = re.compile(r"[A-Za-z0-9_-]{1,64}")


@given(st.text(max_size=80), st.lists(st.text(max_size=80), max_size=8))
def test_offered_names_are_valid_and_distinct(server: str, tools: list[str]) -> None:
    taken: set[str] = set()
    names = offered_names(server, tools, taken)
    assert all(ALLOWED.fullmatch(name) for name in names)
    assert len(set(names)) == len(names) == len(tools)
    assert all(name.startswith(f"mcp__{server_part(server)}__") for name in names)


@given(st.text(max_size=40))
def test_a_server_part_never_holds_a_double_underscore(server: str) -> None:
    assert "__" not in server_part(server)


@given(st.text(max_size=80), st.text(max_size=80), st.lists(st.text(max_size=80), max_size=4))
@example("a" * 56, "a" * 56 + "_b", [])  # a cut, then a suffix, once made "mcp__a…a__2"
def test_a_servers_rule_covers_no_tool_of_a_server_with_another_prefix(
    mine: str, other: str, tools: list[str]
) -> None:
    """However a name is cut or suffixed, ``mcp__PART__*`` reaches only PART's tools."""
    from nehanda.permissions.rules import parse_rule

    rule = parse_rule(f"mcp__{server_part(mine)}__*")
    taken = set(offered_names(mine, ["t"] * 3, set()))
    theirs = offered_names(other, tools + ["t"] * 3, taken)
    if server_part(other) != server_part(mine):
        assert not any(rule.covers(name) for name in theirs)


@pytest.mark.parametrize(
    ("server", "part"),
    [
        ("gh.", "gh"),
        ("gh_", "gh"),
        ("GH", "GH"),
        ("g h", "g_h"),
        ("ｇｈ", "gh"),
        ("gһ", "g"),  # a Cyrillic letter is no letter of a tool name: it goes
        ("日本", "server"),
        ("a" * 47 + "_b", "a" * 47),  # cut to 48, and no "_" left at the end
    ],
)
def test_server_parts(server: str, part: str) -> None:
    assert server_part(server) == part


@pytest.mark.parametrize(
    ("server", "tools", "expected"),
    [
        ("github", ["create_issue"], ["mcp__github__create_issue"]),
        ("my docs", ["search.v2"], ["mcp__my_docs__search_v2"]),
        ("github__evil", ["x"], ["mcp__github_evil__x"]),
        ("a", ["t.1", "t_1"], ["mcp__a__t_1", "mcp__a__t_1_2"]),
        ("s", ["x" * 80, "x" * 81], ["mcp__s__" + "x" * 56, "mcp__s__" + "x" * 54 + "_2"]),
    ],
)
def test_offered_names(server: str, tools: list[str], expected: list[str]) -> None:
    assert offered_names(server, tools, set()) == expected


SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "loud": {"type": "boolean"},
    },
    "required": ["text"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("given_args", "expected"),
    [
        ({"text": 404}, {"text": "404"}),
        ({"text": "a", "count": "5"}, {"text": "a", "count": 5}),
        ({"text": "a", "ratio": "0.5"}, {"text": "a", "ratio": 0.5}),
        ({"text": "a", "loud": "true"}, {"text": "a", "loud": True}),
        ({"text": "a", "count": "five"}, {"text": "a", "count": "five"}),
        ({"text": True}, {"text": True}),
    ],
)
def test_coercions_match_the_built_ins(
    given_args: dict[str, object], expected: dict[str, object]
) -> None:
    assert coerce(given_args, SCHEMA) == expected


def test_problems_name_the_parameter() -> None:
    assert problems({"text": "a"}, SCHEMA) == []
    found = problems({"count": "five", "extra": 1}, SCHEMA)
    assert any("'text' is a required property" in p for p in found)
    assert any("parameter 'count'" in p for p in found)
    assert any("'extra' was unexpected" in p for p in found)
    assert parameter_list(SCHEMA) == "text (required), count, ratio, loud"


def test_a_broken_server_schema_is_left_to_the_server() -> None:
    assert problems({"a": 1}, {"type": "no-such-type"}) == []


def block(**fields: object) -> SimpleNamespace:
    return SimpleNamespace(**fields)


def test_results_keep_text_and_note_the_rest() -> None:
    content = [
        block(type="text", text="a caption"),
        block(type="image", data="aGVsbG8h", mime_type="image/png"),
        block(type="resource", resource=block(uri="file:///x.txt", text="secret words")),
        block(type="resource_link", uri="file:///y"),
    ]
    text = result_text(content, None)
    assert text.splitlines() == [
        "a caption",
        "[image image/png, about 6 bytes, not shown]",
        "[embedded resource file:///x.txt, 12 characters, not shown]",
        "[resource link file:///y]",
    ]
    assert result_text([], {"result": 3}) == '{"result": 3}'
    assert result_text([], None) == "(the tool returned no content)"


def specs(count: int) -> list[ToolSpec]:
    return [
        ToolSpec(
            f"mcp__s__tool_{i}",
            f"Does task number {i}.",
            {"type": "object", "properties": {"value": {"type": "string"}}},
        )
        for i in range(count)
    ]


def test_tool_search_finds_by_selection_and_by_words() -> None:
    tools = [*specs(3), ToolSpec("mcp__gh__create_issue", "Open a GitHub issue.", {})]
    assert [s.name for s in search.find("select:mcp__s__tool_2,nope", tools, 5)] == [
        "mcp__s__tool_2"
    ]
    assert search.find("github issue", tools, 5)[0].name == "mcp__gh__create_issue"
    assert search.find("zebra", tools, 5) == []
    assert "No MCP tool matches 'zebra'" in search.render_found("zebra", [])


def test_deferral_follows_the_budget_or_the_count() -> None:
    many, few = specs(200), specs(2)
    budget = search.tool_budget(None, McpTable())
    assert budget == 819
    assert search.should_defer(many, McpTable(), budget)
    assert not search.should_defer(few, McpTable(), budget)
    assert search.should_defer(few, McpTable(max_tools=1), budget)
    assert not search.should_defer(many, McpTable(tool_search="never"), budget)
    assert search.should_defer(few, McpTable(tool_search="always"), budget)


def test_the_names_listed_stay_within_the_budget() -> None:
    names = [spec.name for spec in specs(200)]
    spec = search.search_spec(names, 300)
    assert search.estimate_tokens(spec.description) <= 300
    assert "more (search to find them)" in spec.description
    assert "mcp__s__tool_199" in search.search_spec(names, 12800).description


def test_rescue_mode_keeps_searched_tools_out_of_the_system_prompt_yet_parses_them() -> None:
    from nehanda.events import MessageEnd, TextDelta, ToolUseEnd
    from nehanda.providers.base import ChatRequest
    from nehanda.providers.rescue import RescueStreamState, rescue_request
    from nehanda.types import Message, Usage

    listed = search.search_spec(["mcp__s__tool_1"], 1000)
    (loaded,) = [replace(spec, searched=True) for spec in specs(2)[1:]]
    request = ChatRequest("m", (Message.text_message("user", "go"),), (listed, loaded))
    system = rescue_request(request).messages[0].text
    assert "## ToolSearch" in system and "## mcp__s__tool_1" not in system
    block = '[TOOL_CALL]{"name": "mcp__s__tool_1", "arguments": {"value": "x"}}[/TOOL_CALL]'
    state = RescueStreamState(request.tools)
    events = [*state.handle(TextDelta(block)), *state.handle(MessageEnd("end_turn", Usage()))]
    calls = [e.tool_use for e in events if isinstance(e, ToolUseEnd)]
    assert [(c.name, c.input) for c in calls] == [("mcp__s__tool_1", {"value": "x"})]


def nested_schema(levels: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "object"}
    for _ in range((levels - 1) // 2):  # two levels each: properties, then a
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


MODEL = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}
TREE = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}}
# Each of twenty definitions offers the next twice: a million ways through.
DOUBLING: dict[str, object] = {
    f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(20)
}
DOUBLING["d20"] = {"type": "string"}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"m": {"$ref": "#/$defs/M"}}, "$defs": {"M": MODEL}},
        TREE,
        {"type": "object", "properties": {"t": {"type": "array", "prefixItems": [True]}}},
        {"type": "object", "properties": {"a~b/c": {"$ref": "#/properties/x"}, "x": {}}},
        nested_schema(64),
    ],
)
def test_schemas_that_are_safe_to_use(schema: dict[str, object]) -> None:
    assert schema_problem(schema, "inputSchema") is None


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "object", "$ref": "#"}, "has a $ref '#' that leads back to itself"),
        ({"type": "object", "allOf": [{"not": {"$ref": "#"}}]}, "leads back to itself"),
        ({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "leads back to itself"),
        ({"$ref": "https://example.com/s.json"}, "has a $ref 'https://example.com/s.json' that"),
        ({"$ref": "#/$defs/missing"}, "that points to nothing in it"),
        ({"$ref": "#anchor"}, "that is not a JSON pointer"),
        ({"$dynamicRef": "#node"}, "uses $dynamicRef, which nehanda does not follow"),
        ({"$defs": DOUBLING, "$ref": "#/$defs/d0"}, "unfold into more than 10000 subschemas"),
        (nested_schema(66), "nests more than 64 levels deep"),
        ({"description": "x" * 140_000}, "takes 136 KiB, more than 128 KiB"),
        ({"type": "object", "properties": {"x": True}}, "parameter 'x' by something not an"),
        ({"properties": {"x": {"anyOf": [{"anyOf": ["s"]}]}}}, "parameter 'x' by something not"),
        ({"properties": {"x": {"oneOf": "s"}}}, "gives its parameter 'x' an oneOf that is not"),
        ({"properties": {"x": {"enum": 5}}}, "gives its parameter 'x' an enum that is not"),
        ({"properties": [1]}, "has properties that are not an object"),
        ({"required": [{"a": 1}]}, "has a required that is not a list of parameter names"),
    ],
)
def test_schemas_that_are_not(schema: dict[str, object], problem: str) -> None:
    found = schema_problem(schema, "inputSchema")
    assert found is not None and found.startswith("its inputSchema ") and problem in found


def test_an_output_schema_is_not_held_to_the_shape_of_parameters() -> None:
    assert schema_problem({"type": "object", "properties": {"x": True}}, "outputSchema") is None


def test_arguments_too_deep_to_check_are_refused_and_no_schema_makes_the_check_crash() -> None:
    deep: dict[str, object] = {}
    for _ in range(100):
        deep = {"kids": [deep]}
    assert problems(deep, TREE) == ["the arguments nest more than 64 levels deep"]
    moved = {"$defs": {"a": {"$id": "https://x.example/a", "$ref": "#/b"}}, "$ref": "#/$defs/a"}
    assert problems({}, {"type": "object", **moved}) == []  # the server judges it


KEYWORDS = ["type", "properties", "required", "anyOf", "oneOf", "enum", "default", "items"]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from([*KEYWORDS, "description", "x"]), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.sampled_from(["a", "b"]), JSON_VALUES, max_size=2), JSON_VALUES)
def test_a_schema_found_safe_is_described_and_checked_without_an_error(
    properties: dict[str, object], required: object
) -> None:
    from nehanda.toolcalls.prompt import render_tool_prompt

    schema = {"type": "object", "properties": properties, "required": required}
    if schema_problem(schema, "inputSchema") is None:
        spec = ToolSpec("mcp__s__t", "A tool.", schema)
        render_tool_prompt([spec])
        render_tool_prompt([spec], compact=True)
        problems({"a": 1}, schema)
        parameter_list(schema)
