"""Every format the rescue parser accepts, as real models and servers print it."""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.parse import parse_manual_tool_calls, parse_xml_tool_calls
from toolcalls.toolcall_render import FORMATS, calls_of, kinds, parse, render, streamed

READ_ARGS = {"file_path": "/src/app.py"}

# (format, text, expected calls)
TABLE: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        "canonical",
        '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "/src/app.py"}}[/TOOL_CALL]',
        [("Read", READ_ARGS)],
    ),
    (
        "canonical, Mistral's token by mistake",
        '[TOOL_CALLS]{"name": "Read", "arguments": {"file_path": "/src/app.py"}}[/TOOL_CALLS]',
        [("Read", READ_ARGS)],
    ),
    (
        "Hermes / Qwen2.5",
        '<tool_call>\n{"name": "Read", "arguments": {"file_path": "/src/app.py"}}\n</tool_call>',
        [("Read", READ_ARGS)],
    ),
    (
        "Qwen3-Coder XML",
        "<tool_call>\n<function=Read>\n<parameter=file_path>\n/src/app.py\n</parameter>\n"
        "</function>\n</tool_call>",
        [("Read", READ_ARGS)],
    ),
    (
        "Qwen3-Coder XML without the wrapper",
        "<function=Read>\n<parameter=file_path>\n/src/app.py\n</parameter>\n</function>",
        [("Read", READ_ARGS)],
    ),
    (
        "Mistral array",
        '[TOOL_CALLS][{"name": "Read", "arguments": {"file_path": "/src/app.py"}}, '
        '{"name": "Bash", "arguments": {"command": "ls"}}]',
        [("Read", READ_ARGS), ("Bash", {"command": "ls"})],
    ),
    (
        "Mistral v11",
        '[TOOL_CALLS]Read[ARGS]{"file_path": "/src/app.py"}[TOOL_CALLS]Bash[ARGS]{"command": "ls"}',
        [("Read", READ_ARGS), ("Bash", {"command": "ls"})],
    ),
    (
        "Mistral with a call id",
        '[TOOL_CALLS]Read[CALL_ID]a1B2c3D4e[ARGS]{"file_path": "/src/app.py"}',
        [("Read", READ_ARGS)],
    ),
    (
        "Llama 3",
        '<|python_tag|>{"name": "Read", "parameters": {"file_path": "/src/app.py"}}<|eom_id|>',
        [("Read", READ_ARGS)],
    ),
    (
        "Llama 3, two calls",
        '<|python_tag|>{"name": "Read", "parameters": {"file_path": "/src/app.py"}}; '
        '{"name": "Bash", "parameters": {"command": "ls"}}',
        [("Read", READ_ARGS), ("Bash", {"command": "ls"})],
    ),
    (
        "DeepSeek V3",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>Read\n```json\n"
        '{"file_path": "/src/app.py"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        [("Read", READ_ARGS)],
    ),
    (
        "DeepSeek V3.1",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>Read<｜tool▁sep｜>{"file_path": "/src/app.py"}'
        '<｜tool▁call▁end｜><｜tool▁call▁begin｜>Bash<｜tool▁sep｜>{"command": "ls"}'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        [("Read", READ_ARGS), ("Bash", {"command": "ls"})],
    ),
    (
        "fenced JSON, name and arguments",
        'Reading:\n```json\n{"name": "Read", "arguments": {"file_path": "/src/app.py"}}\n```',
        [("Read", READ_ARGS)],
    ),
    (
        "fenced JSON, tool and input",
        '```json\n{"tool": "Read", "input": {"file_path": "/src/app.py"}}\n```\n',
        [("Read", READ_ARGS)],
    ),
    (
        "a JSON array of calls in a block",
        '[TOOL_CALL][{"name": "Read", "arguments": {"file_path": "/src/app.py"}}, '
        '{"name": "Bash", "arguments": {"command": "ls"}}][/TOOL_CALL]',
        [("Read", READ_ARGS), ("Bash", {"command": "ls"})],
    ),
    (
        "a bare JSON object as the whole message",
        '\n  {"name": "Read", "arguments": {"file_path": "/src/app.py"}}\n',
        [("Read", READ_ARGS)],
    ),
    (
        "a bare JSON array as the whole message",
        '[{"name": "Read", "arguments": {"file_path": "/src/app.py"}}]',
        [("Read", READ_ARGS)],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_format(label: str, text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    result = parse(text)
    assert calls_of(result) == expected
    assert result.problems == []
    assert result.text.strip() in ("", "Reading:")
    assert all(call.origin == "rescue" and call.id.startswith("call_") for call in result.calls)
    assert calls_of(streamed(text, 3)) == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_rendered_formats_round_trip(fmt: str) -> None:
    args = {"file_path": 'a [/TOOL_CALL] </tool_call> <think> "quoted" b', "mode": "x"}
    text = "Before.\n" + render(fmt, "Read", args) + "\nAfter."
    for result in (parse(text), streamed(text, 1), streamed(text, 7)):
        assert calls_of(result) == [("Read", args)]
        assert result.text.replace("\n", "") == "Before.After."


def test_qwen_xml_values_are_typed_by_the_schema() -> None:
    text = (
        "<tool_call><function=Bash>"
        "<parameter=command>\nls -la\n</parameter>"
        "<parameter=timeout>\n2.5\n</parameter>"
        "<parameter=background>\nTrue\n</parameter>"
        '<parameter=env>\n{"A": "1"}\n</parameter>'
        "<parameter=args>\n[1, 2]\n</parameter>"
        "</function></tool_call>"
        "<tool_call><function=Read>"
        "<parameter=file_path>\n42\n</parameter>"
        "<parameter=limit>\n 10 \n</parameter>"
        "<parameter=offset>\nnull\n</parameter>"
        "</function></tool_call>"
    )
    bash, read = parse(text).calls
    assert bash.input == {
        "command": "ls -la",
        "timeout": 2.5,
        "background": True,
        "env": {"A": "1"},
        "args": [1, 2],
    }
    assert read.input == {"file_path": "42", "limit": 10, "offset": None}


def test_qwen_xml_value_that_does_not_fit_its_type_stays_text() -> None:
    text = "<tool_call><function=Read><parameter=limit>ten</parameter></function></tool_call>"
    assert parse(text).calls[0].input == {"limit": "ten"}


def test_qwen_xml_value_is_raw_text_and_keeps_inner_markup() -> None:
    content = 'def f():\n    return "</tool_call>" + "[/TOOL_CALL]"\n'
    text = (
        f"<tool_call>\n<function=Write>\n<parameter=content>\n{content}\n</parameter>\n"
        "<parameter=file_path>\nf.py\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls_of(parse(text)) == [("Write", {"content": content, "file_path": "f.py"})]


def test_qwen_xml_missing_parameter_closer() -> None:
    text = "<tool_call><function=Read><parameter=file_path>a.py<parameter=limit>3</function>"
    assert calls_of(parse(text)) == [("Read", {"file_path": "a.py", "limit": 3})]


def test_parse_xml_tool_calls_follows_the_specification() -> None:
    text = (
        "I'll look.\n"
        '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a"}}[/TOOL_CALL]\n'
        '[TOOL_CALL]<tool_call>{"name": "Bash", "arguments": <arguments>{"command": "ls"}'
        "</arguments>}</tool_call>[/TOOL_CALL]\n"
        '[TOOL_CALL]{"Edit", "arguments": {"path": "b"}}[/TOOL_CALL]\n'
        '[TOOL_CALL]{"name": "Unknown", "arguments": {}}[/TOOL_CALL]\n'
        '<tool_call>{"name": "Read", "arguments": {}}</tool_call>'
    )
    calls = parse_xml_tool_calls(text, ["Read", "Bash", "Edit"])
    assert [(c.name, c.input) for c in calls] == [
        ("Read", {"file_path": "a"}),
        ("Bash", {"command": "ls"}),
        ("Edit", {"path": "b"}),
    ]
    assert all(c.origin == "rescue" for c in calls)


def test_parse_manual_tool_calls_accepts_any_name_in_json_fences() -> None:
    text = (
        'Calling:\n```json\n{"tool": "AnyTool", "input": {"key": "value"}}\n```\n'
        '```python\n{"tool": "NotThis", "input": {}}\n```\n'
        '```json\n{"config": true}\n```\n'
        '[TOOL_CALL]{"name": "Read", "arguments": {}}[/TOOL_CALL]'
    )
    calls = parse_manual_tool_calls(text)
    assert [(c.name, c.input) for c in calls] == [("AnyTool", {"key": "value"})]


def test_unknown_tool_in_every_strong_format_is_reported() -> None:
    for fmt in FORMATS:
        if fmt == "fence":
            continue
        result = parse(render(fmt, "Nope", {"a": "b"}))
        assert result.calls == [], fmt
        assert kinds(result) == ["unknown_tool"], fmt
        assert "Nope" in result.problems[0].message and "Read" in result.problems[0].message


def test_qwen_xml_function_body_holding_json_arguments() -> None:
    text = '<tool_call><function=Read>{"file_path": "a"}</function></tool_call>'
    assert calls_of(parse(text)) == [("Read", {"file_path": "a"})]
    junk = parse("<tool_call><function=Read>read it</function></tool_call>")
    assert junk.calls == [] and kinds(junk) == ["invalid_json"]
