"""``OllamaProvider`` against a real server on 127.0.0.1 replaying recorded Ollama bytes:
what it sends (``num_ctx``, tools, ``tool_name``), and the failures users meet first.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from nehanda.config.settings import Settings
from nehanda.errors import (
    ProviderConnectionError,
    ProviderStatusError,
    StreamProtocolError,
    ToolsUnsupportedError,
)
from nehanda.events import Notice, ToolUseEnd, ToolUseStart
from nehanda.providers.base import ChatRequest
from nehanda.providers.discovery import LocalServer, ensure_model, find_provider
from nehanda.providers.http import RetryPolicy
from nehanda.providers.ollama import OllamaProvider
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.types import Message, ToolSpec
from scripted_server import Reply, ScriptedServer, fixture_body

READ = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})
NDJSON = "application/x-ndjson"
FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05)


def ask(model: str = "qwen3:8b", text: str = "install?") -> ChatRequest:
    return ChatRequest(model, (Message.text_message("user", text),), tools=(READ,))


def serve(server: ScriptedServer, show: str = "ollama_show_qwen3.json") -> None:
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), json_type))
    server.route("POST", "/api/show", Reply(200, fixture_body(show), json_type))


@pytest.fixture
def ollama(harness: Any, tmp_path: Path) -> Any:
    """Builds providers aimed at the scripted server, each with a private cache file."""

    def build(api_key: str | None = None, **entry: Any) -> OllamaProvider:
        config = harness.config("ollama", **{"model": "qwen3:8b", **entry})
        store = ToolSupportCache(tmp_path / "tool_support.json")
        return OllamaProvider(config, api_key=api_key, retry=FAST_RETRY, store=store)

    return build


def chats(server: ScriptedServer) -> list[dict[str, Any]]:
    return [request.body for request in server.received("/api/chat")]


def test_a_call_streams_and_the_request_carries_num_ctx(harness: Any, ollama: Any) -> None:
    serve(harness.server)
    harness.server.stream("ollama_chat_tool_call.ndjson", NDJSON, piece=7)
    outcome = harness.run(ask(), ollama())
    assert outcome.error is None
    assert [e.tool_use.input for e in outcome.events if isinstance(e, ToolUseEnd)] == [
        {"file_path": "README.md"}
    ]
    (body,) = chats(harness.server)
    assert body["options"]["num_ctx"] == 32768  # qwen3's 40960, capped by the default
    assert body["model"] == "qwen3:8b" and body["stream"] is True
    assert body["tools"][0]["function"]["name"] == "Read"


def test_num_ctx_follows_the_model_and_the_context_cap(harness: Any, ollama: Any) -> None:
    serve(harness.server, "ollama_show_gemma_no_tools.json")
    harness.server.stream("ollama_chat_answer.ndjson", NDJSON)
    assert harness.run(ask("gemma:2b"), ollama(model="gemma:2b")).error is None
    harness.server.stream("ollama_chat_answer.ndjson", NDJSON)
    assert harness.run(ask("gemma:2b"), ollama(model="gemma:2b", context_cap=4096)).error is None
    assert [body["options"]["num_ctx"] for body in chats(harness.server)] == [8192, 4096]


def test_a_prompt_larger_than_num_ctx_is_noticed_once(harness: Any, ollama: Any) -> None:
    serve(harness.server)
    provider = ollama(context_cap=512)
    for _ in range(2):
        harness.server.stream("ollama_chat_answer.ndjson", NDJSON)
    long_request = ask(text="word " * 1000)

    async def two_turns() -> list[Any]:
        events = [e async for e in provider.stream(long_request)]
        events += [e async for e in provider.stream(long_request)]
        await provider.aclose()
        return events

    notices = [e for e in asyncio.run(two_turns()) if isinstance(e, Notice)]
    assert len(notices) == 1
    assert "512-token context (num_ctx)" in notices[0].message
    assert "context_cap" in notices[0].message


def test_does_not_support_tools_is_the_fallback_signal(harness: Any, ollama: Any) -> None:
    serve(harness.server)
    harness.server.error(400, "ollama_error_no_tools.json")
    outcome = harness.run(ask(), ollama())
    assert isinstance(outcome.error, ToolsUnsupportedError)
    assert "does not support tools" in str(outcome.error)
    assert outcome.events == []


def test_a_model_never_pulled_says_how_to_pull_it(harness: Any, ollama: Any) -> None:
    serve(harness.server)
    harness.server.error(404, "ollama_error_model_not_found.json")
    outcome = harness.run(ask("llama3"), ollama(model="llama3"))
    assert isinstance(outcome.error, ProviderStatusError)
    assert outcome.error.status == 404
    assert 'model "llama3" not found' in str(outcome.error)
    assert "ollama pull llama3" in str(outcome.error)


def test_no_server_says_where_nehanda_looked(harness: Any, ollama: Any, unused_port: int) -> None:
    provider = ollama(base_url=f"http://127.0.0.1:{unused_port}")
    outcome = harness.run(ask(), provider)
    assert type(outcome.error) is ProviderConnectionError
    message = str(outcome.error)
    assert f"127.0.0.1:{unused_port}" in message
    assert "connection refused" in message and "ollama serve" in message


def test_a_stream_cut_before_done_runs_nothing(harness: Any, ollama: Any) -> None:
    serve(harness.server)
    harness.server.stream("ollama_chat_cut_before_done.ndjson", NDJSON, cut=True)
    outcome = harness.run(ask(), ollama())
    assert isinstance(outcome.error, StreamProtocolError)
    assert any(isinstance(e, ToolUseStart) for e in outcome.events)
    assert not any(isinstance(e, ToolUseEnd) for e in outcome.events)


def test_an_api_key_is_sent_as_a_bearer_token(harness: Any, ollama: Any) -> None:
    serve(harness.server)
    harness.server.stream("ollama_chat_answer.ndjson", NDJSON)
    assert harness.run(ask(), ollama(api_key="ol-secret")).error is None
    assert {r.headers.get("authorization") for r in harness.server.requests} == {"Bearer ol-secret"}


def test_discovery_honours_ollama_host_and_lists_chat_models_first(harness: Any) -> None:
    serve(harness.server)
    local = (LocalServer("Ollama", "ollama", "http://127.0.0.1:11434", "/api/tags", "OLLAMA_HOST"),)
    host = harness.server.root_url.removeprefix("http://")
    config = asyncio.run(find_provider(Settings(), {"OLLAMA_HOST": host}, local))
    assert (config.type, config.base_url, config.model) == (
        "ollama",
        harness.server.root_url,
        "qwen3:8b",
    )
    assert harness.server.requests[0].method == "GET"


def test_an_embedding_model_is_never_the_first_choice(harness: Any) -> None:
    tags = {"models": [{"name": "nomic-embed-text:latest"}, {"name": "gemma:2b"}]}
    harness.server.route("GET", "/api/tags", Reply(200, json.dumps(tags).encode(), {}))
    config = asyncio.run(ensure_model(harness.config("ollama")))
    assert config.model == "gemma:2b"
