"""``POST /v1/responses`` through the official ``openai`` client's ``responses`` API, in
front of scripted upstreams: native, refusing (rescue), Hermes text, a custom tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from secret_forms import leaked
from serve.conftest import TOKEN, Served
from serve.conftest import UPSTREAM_KEY as KEY
from serve.test_serve_openai import CALL_BODY, PROSE_BODY, RESCUE_BODY, client
from serve.test_serve_secrets import chunk, echoing_answer

READ: Any = {
    "type": "function",
    "name": "Read",
    "description": "Read a file.",
    "parameters": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
    },
}
GRAMMAR = 'start: "*** Begin Patch" LF hunk+ "*** End Patch" LF?'
APPLY_PATCH: Any = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Edit files with a patch.",
    "format": {"type": "grammar", "syntax": "lark", "definition": GRAMMAR},
}
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi there\n*** End Patch\n"
ASKED = "What is in README.md?"
READ_ARGS = '{"file_path": "README.md"}'


def calls(response: Any) -> list[tuple[str, Any]]:
    return [
        (item.name, json.loads(item.arguments))
        for item in response.output
        if item.type == "function_call"
    ]


def test_a_native_call_comes_back_as_a_function_call_item(serve: Served) -> None:
    serve.native.stream(CALL_BODY)
    response = client(serve).responses.create(model="native-model", input=ASKED, tools=[READ])
    assert response.status == "completed"
    assert calls(response) == [("Read", {"file_path": "README.md"})]
    call = response.output[-1]
    assert call.call_id == "chatcmpl-tool-4b2c" and call.id.startswith("fc_")
    assert response.usage is not None and response.usage.input_tokens > 0
    sent = serve.native.requests[0].body
    assert sent["model"] == "qwen"
    assert sent["tools"][0]["function"]["name"] == "Read"
    assert sent["messages"] == [{"role": "user", "content": ASKED}]


def test_a_streamed_answer_has_the_event_sequence_the_sdk_reads(serve: Served) -> None:
    serve.native.stream(PROSE_BODY)
    with client(serve).responses.stream(
        model="native-model", input=ASKED, instructions="Be brief."
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    kinds = [event.type for event in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert set(kinds[4:-4]) == {"response.output_text.delta"}
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [event.sequence_number for event in events] == list(range(len(events)))
    assert final.output_text == "Install it with `pip install widget`."
    assert final.id == events[0].response.id and final.id.startswith("resp_")
    assert final.instructions == "Be brief."
    sent = serve.native.requests[0].body["messages"]
    assert sent[0] == {"role": "system", "content": "Be brief."}


def test_a_streamed_call_is_one_whole_function_call_item(serve: Served) -> None:
    serve.native.stream(CALL_BODY)
    with client(serve).responses.stream(model="native-model", input=ASKED, tools=[READ]) as s:
        events = list(s)
        final = s.get_final_response()
    deltas = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert [json.loads(delta) for delta in deltas] == [{"file_path": "README.md"}]
    done = [e.item for e in events if e.type == "response.output_item.done"]
    assert [(item.type, item.name, item.call_id) for item in done] == [
        ("function_call", "Read", "chatcmpl-tool-4b2c")
    ]
    assert calls(final) == [("Read", {"file_path": "README.md"})]


@pytest.mark.parametrize(
    ("model", "body", "upstream"),
    [
        ("native-model", "openai_vllm_apply_patch_call.sse", "native"),
        ("cloud-model", "nehanda_cloud_apply_patch_call.sse", "stripped"),
    ],
)
def test_a_custom_tool_is_offered_as_a_function_and_answered_as_its_input(
    serve: Served, model: str, body: str, upstream: str
) -> None:
    scripted = getattr(serve, upstream)
    scripted.stream(body)
    with client(serve).responses.stream(
        model=model, input="Add hello.txt", tools=[APPLY_PATCH]
    ) as s:
        events = list(s)
        final = s.get_final_response()
    items = [item for item in final.output if item.type == "custom_tool_call"]
    assert [(item.name, item.input) for item in items] == [("apply_patch", PATCH)]
    inputs = [e.input for e in events if e.type == "response.custom_tool_call_input.done"]
    assert inputs == [PATCH]
    assert not any(e.type.startswith("response.function_call") for e in events)
    sent = scripted.requests[0].body
    if upstream == "native":
        offered = sent["tools"][0]["function"]
        assert offered["name"] == "apply_patch"
        assert list(offered["parameters"]["properties"]) == ["input"]
        assert GRAMMAR in offered["parameters"]["properties"]["input"]["description"]
    else:
        assert "tools" not in sent and GRAMMAR in sent["messages"][0]["content"]
        assert "TOOL_CALL" not in final.output_text


def test_a_function_call_output_round_reaches_the_upstream_as_a_tool_result(
    serve: Served,
) -> None:
    serve.native.stream(PROSE_BODY)
    history: Any = [
        {"role": "user", "content": ASKED},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
        {"type": "function_call", "call_id": "call_1", "name": "Read", "arguments": READ_ARGS},
        {"type": "function_call_output", "call_id": "call_1", "output": "# Marker 42"},
        {"type": "custom_tool_call", "call_id": "call_2", "name": "apply_patch", "input": PATCH},
        {"type": "custom_tool_call_output", "call_id": "call_2", "output": "Done!"},
    ]  # fmt: skip
    response = client(serve).responses.create(
        model="native-model", input=history, tools=[READ, APPLY_PATCH, {"type": "web_search"}]
    )
    assert response.output_text == "Install it with `pip install widget`."
    sent = serve.native.requests[0].body
    roles = [m["role"] for m in sent["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]
    assert sent["messages"][1]["tool_calls"][0]["function"]["name"] == "Read"
    assert json.loads(sent["messages"][3]["tool_calls"][0]["function"]["arguments"]) == {
        "input": PATCH
    }
    assert sent["messages"][2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "# Marker 42",
    }
    assert [t["function"]["name"] for t in sent["tools"]] == ["Read", "apply_patch"]


def test_previous_response_id_continues_the_stored_conversation(serve: Served) -> None:
    serve.native.stream(CALL_BODY)
    serve.native.stream(PROSE_BODY)
    openai_client = client(serve)
    first = openai_client.responses.create(model="native-model", input=ASKED, tools=[READ])
    call = first.output[-1]
    second = openai_client.responses.create(
        model="native-model",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "# Hi"}],
        tools=[READ],
    )
    assert second.previous_response_id == first.id
    assert second.output_text == "Install it with `pip install widget`."
    sent = serve.native.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[0]["content"] == ASKED
    assert sent[1]["tool_calls"][0]["id"] == call.call_id
    assert sent[2]["content"] == "# Hi"


@pytest.mark.parametrize("unknown", ["resp_" + "0" * 32, "resp_x", "../../../../planted", 7])
def test_an_unknown_previous_response_id_is_a_clear_400(
    serve: Served, isolated_home: Path, unknown: Any
) -> None:
    # A conversation planted outside the store must not be reachable by a path.
    planted = isolated_home / "planted.json"
    planted.write_text(json.dumps({"items": [{"role": "user", "content": "PLANTED"}]}))
    serve.native.stream(PROSE_BODY)
    client(serve).responses.create(model="native-model", input=ASKED)  # the store's folder
    serve.native.requests.clear()
    with pytest.raises(openai.BadRequestError) as raised:
        client(serve).responses.create(
            model="native-model", input="go on", previous_response_id=unknown
        )
    body: Any = raised.value.body
    assert "previous_response_id" in body["message"] and "unknown or has expired" in body["message"]
    assert serve.native.requests == []


def test_store_false_keeps_nothing_to_continue(serve: Served) -> None:
    serve.native.stream(PROSE_BODY)
    first = client(serve).responses.create(model="native-model", input=ASKED, store=False)
    assert first.store is False
    with pytest.raises(openai.BadRequestError):
        client(serve).responses.create(
            model="native-model", input="more", previous_response_id=first.id
        )


def test_a_refusing_upstream_is_answered_in_rescue_mode(serve: Served) -> None:
    serve.refusing.error(400, "openai_error_vllm_auto_tool_choice.json")
    serve.refusing.stream(RESCUE_BODY)
    with client(serve).responses.stream(model="refusing-model", input=ASKED, tools=[READ]) as s:
        final = s.get_final_response()
    assert calls(final) == [("Read", {"file_path": "README.md"})]
    assert final.output_text.startswith("I will read the file.")
    assert "TOOL_CALL" not in final.output_text
    first, second = (r.body for r in serve.refusing.requests)
    assert "tools" in first and "tools" not in second


def test_a_hermes_text_call_is_recovered_and_never_reaches_the_text(serve: Served) -> None:
    serve.stripped.stream("e2e_llamacpp_leaked_call.sse")
    response = client(serve).responses.create(model="stripped-model", input=ASKED, tools=[READ])
    assert [name for name, _ in calls(response)] == ["Read"]
    assert "tool_call" not in response.output_text
    assert "tools" in serve.proxy.received[0]


def test_reasoning_comes_back_as_a_reasoning_item(serve: Served) -> None:
    serve.native.stream("openai_vllm_reasoning_content.sse")
    with client(serve).responses.stream(model="native-model", input=ASKED) as stream:
        events = list(stream)
        final = stream.get_final_response()
    reasoning = [item for item in final.output if item.type == "reasoning"]
    assert len(reasoning) == 1 and reasoning[0].content and reasoning[0].content[0].text
    assert any(e.type == "response.reasoning_text.delta" for e in events)
    assert final.output[-1].type == "message"


def test_fields_are_passed_to_an_openai_upstream_in_its_own_form(serve: Served) -> None:
    serve.native.stream(PROSE_BODY)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    client(serve).responses.create(
        model="native-model",
        input=ASKED,
        max_output_tokens=300,
        temperature=0.2,
        top_p=0.9,
        reasoning={"effort": "low"},
        text={"format": {"type": "json_schema", "name": "out", "schema": schema, "strict": True}},
    )
    sent = serve.native.requests[0].body
    assert sent["max_tokens"] == 300 and sent["temperature"] == 0.2 and sent["top_p"] == 0.9
    assert sent["reasoning_effort"] == "low"
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "out", "schema": schema, "strict": True},
    }


def test_a_length_stop_is_an_incomplete_response(serve: Served) -> None:
    serve.ollama.stream("ollama_chat_length.ndjson", "application/x-ndjson")
    with client(serve).responses.stream(model="gemma", input=ASKED, max_output_tokens=5) as s:
        events = list(s)
    last = events[-1]
    assert last.type == "response.incomplete"
    assert last.response.status == "incomplete"
    assert last.response.incomplete_details is not None
    assert last.response.incomplete_details.reason == "max_output_tokens"
    assert serve.ollama.received("/api/chat")[0].body["options"]["num_predict"] == 5


def test_unsupported_fields_are_refused_with_what_to_do(serve: Served) -> None:
    with pytest.raises(openai.BadRequestError) as raised:
        client(serve).responses.create(model="native-model", input=ASKED, background=True)
    body: Any = raised.value.body
    assert body["message"].startswith("background:")


def test_a_key_echoed_upstream_never_reaches_a_responses_client(serve: Served) -> None:
    serve.native.stream(echoing_answer()).stream(echoing_answer())
    patch = {"index": 0, "id": "call_1", "type": "function"}
    patch["function"] = {"name": "apply_patch", "arguments": json.dumps({"input": f"+{KEY}\n"})}
    serve.native.stream(chunk({"tool_calls": [patch]}) + chunk({}, "tool_calls"))
    whole = client(serve).responses.create(model="keyed-model", input=ASKED)
    assert whole.output_text.endswith("Cut: [REDACTED] After.")
    headers = {"Authorization": f"Bearer {TOKEN}"}
    asked = {"model": "keyed-model", "input": ASKED, "stream": True}
    with httpx.stream("POST", serve.url + "/v1/responses", json=asked, headers=headers) as sent:
        streamed = b"".join(sent.iter_bytes()).decode()
    assert "response.completed" in streamed
    custom = client(serve).responses.create(model="keyed-model", input=ASKED, tools=[APPLY_PATCH])
    assert custom.output[-1].type == "custom_tool_call"
    for received in (whole.model_dump_json(), streamed, custom.model_dump_json()):
        assert leaked(received, KEY) == []


def test_a_web_page_cannot_use_the_responses_route(serve: Served) -> None:
    serve.native.stream(PROSE_BODY)
    asked = {"model": "native-model", "input": ASKED}
    headers = {"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}
    refused = httpx.post(serve.url + "/responses", json=asked, headers=headers)
    assert refused.status_code == 403 and "web pages" in refused.json()["error"]["message"]
    plain = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "text/plain"}
    sent = httpx.post(serve.url + "/v1/responses", content=json.dumps(asked), headers=plain)
    assert sent.status_code == 415
    unauthorized = httpx.post(serve.url + "/v1/responses", json=asked)
    assert unauthorized.status_code == 401
    assert serve.native.requests == []


def test_an_upstream_failing_mid_stream_ends_it_with_response_failed(serve: Served) -> None:
    failed = b'data: {"error":{"message":"CUDA error: an illegal memory access","code":400}}\n\n'
    serve.native.stream(chunk({"content": "Partial "}) + failed + b"data: [DONE]\n\n")
    events = list(client(serve).responses.create(model="native-model", input=ASKED, stream=True))
    assert [event.sequence_number for event in events] == list(range(len(events)))
    last = events[-1]
    assert last.type == "response.failed" and last.response.id == events[0].response.id
    assert last.response.status == "failed" and last.response.error is not None
    assert "CUDA error" in last.response.error.message
    [message] = last.response.output
    assert (
        message.status == "incomplete" and message.content[0].text == "Partial"
    )  # its trailing blank held for a call
    with pytest.raises(openai.BadRequestError):  # a failed response is not kept
        client(serve).responses.create(
            model="native-model", input="more", previous_response_id=last.response.id
        )
