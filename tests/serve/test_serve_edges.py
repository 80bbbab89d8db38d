"""The edges real clients hit, through a real serve: every error is JSON in the path's
protocol, models one by one, routes without ``/v1``, ``/v1/completions`` and
``/v1/embeddings`` passed through (or a 404 saying serve does not offer them), legacy
``functions``, and what Claude Code sends that serve does not read."""

from __future__ import annotations

import json
import logging
from typing import Any

import anthropic
import httpx
import openai
import pytest

from scripted_server import Reply
from secret_forms import leaked
from serve.conftest import READ_TOOL, TOKEN, UPSTREAM_KEY, Served

AUTH = {"Authorization": f"Bearer {TOKEN}"}
ASK: Any = [{"role": "user", "content": "What is in README.md?"}]
CALL_BODY = "e2e_vllm_read_readme.sse"
AS_JSON = {"Content-Type": "application/json"}


def openai_client(serve: Served, base: str = "/v1") -> Any:
    return openai.OpenAI(base_url=serve.url + base, api_key=TOKEN, max_retries=0)


def anthropic_client(serve: Served) -> Any:
    return anthropic.Anthropic(base_url=serve.url, api_key=TOKEN, max_retries=0)


@pytest.mark.parametrize(
    ("method", "path", "status", "protocol"),
    [
        ("POST", "/v1/nothing", 404, "openai"),
        ("GET", "/", 404, "openai"),
        ("POST", "/v1/messages/batches", 404, "anthropic"),
        ("GET", "/v1/chat/completions", 405, "openai"),
        ("GET", "/v1/messages", 405, "anthropic"),
        ("DELETE", "/v1/models", 405, "openai"),
    ],
)
def test_every_route_error_is_json_in_the_paths_protocol(
    serve: Served, method: str, path: str, status: int, protocol: str
) -> None:
    answer = httpx.request(method, serve.url + path, headers=AUTH, json={})
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    if protocol == "anthropic":
        assert body["type"] == "error" and body["error"]["message"]
    else:
        assert set(body) == {"error"} and body["error"]["message"]
    if status == 405:
        assert "POST" in answer.headers["allow"] or "GET" in answer.headers["allow"]
    else:
        assert "POST /v1/chat/completions" in str(body)  # it names the routes there are


def test_a_model_is_found_by_its_id_and_an_unserved_one_is_not(serve: Served) -> None:
    assert openai_client(serve).models.retrieve("native-model").id == "native-model"
    assert anthropic_client(serve).models.retrieve("claude-model").id == "claude-model"
    with pytest.raises(openai.NotFoundError, match="not served here"):
        openai_client(serve).models.retrieve("no-such-model")


def test_the_routes_answer_without_the_v1_prefix(serve: Served) -> None:
    serve.native.stream("e2e_vllm_answer.sse")
    bare = openai_client(serve, base="")
    assert "native-model" in [m.id for m in bare.models.list()]
    assert bare.chat.completions.create(model="native-model", messages=ASK).choices
    serve.claude.stream("anthropic_answer.sse")
    body = {"model": "claude-model", "max_tokens": 64, "messages": ASK}
    answer = httpx.post(serve.url + "/messages", json=body, headers=AUTH)
    assert answer.status_code == 200 and answer.json()["type"] == "message"
    counted = httpx.post(serve.url + "/messages/count_tokens", json=body, headers=AUTH)
    assert counted.json()["input_tokens"] > 0
    missing = httpx.post(serve.url + "/messages/nothing", json=body, headers=AUTH)
    assert missing.status_code == 404 and missing.json()["type"] == "error"


def completion_answer(text: str) -> bytes:
    choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
    body = {"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "qwen",
            "choices": [choice]}  # fmt: skip
    return json.dumps(body).encode()


def test_completions_reach_an_openai_upstream_with_its_key_and_come_back_masked(
    serve: Served,
) -> None:
    serve.native.reply(Reply(200, completion_answer(f"echo {UPSTREAM_KEY} done"), AS_JSON))
    answer = openai_client(serve).completions.create(model="keyed-model", prompt="Say hi")
    assert answer.choices[0].text == "echo [REDACTED] done"
    sent = serve.native.received("/v1/completions")[0]
    assert sent.body == {"model": "qwen", "prompt": "Say hi"}
    assert sent.headers["authorization"] == f"Bearer {UPSTREAM_KEY}"


def test_a_streamed_completion_is_passed_through_masked(serve: Served) -> None:
    pieces = [UPSTREAM_KEY[:10], UPSTREAM_KEY[10:], " after"]
    events = (
        b"".join(b"data: " + completion_answer(piece) + b"\n\n" for piece in pieces)
        + b"data: [DONE]\n\n"
    )
    serve.native.stream(events, piece=7)
    stream = openai_client(serve).completions.create(
        model="keyed-model", prompt="Say hi", stream=True
    )
    texts = [chunk.choices[0].text for chunk in stream]
    assert texts[-1] == " after"
    assert leaked("".join(texts), UPSTREAM_KEY) == []


