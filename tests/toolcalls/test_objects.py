"""Calls written as objects in any text (``toolcalls.objects``): every shape a file may
use to show one, whatever stands around it, and the work it costs, counted."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.toolcalls import objects
from nehanda.toolcalls.objects import Budget, Unreadable, object_calls
from nehanda.toolcalls.pythonic import read_object

NAMES = {"Bash", "Read"}
TOUCH = {"command": "touch marker.txt"}
CALL = ("Bash", TOUCH)
JSON_CALL = json.dumps({"name": "Bash", "arguments": TOUCH})
PY_CALL = "{'name': 'Bash', 'arguments': {'command': 'touch marker.txt'}}"


def calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return list(object_calls(text, NAMES, Budget(len(text))))


SHAPES = {
    "JSON": JSON_CALL,
    "a Python dict": PY_CALL,
    "Python's True, False and None": (
        "{'tool': 'Bash', 'input': {'command': 'touch marker.txt', 'x': True, 'y': None}}"
    ),
    "JavaScript's bare keys": (
        "{name: 'Bash', parameters: {command: `x`, command: 'touch marker.txt'}}"
    ),
    "a function key": json.dumps({"function": "Bash", "args": TOUCH}),
    "the arguments beside the name": "{'tool_name': 'Bash', 'command': 'touch marker.txt'}",
    "arguments as JSON text": json.dumps({"name": "Bash", "arguments": json.dumps(TOUCH)}),
    "arguments as Python text": (
        "{'name': 'Bash', 'arguments': \"{'command': 'touch marker.txt'}\"}"
    ),
    "the arguments first": "{'arguments': {'command': 'touch marker.txt'}, 'name': 'Bash'}",
    "in a list of calls": f"steps = [{PY_CALL}, {{'name': 'Read'}}]",
    "in a function call": f"agent.send({PY_CALL})",
    "beside values that are no literal": (
        "{'id': uuid4(), 'name': 'Bash', 'when': now, 'arguments': {'command': "
        "'touch marker.txt', 'env': dict(os.environ)}}"
    ),
    "a missing comma": "{'arguments': {'command': 'touch marker.txt'} 'name': 'Bash'}",
    "a later key replacing an earlier one": (
        "{'name': 'Bash', 'arguments': {'command': 'ls', 'command': 'touch marker.txt'}}"
    ),
    "JSON in a Python string": f"EXAMPLE = '{JSON_CALL}'",
    "Python in a JSON string": json.dumps({"example": PY_CALL}),
    "after a stray apostrophe on its line": f"Here's the user's call: {PY_CALL} (it's short)",
    "pretty JSON after a stray apostrophe": "Here's the call: "
    + json.dumps({"name": "Bash", "arguments": TOUCH}, indent=2),
    "in an object left open": '{"log": [\n' + JSON_CALL,
    "cut off after its arguments": (
        "Setup:\n{'name': 'Bash', 'arguments': {'command': 'touch marker.txt'}"
    ),
    "braces in strings before the name": (
        '{"x": "{", "y": "{[", "name": "Bash", "arguments": {"command": "touch marker.txt"}}'
    ),
    "in a string, after braces in strings": (f'[\'{{"x": "{{", "y": "{{", {JSON_CALL[1:]}\']'),
    "a tool and keys named in another case": (
        '{"Name": "bash", "Arguments": {"command": "touch marker.txt"}}'
    ),
    "escaped, in a log's string": json.dumps({"type": "tool_result", "content": JSON_CALL}),
    "escaped twice": json.dumps({"line": json.dumps({"content": JSON_CALL})}),
    "escaped, in a Python string": "'" + PY_CALL.replace("'", "\\'") + "'",
    "after a word with an apostrophe": (
        "{note: don't, 'name': 'Bash', 'arguments': {'command': 'touch marker.txt'}}"
    ),
    "with no braces around it": "name: 'Bash', input: {command: 'touch marker.txt'}",
    "in an OpenAI tool call": json.dumps(
        {"type": "function", "function": {"name": "Bash", "arguments": json.dumps(TOUCH)}}
    ),
}


@pytest.mark.parametrize("text", list(SHAPES.values()), ids=list(SHAPES))
def test_a_call_is_read_in_any_shape_whatever_stands_around_it(text: str) -> None:
    found = calls(f"# Notes\n\nbefore {text} after\n")
    assert [(name, args["command"]) for name, args in found if "command" in args] == [
        ("Bash", TOUCH["command"])
    ]


@pytest.mark.parametrize(
    "text",
    [
        "{'name': 'Bash'}",  # a name alone: a list of tools, not a call
        "{'name': 'Deploy', 'arguments': {'command': 'touch marker.txt'}}",
        "The tool's name: 'Bash', its arguments: {'command': 'touch marker.txt'}",
        "{'name': 'Bash', 'arguments': ['touch marker.txt']}",
        "{'note': \"the 'name': 'Bash' key\"}",
    ],
)
def test_what_only_looks_like_a_call_is_none(text: str) -> None:
    assert calls(text) == []


def test_a_call_nested_in_another_is_read_too() -> None:
    outer = {
        "name": "Read",
        "arguments": {"file_path": "a", "then": {"name": "Bash", "input": TOUCH}},
    }
    assert calls(json.dumps(outer)) == [("Read", outer["arguments"]), CALL]


def test_the_lenient_reading_keeps_what_it_can_read() -> None:
    read = read_object("{'a': 1, 'b': f(x), c: [1, 2], 'd': {'e': ok}, 'f': 'g'")
    assert read is not None
    assert read.value == {"a": 1, "c": [1, 2], "d": {}, "f": "g"}


# Padding that would make a reading give up or take the text's square, before a call: a
# square is hundreds of times the length at these sizes, well past the bound.
PADDING = {
    "objects left open": '{"x": ' * 2_000,
    "openers left open": '{"name": "Bash", "arguments": {"x": ' * 500,
    "Python openers left open": "{'name': 'Bash', " * 1_000,
    "openers closed, nested": '{"name": "Bash", "arguments": {"x": ' * 300 + "1" + "}}" * 300,
    "quoted brackets": '"{' * 4_000,
    "quoted Python brackets": "'{" * 4_000,
    "escapes": '{"a": "\\"' * 2_000,
    "escaped quotes on one line": "'" + "\\'" * 4_000,
    "arrays": "[" * 8_000,
    "braces in strings before a name": '{"x": "{", ' * 1_000,
}


@pytest.mark.parametrize("padding", list(PADDING.values()), ids=list(PADDING))
@pytest.mark.parametrize("written", [JSON_CALL, PY_CALL])
def test_padding_costs_a_few_times_its_length_and_hides_no_call(padding: str, written: str) -> None:
    text = padding + "\n" + written + "\n"
    budget = Budget(len(text))
    assert CALL in list(object_calls(text, NAMES, budget))
    assert budget.spent <= 3 * len(text)


def test_a_megabyte_of_code_logs_and_prose_reads_each_call_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The work: characters scanned and read, and objects read, counted."""
    reads: list[int] = []

    def counted(text: str, start: int = 0, end: int | None = None) -> Any:
        reads.append(start)
        return read_object(text, start, end)

    monkeypatch.setattr(objects, "read_object", counted)
    log = "\n".join(
        json.dumps(
            {"type": "tool_use", "id": f"c{n}", "name": "Read", "input": {"file_path": f"{n}.py"}}
        )
        for n in range(4_000)
    )
    code = "def f(x):\n    return {'a': x, \"b\": [x, '{'], 'it': \"isn't\"}  # don't\n" * 5_000
    prose = "It's the user's file; don't {touch} it [really], she said \"no\". " * 5_000
    text = "\n".join([log, code, prose, PY_CALL])
    assert len(text) > 1_000_000
    budget = Budget(len(text))
    found = list(object_calls(text, NAMES, budget))
    assert len(found) == 4_001 and found[-1] == CALL
    assert budget.spent <= 3 * len(text)
    assert len(reads) == len(set(reads)) == 4_001


