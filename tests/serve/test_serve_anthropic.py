"""``nehanda serve`` through the official ``anthropic`` client, in front of scripted upstreams."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import pytest

from serve.conftest import PING_EVERY, READ_TOOL, TOKEN, Served

ASK: Any = [{"role": "user", "content": "What is in README.md?"}]
TOOL: Any = {
    "name": "Read",
    "description": "Read a file.",
    "input_schema": READ_TOOL["function"]["parameters"],
}
RESCUE_BODY = "nehanda_cloud_tool_call_split.sse"


def client(serve: Served, token: str = TOKEN) -> Any:
    """The official client (typed loosely: the tests send plain dicts)."""
    return anthropic.Anthropic(base_url=serve.url, api_key=token, max_retries=0)


def stream_events(serve: Served, model: str, **options: Any) -> tuple[list[str], Any]:
    """The event types the client saw, and the message it put together from them."""
    with client(serve).messages.stream(
        model=model, max_tokens=512, messages=options.pop("messages", ASK), **options
    ) as stream:
        kinds = [event.type for event in stream]
        return kinds, stream.get_final_message()


def test_a_rescue_call_streams_as_a_tool_use_block(serve: Served) -> None:
    serve.stripped.stream(RESCUE_BODY)
    kinds, final = stream_events(serve, "cloud-model", tools=[TOOL])
    assert [block.type for block in final.content] == ["text", "tool_use"]
    assert final.content[0].text.startswith("I will read the file.")
    assert "TOOL" not in final.content[0].text
    call = final.content[1]
    assert (call.name, call.input) == ("Read", {"file_path": "README.md"})
    assert final.stop_reason == "tool_use"
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "content_block_start" in kinds and "content_block_stop" in kinds


def test_a_native_call_without_streaming(serve: Served) -> None:
    serve.native.stream("e2e_vllm_read_readme.sse")
    final = client(serve).messages.create(
        model="native-model", max_tokens=512, messages=ASK, tools=[TOOL]
    )
    assert [(b.type, b.name, b.input) for b in final.content] == [
        ("tool_use", "Read", {"file_path": "README.md"})
    ]
    assert final.content[0].id == "chatcmpl-tool-4b2c"
    assert final.stop_reason == "tool_use"
    assert final.usage.input_tokens > 0
    sent = serve.native.requests[0].body
    assert sent["tools"][0]["function"]["parameters"] == TOOL["input_schema"]


def test_the_raw_event_sequence_is_the_messages_api_one(serve: Served) -> None:
    serve.stripped.stream(RESCUE_BODY)
    body = {"model": "cloud-model", "max_tokens": 64, "messages": ASK, "tools": [TOOL]}
    body["stream"] = True
    headers = {"x-api-key": TOKEN, "anthropic-version": "2023-06-01"}
    answer = httpx.post(serve.url + "/v1/messages", json=body, headers=headers)
    names = [line[7:] for line in answer.text.splitlines() if line.startswith("event: ")]
    text_deltas = ["content_block_delta"] * (names.count("content_block_delta") - 1)
    assert len(text_deltas) >= 2
    assert names == [
        "message_start",
        "ping",
        "content_block_start",
        *text_deltas,
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert '"stop_reason":"tool_use"' in answer.text


def test_a_long_silence_upstream_is_filled_with_pings(serve: Served) -> None:
    serve.paced.chunks, serve.paced.rate = 2, 1 / (2.4 * PING_EVERY)
    try:
        body = {"model": "paced-model", "max_tokens": 64, "messages": ASK, "stream": True}
        headers = {"x-api-key": TOKEN, "anthropic-version": "2023-06-01"}
        answer = httpx.post(serve.url + "/v1/messages", json=body, headers=headers, timeout=10)
    finally:
        serve.paced.chunks, serve.paced.rate = 400, 50
    names = [line[7:] for line in answer.text.splitlines() if line.startswith("event: ")]
    assert names.count("ping") >= 3  # the one after message_start, then two in the silence
    assert names[-2:] == ["message_delta", "message_stop"]


def history() -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}}
    thinking = {"type": "thinking", "thinking": "secret plan", "signature": "c2ln"}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "# Marker 42"}
    return [
        *ASK,
        {"role": "assistant", "content": [thinking, use]},
        {"role": "user", "content": [result, {"type": "text", "text": "and then?"}]},
    ]


def test_a_tool_result_reaches_a_rescue_upstream_as_text(serve: Served) -> None:
    serve.stripped.stream("e2e_vllm_answer.sse")
    final = client(serve).messages.create(
        model="cloud-model", max_tokens=64, messages=history(), tools=[TOOL], system="Be brief."
    )
    assert final.stop_reason == "end_turn" and final.content[0].type == "text"
    sent = serve.stripped.requests[0].body["messages"]
    texts = "\n".join(m["content"] for m in sent)
    assert "[TOOL_RESULT name=Read id=toolu_1]\n# Marker 42" in texts
    assert sent[0]["role"] == "system" and sent[0]["content"].startswith("Be brief.")
    assert "secret plan" not in texts


def test_a_tool_result_reaches_a_native_upstream_as_a_tool_message(serve: Served) -> None:
    serve.native.stream("e2e_vllm_answer.sse")
    client(serve).messages.create(
        model="native-model", max_tokens=64, messages=history(), tools=[TOOL]
    )
    sent = serve.native.requests[0].body["messages"]
    assert {"role": "tool", "tool_call_id": "toolu_1", "content": "# Marker 42"} in sent
    assert "secret plan" not in str(sent)


@pytest.mark.parametrize("enabled", [True, False])
def test_thinking_blocks_only_when_the_request_enabled_thinking(
    serve: Served, enabled: bool
) -> None:
    serve.native.stream("openai_vllm_reasoning_content.sse")
    options: dict[str, Any] = {}
    if enabled:
        options["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    _, final = stream_events(serve, "native-model", **options)
    kinds = [block.type for block in final.content]
    assert kinds == (["thinking", "text"] if enabled else ["text"])
    if enabled:
        assert final.content[0].thinking and final.content[0].signature == ""


def test_signed_thinking_from_claude_reaches_the_client(serve: Served) -> None:
    serve.claude.stream("anthropic_thinking_tool_use.sse")
    thinking = {"type": "enabled", "budget_tokens": 2048}
    _, final = stream_events(serve, "claude-model", tools=[TOOL], thinking=thinking)
    assert [block.type for block in final.content] == ["thinking", "tool_use"]
    assert final.content[0].signature and final.content[0].thinking
    assert final.content[1].name == "Read"
    assert serve.claude.received("/v1/messages")[0].body["thinking"] == thinking


def test_tool_choice_any_is_required_in_rescue_mode(serve: Served) -> None:
    serve.stripped.stream("e2e_vllm_answer.sse")
    serve.stripped.stream(RESCUE_BODY)
    _, final = stream_events(serve, "cloud-model", tools=[TOOL], tool_choice={"type": "any"})
    assert [block.type for block in final.content] == ["text", "tool_use"]
    assert len(serve.stripped.requests) == 2


def test_count_tokens_estimates(serve: Served) -> None:
    counted = client(serve).messages.count_tokens(
        model="native-model", messages=history(), tools=[TOOL]
    )
    assert 20 < counted.input_tokens < 2000


def test_errors_are_anthropic_error_objects(serve: Served) -> None:
    with pytest.raises(anthropic.AuthenticationError):
        client(serve, "wrong").messages.create(model="native-model", max_tokens=8, messages=ASK)
    with pytest.raises(anthropic.NotFoundError):
        client(serve).messages.create(model="nothing", max_tokens=8, messages=ASK)
    serve.native.error(400, "openai_error_context_length.json")
    with pytest.raises(anthropic.BadRequestError) as bad:
        client(serve).messages.create(model="native-model", max_tokens=8, messages=ASK)
    assert bad.value.status_code == 400
    body: Any = bad.value.body
    assert body["error"]["type"] == "invalid_request_error"


def test_an_upstream_failing_mid_stream_ends_the_stream_with_an_error_event(
    serve: Served,
) -> None:
    serve.claude.stream("anthropic_error_api_mid_stream.sse")
    with pytest.raises(anthropic.APIStatusError) as failed:
        stream_events(serve, "claude-model", tools=[TOOL])
    assert "api_error" in str(failed.value) or failed.value.status_code >= 500
