"""``list_models``, what ``/model`` offers: each server's list, asked the way it wants."""

from __future__ import annotations

import asyncio

import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.providers.discovery import list_models
from scripted_server import Reply, ScriptedServer, fixture_body

JSON = {"Content-Type": "application/json"}


def test_anthropic_is_asked_with_its_key_header_and_version(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_ANT_KEY", "sk-ant-test-123456")
    server.route("GET", "/v1/models", Reply(200, fixture_body("anthropic_models.json"), JSON))
    config = ProviderConfig(
        name="anthropic", type="anthropic", base_url=server.root_url, api_key_env="TEST_ANT_KEY"
    )
    names = asyncio.run(list_models(config))
    assert names == [
        "claude-sonnet-4-5-20250929",
        "claude-opus-4-1-20250805",
        "claude-3-5-haiku-20241022",
    ]
    (asked,) = server.received("/v1/models")
    assert asked.headers["x-api-key"] == "sk-ant-test-123456"
    assert asked.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in asked.headers


def test_an_openai_compatible_server_is_asked_with_a_bearer_token(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K", "token-12345678")
    server.route("GET", "/v1/models", Reply(200, fixture_body("vllm_models.json"), JSON))
    config = ProviderConfig(name="lab", type="vllm", base_url=server.base_url, api_key_env="K")
    assert asyncio.run(list_models(config)) == ["q", "q2", "q3"]
    assert server.received("/v1/models")[0].headers["authorization"] == "Bearer token-12345678"


def test_a_server_that_does_not_answer_lists_nothing(unused_port: int) -> None:
    config = ProviderConfig(name="x", type="vllm", base_url=f"http://127.0.0.1:{unused_port}/v1")
    assert asyncio.run(list_models(config)) == []
