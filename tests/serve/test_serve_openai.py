"""``nehanda serve`` through the official ``openai`` client, in front of scripted upstreams."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.app import build_app
from nehanda.serve.config import ServeConfig
from scripted_server import Reply, fixture_body
from serve.conftest import READ_TOOL, TOKEN, UPSTREAM_KEY, Served, start
from waiting import until

ASK: Any = [{"role": "user", "content": "What is in README.md?"}]
CALL_BODY = "e2e_vllm_read_readme.sse"
RESCUE_BODY = "nehanda_cloud_tool_call_split.sse"
PROSE_BODY = "e2e_vllm_answer.sse"


def client(serve: Served, token: str = TOKEN) -> Any:
    """The official client (typed loosely: the tests send plain dicts)."""
    return openai.OpenAI(base_url=serve.url + "/v1", api_key=token, max_retries=0)


def streamed(serve: Served, model: str, **options: Any) -> dict[str, Any]:
    """A streamed reply gathered: content, the calls by index, the finish reason, usage."""
    content, reasoning, finish, usage = [], [], None, None
    calls: dict[int, dict[str, str]] = {}
    stream = client(serve).chat.completions.create(
        model=model, messages=options.pop("messages", ASK), stream=True, **options
    )
    for chunk in stream:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            delta = choice.delta
            content.append(delta.content or "")
            reasoning.append(getattr(delta, "reasoning_content", None) or "")
            for call in delta.tool_calls or ():
                entry = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                entry["id"] += call.id or ""
                entry["name"] += (call.function and call.function.name) or ""
                entry["arguments"] += (call.function and call.function.arguments) or ""
            finish = choice.finish_reason or finish
    return {
        "content": "".join(content),
        "reasoning": "".join(reasoning),
        "calls": [calls[i] for i in sorted(calls)],
        "finish": finish,
        "usage": usage,
    }


def test_a_native_call_streams_as_a_structured_call(serve: Served) -> None:
    serve.native.stream(CALL_BODY)
    reply = streamed(serve, "native-model", tools=[READ_TOOL])
    assert [(c["name"], json.loads(c["arguments"])) for c in reply["calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    assert reply["calls"][0]["id"] == "chatcmpl-tool-4b2c"
    assert reply["finish"] == "tool_calls"
    sent = serve.native.requests[0].body
    assert sent["tools"][0]["function"]["name"] == "Read"
    assert sent["model"] == "qwen"


def test_a_native_call_without_streaming(serve: Served) -> None:
    serve.native.stream(CALL_BODY)
    answer = client(serve).chat.completions.create(
        model="native-model", messages=ASK, tools=[READ_TOOL]
    )
    choice = answer.choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("Read", {"file_path": "README.md"})
    ]
    assert answer.usage is not None and answer.usage.prompt_tokens > 0


def test_a_refusal_of_tools_is_answered_in_rescue_mode_and_remembered(serve: Served) -> None:
    serve.refusing.error(400, "openai_error_vllm_auto_tool_choice.json")
    serve.refusing.stream(RESCUE_BODY)
    answer = client(serve).chat.completions.create(
        model="refusing-model", messages=ASK, tools=[READ_TOOL]
    )
    choice = answer.choices[0]
    calls = choice.message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("Read", {"file_path": "README.md"})
    ]
    assert choice.finish_reason == "tool_calls"
    assert "TOOL_CALL" not in (choice.message.content or "")
    assert (choice.message.content or "").startswith("I will read the file.")
    first, second = (r.body for r in serve.refusing.requests)
    assert "tools" in first and "tools" not in second
    assert "[TOOL_CALL]" in second["messages"][0]["content"]
    serve.refusing.requests.clear()
    serve.refusing.stream(RESCUE_BODY)
    streamed(serve, "refusing-model", tools=[READ_TOOL])
    assert ["tools" in r.body for r in serve.refusing.requests] == [False]


def test_rescue_mode_streams_prose_and_then_the_call_never_markup(serve: Served) -> None:
    serve.stripped.stream(RESCUE_BODY)
    reply = streamed(serve, "cloud-model", tools=[READ_TOOL])
    assert reply["content"] == "I will read the file."  # no line break left before the call
    assert "TOOL" not in reply["content"]
    assert [(c["name"], json.loads(c["arguments"])) for c in reply["calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    assert reply["calls"][0]["id"].startswith("call_")
    assert reply["finish"] == "tool_calls"
    assert "tools" not in serve.proxy.received[0]


def test_a_call_leaked_through_a_stripping_proxy_is_recovered(serve: Served) -> None:
    serve.stripped.stream("e2e_llamacpp_leaked_call.sse")
    reply = streamed(serve, "stripped-model", tools=[READ_TOOL])
    assert "tool_call" not in reply["content"]
    assert [c["name"] for c in reply["calls"]] == ["Read"]
    assert reply["finish"] == "tool_calls"
    assert "tools" in serve.proxy.received[0]
    assert "tools" not in serve.stripped.requests[0].body


def test_an_ollama_model_without_tool_support_is_served_in_rescue_mode(serve: Served) -> None:
    serve.ollama.stream("ollama_chat_gemma_rescue_call.ndjson", "application/x-ndjson")
    reply = streamed(serve, "gemma", tools=[READ_TOOL])
    assert [(c["name"], json.loads(c["arguments"])) for c in reply["calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    assert "TOOL" not in reply["content"]
    sent = serve.ollama.received("/api/chat")[0].body
    assert "tools" not in sent and "[TOOL_CALL]" in sent["messages"][0]["content"]


def test_a_claude_upstream_serves_an_openai_client(serve: Served) -> None:
    serve.claude.stream("anthropic_tool_use.sse")
    reply = streamed(serve, "claude-model", tools=[READ_TOOL], top_p=0.9, seed=3)
    assert [c["name"] for c in reply["calls"]] == ["Read"]
    assert reply["finish"] == "tool_calls"
    sent = serve.claude.received("/v1/messages")[0].body
    assert sent["tools"][0]["input_schema"] == READ_TOOL["function"]["parameters"]
    assert sent["top_p"] == 0.9 and "seed" not in sent


def history(result: str) -> list[dict[str, Any]]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "Read", "arguments": '{"file_path": "README.md"}'},
    }
    return [
        *ASK,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


def test_the_tool_result_reaches_a_rescue_upstream_as_text(serve: Served) -> None:
    serve.stripped.stream(PROSE_BODY)
    reply = streamed(serve, "cloud-model", tools=[READ_TOOL], messages=history("# Marker 42"))
    assert reply["finish"] == "stop" and reply["calls"] == []
    sent = serve.stripped.requests[0].body["messages"]
    assert {m["role"] for m in sent} <= {"system", "user", "assistant"}
    assert any("[TOOL_RESULT name=Read id=call_1]" in m["content"] for m in sent)
    assert any("# Marker 42" in m["content"] for m in sent)
    assert any('"file_path": "README.md"' in (m["content"] or "") for m in sent)


def test_the_tool_result_reaches_a_native_upstream_as_a_tool_message(serve: Served) -> None:
    serve.native.stream(PROSE_BODY)
    client(serve).chat.completions.create(
        model="native-model", messages=history("# Marker 42"), tools=[READ_TOOL], stop=["END"]
    )
    sent = serve.native.requests[0].body
    assert sent["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "# Marker 42",
    }
    assert sent["messages"][-2]["tool_calls"][0]["function"]["name"] == "Read"
    assert sent["stop"] == ["END"]


def test_a_required_call_in_rescue_mode_holds_prose_and_asks_again(serve: Served) -> None:
    serve.stripped.stream(PROSE_BODY)
    serve.stripped.stream(RESCUE_BODY)
    reply = streamed(serve, "cloud-model", tools=[READ_TOOL], tool_choice="required")
    assert [c["name"] for c in reply["calls"]] == ["Read"]
    assert reply["content"] == "I will read the file."
    assert len(serve.stripped.requests) == 2
    last_user = serve.stripped.requests[0].body["messages"][-1]["content"]
    assert "Call a tool now" in last_user


def test_a_named_tool_choice_offers_only_that_tool(serve: Served) -> None:
    other = {**READ_TOOL, "function": {**READ_TOOL["function"], "name": "Other"}}
    serve.native.stream(CALL_BODY)
    choice = {"type": "function", "function": {"name": "Read"}}
    streamed(serve, "native-model", tools=[other, READ_TOOL], tool_choice=choice)
    sent = serve.native.requests[0].body
    assert [t["function"]["name"] for t in sent["tools"]] == ["Read"]
    assert sent["tool_choice"] == "required"


def test_usage_on_a_stream_follows_include_usage(serve: Served) -> None:
    serve.native.stream(PROSE_BODY)
    with_usage = streamed(serve, "native-model", stream_options={"include_usage": True})
    assert with_usage["usage"] is not None and with_usage["usage"].completion_tokens > 0
    serve.native.stream(PROSE_BODY)
    assert streamed(serve, "native-model")["usage"] is None


def test_reasoning_goes_out_as_reasoning_content(serve: Served) -> None:
    serve.native.stream("openai_vllm_reasoning_content.sse")
    reply = streamed(serve, "native-model")
    assert reply["reasoning"]
    assert reply["reasoning"] not in reply["content"]


def test_other_fields_reach_an_upstream_of_the_same_protocol(serve: Served) -> None:
    serve.native.stream(PROSE_BODY)
    client(serve).chat.completions.create(
        model="native-model", messages=ASK, top_p=0.5, seed=7, extra_body={"top_k": 20}
    )
    sent = serve.native.requests[0].body
    assert (sent["top_p"], sent["seed"], sent["top_k"]) == (0.5, 7, 20)


def test_fifty_concurrent_streams_each_get_their_call(serve: Served) -> None:
    for _ in range(50):
        serve.stripped.stream(RESCUE_BODY)

    async def one(api: Any) -> tuple[str, str]:
        stream = await api.chat.completions.create(
            model="cloud-model", messages=ASK, tools=[READ_TOOL], stream=True
        )
        name = arguments = ""
        async for chunk in stream:
            for call in chunk.choices[0].delta.tool_calls or () if chunk.choices else ():
                name += (call.function and call.function.name) or ""
                arguments += (call.function and call.function.arguments) or ""
        return name, arguments

    async def many() -> list[tuple[str, str]]:
        api = openai.AsyncOpenAI(base_url=serve.url + "/v1", api_key=TOKEN, max_retries=0)
        try:
            return await asyncio.gather(*(one(api) for _ in range(50)))
        finally:
            await api.close()

    results = asyncio.run(many())
    assert {(name, json.loads(args)["file_path"]) for name, args in results} == {
        ("Read", "README.md")
    }
    assert len(results) == 50


def wait_for_hang_up(serve: Served, before: int) -> None:
    until(lambda: serve.paced.hung_up != before, "the upstream seeing the hang-up")
    assert serve.paced.hung_up == before + 1


def test_many_requests_meeting_a_refusal_at_once_all_get_their_call(serve: Served) -> None:
    async def many() -> list[Any]:
        api = openai.AsyncOpenAI(base_url=serve.url + "/v1", api_key=TOKEN, max_retries=0)
        try:
            ask = api.chat.completions.create
            asks = (ask(model="picky-model", messages=ASK, tools=[READ_TOOL]) for _ in range(12))
            return await asyncio.gather(*asks)
        finally:
            await api.close()

    answers = asyncio.run(many())
    assert {a.choices[0].message.tool_calls[0].function.name for a in answers} == {"Read"}
    assert serve.picky.asked <= 24  # each refused once at most, then asked in rescue mode


def test_a_client_that_disconnects_stops_the_upstream_stream(serve: Served) -> None:
    before, sent = serve.paced.hung_up, serve.paced.sent
    body = {"model": "paced-model", "messages": ASK, "stream": True}
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.stream(
        "POST", serve.url + "/v1/chat/completions", json=body, headers=headers
    ) as answer:
        lines = answer.iter_lines()
        assert [next(lines) for _ in range(4)]
    wait_for_hang_up(serve, before)
    assert serve.paced.sent - sent < 100  # of the 400 it would have sent


def test_a_client_that_gives_up_on_a_whole_answer_stops_the_upstream(serve: Served) -> None:
    before, sent = serve.paced.hung_up, serve.paced.sent
    body = {"model": "paced-model", "messages": ASK}
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(serve.url + "/v1/chat/completions", json=body, headers=headers, timeout=0.3)
    wait_for_hang_up(serve, before)
    assert serve.paced.sent - sent < 100


def test_the_bearer_token_is_enforced(serve: Served) -> None:
    with pytest.raises(openai.AuthenticationError):
        client(serve, "wrong-token").chat.completions.create(model="native-model", messages=ASK)
    body = {"model": "native-model", "messages": ASK}
    for headers in ({}, {"Authorization": "Bearer"}, {"x-api-key": TOKEN + "x"}):
        answer = httpx.post(serve.url + "/v1/chat/completions", json=body, headers=headers)
        assert answer.status_code == 401
        assert answer.json()["error"]["type"] == "authentication_error"
    assert httpx.get(serve.url + "/v1/models").status_code == 401
    assert serve.native.requests == []
    assert httpx.get(serve.url + "/health").json() == {"status": "ok"}


def test_upstream_errors_become_openai_errors_with_their_status(serve: Served) -> None:
    serve.native.error(400, "openai_error_bad_temperature.json")
    with pytest.raises(openai.BadRequestError) as bad:
        client(serve).chat.completions.create(model="native-model", messages=ASK)
    assert "temperature" in str(bad.value)
    serve.native.reply(Reply(500, b"boom"))
    with pytest.raises(openai.APIStatusError) as failed:
        client(serve).chat.completions.create(model="native-model", messages=ASK)
    assert failed.value.status_code == 502
    with pytest.raises(openai.NotFoundError):
        client(serve).chat.completions.create(model="no-such-model", messages=ASK)
    with pytest.raises(openai.BadRequestError):
        client(serve).chat.completions.create(model="native-model", messages=[])


def test_the_upstream_key_never_reaches_the_client_or_the_log(
    serve: Served, caplog: pytest.LogCaptureFixture
) -> None:
    key = UPSTREAM_KEY
    caplog.set_level(logging.DEBUG)
    echo = json.dumps({"error": {"message": f"invalid key {key}", "type": "auth"}}).encode()
    serve.native.reply(Reply(401, echo, {"Content-Type": "application/json"}))
    serve.native.stream(PROSE_BODY)
    serve.native.reply(Reply(200, b"data: {not json " + key.encode() + b"}\n\n", {}))
    with pytest.raises(openai.APIStatusError) as refused:
        client(serve).chat.completions.create(model="keyed-model", messages=ASK)
    assert refused.value.status_code == 502  # nehanda's key, not the client's token
    answered = client(serve).chat.completions.create(model="keyed-model", messages=ASK)
    with pytest.raises(openai.APIError) as broken:
        streamed(serve, "keyed-model")
    seen = [str(refused.value.body), answered.model_dump_json(), str(broken.value)]
    assert all(key not in text for text in seen)
    assert key not in caplog.text
    assert serve.native.requests[0].headers["authorization"] == f"Bearer {key}"


def test_a_stream_cut_upstream_ends_with_an_error_and_no_call(serve: Served) -> None:
    serve.native.stream(fixture_body("openai_vllm_cut_before_finish.sse"), cut=True)
    with pytest.raises(openai.APIError):
        streamed(serve, "native-model", tools=[READ_TOOL])


def test_models_lists_the_served_names(serve: Served) -> None:
    names = [model.id for model in client(serve).models.list()]
    assert set(names) == {
        "native-model",
        "refusing-model",
        "stripped-model",
        "cloud-model",
        "paced-model",
        "gemma",
        "claude-model",
        "keyed-model",
        "picky-model",
    }


def test_models_without_aliases_are_the_upstreams_own(serve: Served, tmp_path: Path) -> None:
    json_type = {"Content-Type": "application/json"}
    listing = Reply(200, fixture_body("openai_llamacpp_models.json"), json_type)
    serve.native.route("GET", "/v1/models", listing)
    default = ProviderConfig(name="p", type="vllm", base_url=serve.native.base_url)
    app = build_app(ServeConfig(default), {}, ToolSupportCache(tmp_path / "cache.json"))
    url, stop = start(app)
    try:
        api = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0)
        names = [model.id for model in api.models.list()]
    finally:
        stop()
        serve.native.routes.clear()
    assert names == ["Qwen3-8B-Q4_K_M.gguf"]
