"""The Responses API's pure parts: the request parser, the event encoder, the store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.events import MessageEnd, ReasoningDelta, TextDelta
from nehanda.serve.response_store import PRUNE_EVERY, ResponseStore, new_response_id
from nehanda.serve.responses_front import ResponsesEvents, custom_input, usage
from nehanda.serve.responses_wire import ResponsesRequest, parse_responses
from nehanda.serve.turn import CallOut, ServeEvent
from nehanda.serve.wire import BadRequest
from nehanda.types import ToolResult, ToolUse, Usage


def parsed(**body: Any) -> ResponsesRequest:
    return parse_responses({"model": "m", **body}, lambda response_id: None)


def said(kind: str, text: str) -> dict[str, str]:
    return {"type": kind, "text": text}


ONLY_A = {"type": "function", "name": "a"}


def test_items_become_one_assistant_turn_per_run_and_a_result_each() -> None:
    request = parsed(
        instructions="Be brief.",
        input=[
            {"role": "developer", "content": [{"type": "input_text", "text": "Rules."}]},
            {"role": "user", "content": "Hi"},
            {"type": "message", "role": "assistant", "content": [said("output_text", "On it.")]},
            {"type": "function_call", "call_id": "c1", "name": "Read", "arguments": '{"p": 1}'},
            {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "P"},
            {"type": "function_call_output", "call_id": "c1", "output": [said("input_text", "1")]},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "two"},
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        ],
    )  # fmt: skip
    messages = request.chat.messages
    assert [m.role for m in messages] == ["system", "system", "user", "assistant", "tool", "tool"]
    assert messages[3].text == "On it."
    assert messages[3].tool_uses == [
        ToolUse("c1", "Read", {"p": 1}),
        ToolUse("c2", "apply_patch", {"input": "P"}),
    ]
    assert messages[4].parts == (ToolResult("c1", "1"),)
    assert len(request.items) == 8


def test_a_custom_tool_is_a_function_of_one_string_and_hosted_tools_are_left_out() -> None:
    request = parsed(
        input="x",
        tools=[
            {"type": "custom", "name": "apply_patch", "format": {"type": "text"}},
            {"type": "local_shell"},
            {"type": "web_search_preview"},
            {"type": "function", "name": "shell", "parameters": {"type": "object"}},
            {"type": "function", "function": {"name": "chat_form", "parameters": ONLY_A}},
        ],
    )
    assert [spec.name for spec in request.chat.tools] == ["apply_patch", "shell", "chat_form"]
    assert request.chat.tools[2].input_schema == ONLY_A
    schema = request.chat.tools[0].input_schema
    assert schema["required"] == ["input"] and schema["properties"]["input"]["type"] == "string"
    assert request.custom_tools == {"apply_patch"}


@pytest.mark.parametrize(
    ("choice", "offered", "sent"),
    [
        (None, ["a", "b"], "auto"),
        ("none", ["a", "b"], "none"),
        ({"type": "function", "name": "b"}, ["b"], "required"),
        ({"type": "custom", "name": "a"}, ["a"], "required"),
        ({"type": "allowed_tools", "mode": "required", "tools": [ONLY_A]}, ["a"], "required"),
    ],
)  # fmt: skip
def test_tool_choice(choice: Any, offered: list[str], sent: str) -> None:
    tools = [{"type": "function", "name": name} for name in ("a", "b")]
    request = parsed(input="x", tools=tools, tool_choice=choice)
    assert [spec.name for spec in request.chat.tools] == offered
    assert request.chat.tool_choice == sent


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({}, "input is required"),
        ({"input": 3}, "input must be a string or a list"),
        ({"input": [{"role": "tool", "content": "x"}]}, "input[0]: role must be"),
        ({"input": [{"type": "item_reference", "id": "msg_1"}]}, "item_reference"),
        ({"input": [{"type": "function_call_output", "output": "x"}]}, "needs its call_id"),
        ({"input": "x", "tool_choice": {"type": "web_search_preview"}}, "no hosted tools"),
        ({"input": "x", "tool_choice": {"type": "function", "name": "z"}}, "'z'"),
        ({"input": "x", "background": True}, "background:"),
        ({"input": "x", "max_output_tokens": 0}, "max_output_tokens must be"),
    ],
)
def test_bad_requests_say_what_is_wrong(body: dict[str, Any], said: str) -> None:
    with pytest.raises(BadRequest, match=None) as raised:
        parsed(**body)
    assert said in str(raised.value)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"input": "*** Begin Patch"}', "*** Begin Patch"),
        ('{"patch": "P"}', "P"),
        ('"P"', "P"),
        ("not json", "not json"),
        ('{"a": 1}', '{"a": 1}'),
    ],
)
def test_custom_input(arguments: str, expected: str) -> None:
    assert custom_input(arguments) == expected


_call = st.builds(
    CallOut,
    index=st.just(0),
    id=st.from_regex(r"call_[a-z0-9]{4}", fullmatch=True),
    name=st.sampled_from(["Read", "apply_patch"]),
    arguments=st.just('{"input": "x"}'),
)
_piece = st.one_of(
    st.builds(TextDelta, st.text(max_size=5)), st.builds(ReasoningDelta, st.text(max_size=5)), _call
)


@given(st.lists(_piece, max_size=12), st.sampled_from(["end_turn", "max_tokens", "failed"]))
def test_every_stream_is_well_formed(pieces: list[ServeEvent], stop: Any) -> None:
    request = parsed(input="x", tools=[{"type": "custom", "name": "apply_patch"}])
    kept: list[Any] = []
    encoder = ResponsesEvents(request, "m", kept.append)
    sse = [out for event in pieces for out in encoder.handle(event)]
    if stop == "failed":
        sse += encoder.fail("api_error", "the upstream failed")
    else:
        sse += encoder.handle(MessageEnd(stop, Usage(3, 4)))
    assert [data["sequence_number"] for _, data in sse] == list(range(len(sse)))
    assert all(name == data["type"] for name, data in sse)
    assert [name for name, _ in sse[:2]] == ["response.created", "response.in_progress"]
    final = sse[-1][1]["response"]
    ends = {"max_tokens": "response.incomplete", "failed": "response.failed"}
    assert sse[-1][0] == ends.get(stop, "response.completed")
    added = [d["item"]["id"] for n, d in sse if n == "response.output_item.added"]
    done = [d["item"] for n, d in sse if n == "response.output_item.done"]
    assert added == [item["id"] for item in done] and done == final["output"]
    assert [k["output"] for k in kept] == ([] if stop == "failed" else [done])
    assert final["usage"] == (None if stop == "failed" else usage(Usage(3, 4)))
    assert len({sse[0][1]["response"]["id"], final["id"]}) == 1
    texts = [i["content"][0]["text"] for i in done if i["type"] == "message"]
    assert "".join(texts) == "".join(p.text for p in pieces if isinstance(p, TextDelta))
    calls = [i for i in done if i["type"] in ("function_call", "custom_tool_call")]
    assert [i["call_id"] for i in calls] == [p.id for p in pieces if isinstance(p, CallOut)]
    assert all(i["input"] == "x" for i in calls if i["name"] == "apply_patch")


def test_the_store_keeps_the_newest_within_its_bounds(tmp_path: Path) -> None:
    store = ResponseStore(tmp_path, max_count=3, max_entry_bytes=200)
    ids = [new_response_id() for _ in range(1 + PRUNE_EVERY)]  # prunes at 1 and at the last
    for index, response_id in enumerate(ids):
        assert store.put(response_id, [{"role": "user", "content": str(index)}])
    kept = [store.get(response_id) for response_id in ids]
    assert kept[:-3] == [None] * (len(ids) - 3)
    assert kept[-3:] == [
        [{"role": "user", "content": str(i)}] for i in range(len(ids) - 3, len(ids))
    ]
    assert not store.put(new_response_id(), [{"role": "user", "content": "x" * 300}])
    assert len(list(tmp_path.iterdir())) == 3


def test_the_store_prunes_early_when_much_was_written(tmp_path: Path) -> None:
    store = ResponseStore(tmp_path, max_bytes=8 * 400, max_entry_bytes=400)
    for _ in range(12):
        store.put(new_response_id(), [{"role": "user", "content": "x" * 300}])
    # At most an eighth of max_bytes is written between prunes.
    assert sum(path.stat().st_size for path in tmp_path.iterdir()) <= 9 * 400 + 400


def test_the_store_reads_no_path_an_id_could_name(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "resp_planted.json").write_text(json.dumps({"items": [{"role": "user"}]}))
    store = ResponseStore(tmp_path / "store")
    assert store.get("../resp_planted") is None
    with pytest.raises(ValueError):
        store.put("../resp_planted", [])
