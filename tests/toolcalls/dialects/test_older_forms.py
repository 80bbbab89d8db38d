"""Forms the older evaluation missed, and look-alikes that must never be a call.

Sources, per case: vllm-project/vllm vllm/tool_parsers/llama_tool_parser.py and
tests/tool_parsers/test_llama3_json_tool_parser.py (``{...}; {...}``, header tokens),
examples/tool_chat_template_llama3.1_json.jinja (``<|start_header_id|>``,
``<|eot_id|>``); vllm/tool_parsers/mistral_tool_parser.py (``[TOOL_CALLS][...]``);
vllm/tool_parsers/xlam_tool_parser.py (a JSON call after prose); OpenAI's chat
message shape ``{"tool_calls": [{"id", "type": "function", "function": {"name",
"arguments": "<JSON text>"}}]}`` as vllm/tool_parsers/granite4_tool_parser.py and
tests/tool_parsers/test_hermes_tool_parser.py see it (arguments as a string);
NousResearch/Hermes-Function-Calling README.md (``<tools>`` tool lists, the schema
models echo); nehanda's own [TOOL_CALL] prompt (src/nehanda/toolcalls/prompt.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nehanda.toolcalls.arrays import read_array
from nehanda.toolcalls.families import hermes, llama, tool_call
from nehanda.toolcalls.schema_echo import is_schema_echo
from nehanda.toolcalls.shapes import Found, calls_in, unwrap_tool_calls
from toolcalls.dialects.family_checks import LS, READ, Calls, body, check, found_calls, no_call
from toolcalls.toolcall_render import SCHEMAS

R = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
B = '{"name": "Bash", "arguments": {"command": "ls"}}'
RL = '{"name": "Read", "parameters": {"file_path": "/src/app.py"}}'
BL = '{"name": "Bash", "parameters": {"command": "ls"}}'
OPENAI = json.dumps(
    {
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "Read", "arguments": json.dumps(READ)},
            }
        ]
    }
)
HEADER = "<|start_header_id|>assistant<|end_header_id|>\n\n"

# -- forms that are read today ------------------------------------------------

READ_NOW: list[tuple[str, str, Calls, str]] = [
    (
        "Llama 3 bare sequence (vllm tests/tool_parsers/test_llama3_json_tool_parser.py)",
        f"{RL}; {BL}",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "role header leaked before a Llama call (vllm "
        "examples/tool_chat_template_llama3.1_json.jinja)",
        f"{HEADER}{RL}",
        [("Read", READ)],
        "",
    ),
    (
        "JSON call on its own line after prose (vllm xlam_tool_parser.py)",
        f"I will read the file.\n{R}",
        [("Read", READ)],
        "I will read the file.",
    ),
    (
        "JSON call on its own line after prose, Llama keys (vllm llama_tool_parser.py)",
        f"Let me look.\n{RL}\n",
        [("Read", READ)],
        "Let me look.",
    ),
    (
        "lowercase [tool_call] (nehanda src/nehanda/toolcalls/prompt.py, mis-cased)",
        f"[tool_call]{R}[/tool_call]",
        [("Read", READ)],
        "",
    ),
    (
        "lowercase [tool_call] with a name prefix (nehanda prompt.py, mis-cased)",
        '[tool_call]Read{"file_path": "/src/app.py"}[/tool_call]',
        [("Read", READ)],
        "",
    ),
    (
        "lowercase [tool_call] with Qwen3-Coder XML (vllm "
        "vllm/tool_parsers/qwen3coder_tool_parser.py inside nehanda's block)",
        "[tool_call]\n<function=Read>\n<parameter=file_path>\n/src/app.py\n</parameter>\n"
        "</function>\n[/tool_call]",
        [("Read", READ)],
        "",
    ),
    (
        "```tool_call fence (nehanda prompt.py block name as a fence language)",
        f"```tool_call\n{R}\n```",
        [("Read", READ)],
        "",
    ),
    (
        "```tool_calls fence with a list",
        f"```tool_calls\n[{R}, {B}]\n```",
        [("Read", READ), ("Bash", LS)],
        "",
    ),
    (
        "<tools> around a Hermes body (Hermes-Function-Calling README.md tag, misused)",
        f"<tools>\n{R}\n</tools>",
        [("Read", READ)],
        "",
    ),
    (
        "<function_call> around a Hermes body",
        f"<function_call>{R}</function_call>",
        [("Read", READ)],
        "",
    ),
    (
        "<json> around a Hermes body",
        f"<json>\n{R}\n</json>",
        [("Read", READ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "visible"), READ_NOW, ids=[row[0] for row in READ_NOW]
)
def test_older_form(label: str, text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=("<|start_header_id|>", "<|end_header_id|>"))


# -- forms that need a scanner or shapes change (see the reasons) -------------

_UNWRAP = "shapes.calls_in should first unwrap {'tool_calls': [...]} (shapes.unwrap_tool_calls)"
_MARKUP_AFTER = (
    "blocks: BARE/LINE reject a value followed by anything but whitespace; markup "
    "tokens such as <|eot_id|> should count as whitespace there"
)
_BRACKET = (
    "blocks: an unclosed Mistral array whose items are all complete should keep them "
    "(arrays.read_array does this for sections)"
)

NEEDS_CHANGE: list[tuple[str, str, Calls, list[str], str]] = [
    (
        "tool_calls wrapper object (OpenAI message shape printed as text)",
        '{"tool_calls": [' + R + "]}",
        [("Read", READ)],
        [],
        _UNWRAP,
    ),
    (
        "OpenAI-style wrapper, arguments as a JSON string (vllm "
        "test_hermes_tool_parser.py test_hermes_parser_non_streaming_serialized_arguments)",
        OPENAI,
        [("Read", READ)],
        [],
        _UNWRAP,
    ),
    (
        "tool_calls wrapper inside a Hermes block",
        '<tool_call>{"tool_calls": [' + R + ", " + B + "]}</tool_call>",
        [("Read", READ), ("Bash", LS)],
        [],
        _UNWRAP,
    ),
    (
        "tool_calls wrapper in a json fence",
        '```json\n{"tool_calls": [' + R + "]}\n```",
        [("Read", READ)],
        [],
        _UNWRAP,
    ),
    (
        "<|eot_id|> after a bare Llama call (vllm examples/tool_chat_template_llama3.1_json.jinja)",
        f"{RL}<|eot_id|>",
        [("Read", READ)],
        [],
        _MARKUP_AFTER,
    ),
    (
        "header and <|eot_id|> around a Llama call (tool_chat_template_llama3.1_json.jinja)",
        f"{HEADER}{RL}<|eot_id|>",
        [("Read", READ)],
        [],
        _MARKUP_AFTER,
    ),
    (
        "Mistral call missing its closing bracket at the very end (vllm "
        "vllm/tool_parsers/mistral_tool_parser.py)",
        f"[TOOL_CALLS][{R}",
        [("Read", READ)],
        ["repaired"],
        _BRACKET,
    ),
    (
        "Mistral, two calls, closing bracket missing at the end",
        f"[TOOL_CALLS][{R}, {B}",
        [("Read", READ), ("Bash", LS)],
        ["repaired", "repaired"],
        _BRACKET,
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "problems", "reason"),
    NEEDS_CHANGE,
    ids=[row[0] for row in NEEDS_CHANGE],
)
def test_older_form_needing_a_change(
    label: str, text: str, expected: Calls, problems: list[str], reason: str
) -> None:
    check(text, expected, problems, hidden=("<|eot_id|>",))


def test_mistral_cut_inside_the_last_call_is_still_truncated() -> None:
    # The bracket rule is only for complete items: a cut object never runs.
    check(f'[TOOL_CALLS][{R}, {{"name": "Bash", "arguments": {{"comm', [], ["truncated"])


def test_llama_markup_tokens_in_prose_are_removed() -> None:
    check("The answer is 4.<|eot_id|>", [], visible="The answer is 4.")


# -- look-alikes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Say [tool_call] to call a tool.",
        '<json>{"temperature": 20, "unit": "C"}</json>',
        "<tools>Read, Write and Bash</tools>",
        "Use <function_call> tags for calls.",
        '{"tool_calls": []}',
        '{"tool_calls": "none"}',
        "```text\n[tool_call]" + R + "[/tool_call]\n```",
        'I think `{"tool_calls": [' + R + "]}` is the shape.",
        "<|start_header_id|>assistant<|end_header_id|>\n\nThe answer is 4.",
    ],
    ids=[
        "lowercase in prose",
        "json data",
        "tools in prose",
        "function_call in prose",
        "empty tool_calls",
        "tool_calls not a list",
        "text fence",
        "inline code wrapper",
        "header then prose",
    ],
)
def test_older_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


# -- no false call: a tool's schema echoed back ---------------------------------

_ECHO = (
    "shapes should drop calls whose arguments is_schema_echo() flags (schema_echo.is_schema_echo)"
)
READ_SCHEMA = {
    "type": "object",
    "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["file_path"],
}
ECHOES: list[tuple[str, str]] = [
    ("bare object", json.dumps({"name": "Read", "parameters": READ_SCHEMA})),
    (
        "Hermes block",
        "<tool_call>" + json.dumps({"name": "Read", "parameters": READ_SCHEMA}) + "</tool_call>",
    ),
    (
        "<tools> list in the OpenAI tool shape (Hermes-Function-Calling README.md)",
        "<tools>\n"
        + json.dumps(
            [
                {
                    "type": "function",
                    "function": {
                        "name": "Read",
                        "description": "Read a file",
                        "parameters": READ_SCHEMA,
                    },
                }
            ]
        )
        + "\n</tools>",
    ),
    ("json fence", "```json\n" + json.dumps({"name": "Read", "arguments": READ_SCHEMA}) + "\n```"),
    (
        "[TOOL_CALL] block",
        "[TOOL_CALL]" + json.dumps({"name": "Read", "parameters": READ_SCHEMA}) + "[/TOOL_CALL]",
    ),
    ("Mistral", "[TOOL_CALLS][" + json.dumps({"name": "Read", "parameters": READ_SCHEMA}) + "]"),
]


@pytest.mark.parametrize(
    "text",
    [text for _, text in ECHOES],
    ids=[label for label, _ in ECHOES],
)
def test_schema_echo_is_not_a_call(text: str) -> None:
    check(text, [])


def test_anthropic_tool_shape_echo_is_not_a_call() -> None:
    # No argument key: the shapes do not read it as a call even today.
    check(
        json.dumps({"name": "Read", "description": "Read a file", "input_schema": READ_SCHEMA}), []
    )


def test_hermes_pydantic_schema_echo_is_not_a_call() -> None:
    # Hermes-Function-Calling README.md: the FunctionCall schema the prompt shows.
    text = (
        "<tool_call>\n{'title': 'FunctionCall', 'type': 'object', 'properties': {'arguments': "
        "{'title': 'Arguments', 'type': 'object'}, 'name': {'title': 'Name', 'type': 'string'}}, "
        "'required': ['arguments', 'name']}\n</tool_call>"
    )
    from toolcalls.dialects.family_checks import outcomes
    from toolcalls.toolcall_render import calls_of

    for result in outcomes(text):
        assert calls_of(result) == []


# -- the pure helpers -------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "schema"),
    [
        (READ_SCHEMA, SCHEMAS["Read"]),
        (READ_SCHEMA, None),
        ({"type": "object", "properties": {}}, None),
        ({"type": "object"}, SCHEMAS["Bash"]),
        ({"properties": {"command": {"type": "string", "description": "the command"}}}, None),
        ({"$schema": "http://json-schema.org/draft-07/schema#", **READ_SCHEMA}, None),
        ({"description": "Read a file", "input_schema": READ_SCHEMA}, None),
        ({"description": "Read a file", "parameters": READ_SCHEMA}, SCHEMAS["Read"]),
        (
            {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]},
            {"type": "object", "properties": {"type": {}, "properties": {}}},
        ),
    ],
    ids=[
        "the tool's own",
        "no schema known",
        "empty object schema",
        "bare type object",
        "properties only",
        "with $schema",
        "Anthropic wrapper",
        "description and parameters",
        "mirrors a tool that takes type/properties",
    ],
)
def test_is_schema_echo_true(args: object, schema: dict[str, object] | None) -> None:
    assert is_schema_echo(args, schema)


@pytest.mark.parametrize(
    ("args", "schema"),
    [
        (READ, SCHEMAS["Read"]),
        ({}, SCHEMAS["Read"]),
        ({"command": "ls", "env": {"type": "object"}}, SCHEMAS["Bash"]),
        ({"type": "string"}, None),
        ({"type": "object", "properties": "x"}, None),
        ({"type": "object", "properties": {"a": 1}}, None),
        ({"type": "object", "required": "file_path"}, None),
        ({"type": "note", "properties": {"color": "red"}}, None),
        (
            {"type": "object", "properties": {"x": {"type": "string"}}},
            {"type": "object", "properties": {"type": {}, "properties": {}}},
        ),
        ("not a mapping", None),
        ({"description": "Read", "parameters": READ}, SCHEMAS["Read"]),
    ],
    ids=[
        "real arguments",
        "no arguments",
        "an argument holding a schema",
        "type string",
        "properties not a mapping",
        "property not a schema",
        "required not a list",
        "a tool's own type/properties values",
        "a tool taking type/properties, other names",
        "not a mapping",
        "wrapper around real arguments",
    ],
)
def test_is_schema_echo_false(args: object, schema: dict[str, object] | None) -> None:
    assert not is_schema_echo(args, schema)


def test_is_schema_echo_is_bounded() -> None:
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5000)}}
    assert not is_schema_echo(huge, None)  # past the cap: not judged an echo


def test_unwrap_tool_calls() -> None:
    wrapped = json.loads('{"tool_calls": [' + R + "]}")
    assert unwrap_tool_calls(wrapped) == [json.loads(R)]
    openai = json.loads(OPENAI)
    calls = calls_in(unwrap_tool_calls(openai), frozenset({"Read"}))
    assert calls is not None and [(c.name, c.args) for c in calls] == [("Read", READ)]
    message = {"role": "assistant", "content": None, "tool_calls": [json.loads(R)]}
    assert unwrap_tool_calls(message) == [json.loads(R)]
    values: tuple[Any, ...] = (
        {"tool_calls": []},
        {"tool_calls": "x"},
        {"tool_calls": [1], "extra": 2},
        {"role": "user", "tool_calls": [json.loads(R)]},
        {"content": "hi", "tool_calls": [json.loads(R)]},
        [json.loads(R)],
        "text",
    )
    for value in values:
        assert unwrap_tool_calls(value) == value


def test_read_array_helper() -> None:
    def shape(value: Any) -> list[Found] | None:
        return calls_in(value, frozenset({"Read", "Bash"}))

    whole = read_array(f"[{R}] tail", 0, None, shape, name_of=lambda t: None)
    assert found_calls(whole.found) == [("Read", READ)] and whole.end == len(f"[{R}]")
    open_end = read_array(f"[{R}, {B}, ", 0, None, shape, name_of=lambda t: None)
    assert found_calls(open_end.found) == [("Read", READ), ("Bash", LS)]
    cut = read_array('[{"name": "Read", "argu', 0, None, shape, name_of=lambda t: "Read")
    assert cut.found is not None and cut.found[0].problem is not None
    assert cut.found[0].problem[0] == "truncated" and cut.found[0].name == "Read"
    tail = read_array(f"[{R} trailing words", 0, None, shape, name_of=lambda t: None)
    assert tail.found is not None and tail.found[0].problem is not None
    assert tail.found[0].problem[0] == "truncated"


def test_header_decoder() -> None:
    assert llama.decode_header(body("assistant")) == []
    assert llama.decode_header(body(" ipython ")) == []
    assert llama.decode_header(body("assistant", closed=False)) is None
    assert llama.decode_header(body("the role")) is None


def test_wrapper_rows() -> None:
    assert tool_call.TOOL_CALL_LOWER.opener == "[tool_call]"
    assert hermes.FUNCTION_CALL_TAG.closers == ("</function_call>",)