def test_embeddings_reach_an_openai_upstream(serve: Served) -> None:
    vector = {"object": "embedding", "index": 0, "embedding": [0.5, -0.25]}
    usage = {"prompt_tokens": 1, "total_tokens": 1}
    vectors = {"object": "list", "model": "qwen", "usage": usage, "data": [vector]}
    serve.native.json(vectors)
    answer = openai_client(serve).embeddings.create(model="native-model", input="hi")
    assert answer.data[0].embedding == [0.5, -0.25]
    assert serve.native.received("/v1/embeddings")[0].body["input"] == "hi"


@pytest.mark.parametrize("model", ["claude-model", "gemma", "native-model"])
def test_endpoints_an_upstream_lacks_are_a_404_saying_serve_does_not_offer_them(
    serve: Served, model: str
) -> None:
    if model == "native-model":
        serve.native.error(404, "404 page not found")
    with pytest.raises(openai.NotFoundError, match="does not offer /embeddings"):
        openai_client(serve).embeddings.create(model=model, input="hi")


FUNCTION: Any = READ_TOOL["function"]


def test_legacy_functions_are_offered_as_tools_and_answered_as_a_function_call(
    serve: Served,
) -> None:
    serve.native.stream(CALL_BODY)
    answer = openai_client(serve).chat.completions.create(
        model="native-model", messages=ASK, functions=[FUNCTION], function_call="auto"
    )
    choice = answer.choices[0]
    assert choice.finish_reason == "function_call"
    assert choice.message.function_call.name == "Read"
    assert json.loads(choice.message.function_call.arguments) == {"file_path": "README.md"}
    assert choice.message.tool_calls is None
    sent = serve.native.requests[0].body
    assert sent["tools"] == [READ_TOOL] and "functions" not in sent


def test_a_streamed_legacy_call_is_a_function_call_delta(serve: Served) -> None:
    serve.native.stream(CALL_BODY)
    stream = openai_client(serve).chat.completions.create(
        model="native-model", messages=ASK, functions=[FUNCTION], stream=True
    )
    name = arguments = finish = ""
    for chunk in stream:
        for choice in chunk.choices:
            call = choice.delta.function_call
            name += (call and call.name) or ""
            arguments += (call and call.arguments) or ""
            finish = choice.finish_reason or finish
    assert (name, json.loads(arguments), finish) == (
        "Read", {"file_path": "README.md"}, "function_call"
    )  # fmt: skip


def test_a_legacy_function_result_answers_the_call_before_it(serve: Served) -> None:
    serve.native.stream("e2e_vllm_answer.sse")
    legacy = {"name": "Read", "arguments": '{"file_path": "README.md"}'}
    messages = [
        *ASK,
        {"role": "assistant", "content": None, "function_call": legacy},
        {"role": "function", "name": "Read", "content": "# Marker 42"},
    ]
    openai_client(serve).chat.completions.create(
        model="native-model", messages=messages, functions=[FUNCTION]
    )
    sent = serve.native.requests[0].body["messages"]
    call = sent[1]["tool_calls"][0]
    assert call["function"]["name"] == "Read"
    assert sent[2] == {"role": "tool", "tool_call_id": call["id"], "content": "# Marker 42"}


CLAUDE_CODE: Any = {
    "model": "claude-model",
    "max_tokens": 2048,
    "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "Read README.md", "cache_control": {"type": "ephemeral"}}
        ]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "I should read it.", "signature": "c2lnbmVk"},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "# Marker 42",
             "cache_control": {"type": "ephemeral"}},
        ]},
    ],
    "tools": [
        {"name": "Read", "description": "Read a file.",
         "input_schema": READ_TOOL["function"]["parameters"],
         "cache_control": {"type": "ephemeral"}},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
    ],
    "metadata": {"user_id": "user_abc"},
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "context_management": {"edits": [{"type": "clear_thinking_20251015"}]},
    "output_config": {"effort": "high"},
    "serve_edges_unknown_field": 1,
    "stream": True,
}  # fmt: skip


def test_what_claude_code_sends_is_answered_and_its_thinking_reaches_claude(
    serve: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="nehanda.serve")
    headers = {**AUTH, "anthropic-beta": "context-management-2025-06-27,no-such-beta"}
    for _ in range(2):
        serve.claude.stream("anthropic_thinking_tool_use.sse")
        with httpx.stream(
            "POST", serve.url + "/v1/messages", json=CLAUDE_CODE, headers=headers
        ) as answer:
            assert answer.status_code == 200
            assert "event: message_stop" in answer.read().decode()
    sent = serve.claude.received("/v1/messages")[0].body
    assert sent["thinking"] == CLAUDE_CODE["thinking"]
    assert sent["metadata"] == {"user_id": "user_abc"}
    assert "context_management" not in sent and "output_config" not in sent
    assert [tool["name"] for tool in sent["tools"]] == ["Read"]
    assert sent["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": "I should read it.", "signature": "c2lnbmVk"
    }  # fmt: skip
    said = [r.getMessage() for r in caplog.records if "serve_edges_unknown_field" in r.getMessage()]
    assert said == ["nehanda serve ignores serve_edges_unknown_field"]  # once, at debug