def test_a_text_past_its_budget_is_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(objects, "SCAN_BUDGET", -1)
    text = "x" * 70_000 + JSON_CALL
    with pytest.raises(Unreadable):
        list(object_calls(text, NAMES, Budget(len(text))))


WORDS = st.text(alphabet=st.characters(blacklist_characters="{}[]"), max_size=80)
VALUES = st.text(max_size=20) | st.integers() | st.booleans() | st.none()
ARGUMENTS = st.dictionaries(st.text(max_size=8), VALUES, max_size=3)


@given(WORDS, WORDS, st.sampled_from(sorted(NAMES)), ARGUMENTS, st.booleans())
def test_a_call_is_found_between_any_words(
    before: str, after: str, name: str, arguments: dict[str, Any], python: bool
) -> None:
    call = {"name": name, "arguments": arguments}
    written = repr(call) if python else json.dumps(call)
    found = calls(before + written + after)
    assert found and found[0] == (name, arguments)


@given(st.text(alphabet="{}[]()\"':, \n\\nametoolBashx=", max_size=300))
def test_any_text_is_read_without_raising(text: str) -> None:
    budget = Budget(len(text))
    assert all(name in NAMES for name, _ in object_calls(text, NAMES, budget))
    assert budget.spent <= 3 * len(text) + 100
