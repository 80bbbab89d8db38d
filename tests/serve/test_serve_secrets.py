"""An upstream that echoes nehanda's key back, in every form servers use, through a real
serve: in its answer's text (also cut across deltas too short to recognise alone), its
reasoning, a call's arguments, its errors, its model list and the refusal serve logs. The
client, and the log, see none of the forms."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.app import build_app
from nehanda.serve.config import ServeConfig
from scripted_server import Reply, fixture_body
from secret_forms import echoes, leaked
from serve.conftest import READ_TOOL, TOKEN, UPSTREAM_KEY, Served, start

KEY = UPSTREAM_KEY
ASK: Any = [{"role": "user", "content": "What is my key?"}]
SSE = {"Content-Type": "text/event-stream"}


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "c1", "object": "chat.completion.chunk", "model": "qwen", "choices": [choice]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def echoing_answer() -> bytes:
    """Reasoning and text holding the key in each form, and the key cut in three deltas
    of 8, 8 and 12 characters, each too short to be told from ordinary text alone."""
    forms = list(echoes(KEY).values())
    deltas = [{"reasoning_content": f"thinking of {forms[0]} and {forms[6]}"}]
    deltas += [{"content": "Before. "}, *({"content": f"{form} / "} for form in forms)]
    deltas += [{"content": piece} for piece in ("Cut: ", KEY[:8], KEY[8:16], KEY[16:], " After.")]
    return b"".join(map(chunk, deltas)) + chunk({}, "stop") + b"data: [DONE]\n\n"


def openai_client(serve: Served) -> Any:
    return openai.OpenAI(base_url=serve.url + "/v1", api_key=TOKEN, max_retries=0)


def test_a_key_echoed_in_an_answer_never_reaches_the_client(serve: Served) -> None:
    serve.native.stream(echoing_answer()).stream(echoing_answer()).stream(echoing_answer())
    whole = openai_client(serve).chat.completions.create(model="keyed-model", messages=ASK)
    text = whole.choices[0].message.content
    assert text.startswith("Before. ") and text.endswith("Cut: [REDACTED] After.")
    headers = {"Authorization": f"Bearer {TOKEN}"}
    asked = {"model": "keyed-model", "messages": ASK, "stream": True}
    with httpx.stream(
        "POST", serve.url + "/v1/chat/completions", json=asked, headers=headers
    ) as streamed:
        sent = b"".join(streamed.iter_bytes()).decode()
    assert "Cut:" in sent and "data: [DONE]" in sent
    anthropic_client = anthropic.Anthropic(base_url=serve.url, api_key=TOKEN, max_retries=0)
    with anthropic_client.messages.stream(
        model="keyed-model", max_tokens=64, messages=ASK
    ) as events:
        message = events.get_final_message().model_dump_json()
    for received in (whole.model_dump_json(), sent, message):
        assert leaked(received, KEY) == []
    assert serve.native.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_key_in_a_calls_arguments_is_masked(serve: Served) -> None:
    call = {"index": 0, "id": "call_1", "type": "function"}
    call["function"] = {"name": "Read", "arguments": json.dumps({"file_path": f"/keys/{KEY}"})}
    body = chunk({"tool_calls": [call]}) + chunk({}, "tool_calls") + b"data: [DONE]\n\n"
    serve.native.stream(body)
    answer = openai_client(serve).chat.completions.create(
        model="keyed-model", messages=ASK, tools=[READ_TOOL]
    )
    arguments = answer.choices[0].message.tool_calls[0].function.arguments
    assert json.loads(arguments) == {"file_path": "/keys/[REDACTED]"}


def test_a_key_echoed_in_an_error_never_reaches_the_client(serve: Served) -> None:
    forms = echoes(KEY)
    said = json.dumps({"error": {"message": f"{forms['url']}; {forms['last_12']}"}})
    serve.native.reply(Reply(400, said.encode(), {"Content-Type": "application/json"}))
    serve.native.reply(Reply(500, forms["base64"].encode()))
    mid_stream = chunk({"content": "ok"}) + b"event: error\ndata: " + forms["json"].encode()
    serve.native.stream(mid_stream + b"\n\n")
    with pytest.raises(openai.BadRequestError) as bad:
        openai_client(serve).chat.completions.create(model="keyed-model", messages=ASK)
    with pytest.raises(openai.APIStatusError) as failed:
        openai_client(serve).chat.completions.create(model="keyed-model", messages=ASK)
    assert failed.value.status_code == 502
    with pytest.raises(openai.APIError) as broken:
        for _ in openai_client(serve).chat.completions.create(
            model="keyed-model", messages=ASK, stream=True
        ):
            pass
    for error in (bad.value, failed.value, broken.value):
        assert leaked(str(error) + json.dumps(error.body), KEY) == []
    assert "refused" in str(bad.value)  # the server's own words, the key masked


@pytest.fixture
def listing_serve(serve: Served, tmp_path: Path) -> Iterator[str]:
    """A serve without aliases, whose model list is its upstream's, the upstream keyed."""
    names = [f"model-{KEY}", echoes(KEY)["url"], "qwen"]
    listing = json.dumps({"object": "list", "data": [{"id": name} for name in names]})
    serve.native.route("GET", "/v1/models", Reply(200, listing.encode(), {}))
    default = ProviderConfig(
        name="p", type="vllm", base_url=serve.native.base_url, api_key_env="SERVE_UPSTREAM_KEY"
    )
    cache = ToolSupportCache(tmp_path / "cache.json")
    url, stop = start(build_app(ServeConfig(default), {"SERVE_UPSTREAM_KEY": KEY}, cache))
    yield url
    stop()
    serve.native.routes.clear()


def test_a_key_in_an_upstream_model_id_never_reaches_the_client(
    serve: Served, listing_serve: str
) -> None:
    api = openai.OpenAI(base_url=listing_serve + "/v1", api_key="x", max_retries=0)
    names = [model.id for model in api.models.list()]
    assert names[0] == "model-[REDACTED]" and names[-1] == "qwen"
    assert leaked(json.dumps(names), KEY) == []
    (listed,) = serve.native.received("/v1/models")
    assert listed.headers["authorization"] == f"Bearer {KEY}"


def test_a_key_in_a_refusal_of_tools_is_masked_in_the_log(
    serve: Served, caplog: pytest.LogCaptureFixture
) -> None:
    # Last in this module: keyed-model answers in rescue mode after it.
    refusal = json.loads(fixture_body("openai_error_vllm_auto_tool_choice.json"))
    refusal["message"] += " " + echoes(KEY)["url"] + " " + echoes(KEY)["base64"]
    serve.native.reply(Reply(400, json.dumps(refusal).encode(), {}))
    serve.native.stream("nehanda_cloud_tool_call_split.sse")
    caplog.set_level(logging.WARNING, logger="nehanda.serve")
    answer = openai_client(serve).chat.completions.create(
        model="keyed-model", messages=ASK, tools=[READ_TOOL]
    )
    assert answer.choices[0].finish_reason == "tool_calls"
    assert "switched to rescue mode" in caplog.text
    assert leaked(caplog.text, KEY) == []
