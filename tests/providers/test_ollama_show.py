"""Ollama tool-support detection: ``/api/show`` answers as recorded, and the per-model
cache (memory and disk, keyed by the model's version) against a real server.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.errors import ProviderStatusError
from nehanda.providers.base import Capabilities
from nehanda.providers.ollama_show import (
    OllamaModelInfo,
    context_length_from_show,
    native_tools_from_show,
    version_from_tags,
)
from nehanda.providers.tool_support import ToolSupportCache
from scripted_server import Reply, ScriptedServer, fixture_body

QWEN_DIGEST = "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41"


def show(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(fixture_body(name))
    return body


@pytest.mark.parametrize(
    ("fixture", "native", "length"),
    [
        ("ollama_show_qwen3.json", True, 40960),
        ("ollama_show_llama31_no_capabilities.json", True, 131072),  # template has .Tools
        ("ollama_show_gemma_no_tools.json", False, 8192),
        ("ollama_show_gpt_oss_renderer.json", True, 131072),  # capabilities win over template
    ],
)
def test_recorded_show_answers(fixture: str, native: bool, length: int) -> None:
    body = show(fixture)
    assert native_tools_from_show(body) is native
    assert context_length_from_show(body) == length


def test_capabilities_are_preferred_to_the_template_when_present() -> None:
    body = show("ollama_show_llama31_no_capabilities.json") | {"capabilities": ["completion"]}
    assert native_tools_from_show(body) is False


def test_context_length_when_the_architecture_key_is_missing() -> None:
    assert context_length_from_show({"model_info": {"phi3.context_length": 4096}}) == 4096
    assert context_length_from_show({"model_info": {"general.architecture": "x"}}) is None
    assert context_length_from_show({}) is None


def test_version_comes_from_the_tags_listing() -> None:
    tags = json.loads(fixture_body("ollama_tags.json"))
    assert version_from_tags(tags, "qwen3:8b") == QWEN_DIGEST
    assert (version_from_tags(tags, "nomic-embed-text") or "").startswith("0a109f42")
    assert version_from_tags(tags, "llama3") is None
    assert version_from_tags({"models": "nonsense"}, "qwen3:8b") is None


def serve_ollama(server: ScriptedServer, show_fixture: str = "ollama_show_qwen3.json") -> None:
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), json_type))
    server.route("POST", "/api/show", Reply(200, fixture_body(show_fixture), json_type))


def ask(config: ProviderConfig, store: ToolSupportCache, *models: str) -> list[Capabilities]:
    async def go() -> list[Capabilities]:
        async with httpx.AsyncClient() as client:
            info = OllamaModelInfo(config, client, store=store)
            return [await info.capabilities(model) for model in models]

    return asyncio.run(go())


@pytest.fixture
def store(tmp_path: Path) -> ToolSupportCache:
    return ToolSupportCache(tmp_path / "tool_support.json")


def test_show_is_asked_once_per_model_and_remembered_on_disk(
    harness: Any, store: ToolSupportCache
) -> None:
    serve_ollama(harness.server)
    config = harness.config("ollama", model="qwen3:8b")
    first = ask(config, store, "qwen3:8b", "qwen3:8b")
    assert first == [Capabilities(True, 40960, vision=False)] * 2
    assert len(harness.server.received("/api/show")) == 1
    assert harness.server.received("/api/show")[0].body == {"model": "qwen3:8b"}

    # a later run
    assert ask(config, store, "qwen3:8b") == [
        Capabilities(True, 40960, vision=False)
    ]  # a later run
    assert len(harness.server.received("/api/show")) == 1
    saved = json.loads(store.path.read_text())["detected"]
    assert saved[f"ollama {harness.server.root_url} qwen3:8b"]["version"] == QWEN_DIGEST


def test_a_re_pulled_model_is_asked_about_again(harness: Any, store: ToolSupportCache) -> None:
    serve_ollama(harness.server)
    config = harness.config("ollama", model="qwen3:8b")
    store.remember_detected(
        config, "qwen3:8b", "sha256-of-an-older-pull", Capabilities(False, 2048)
    )
    assert ask(config, store, "qwen3:8b") == [Capabilities(True, 40960, vision=False)]
    assert len(harness.server.received("/api/show")) == 1


def test_a_model_no_longer_listed_is_asked_about_again(
    harness: Any, store: ToolSupportCache
) -> None:
    serve_ollama(harness.server)
    config = harness.config("ollama", model="qwen3:8b")
    ask(config, store, "qwen3:8b")
    json_type = {"Content-Type": "application/json"}
    harness.server.route("GET", "/api/tags", Reply(200, b'{"models":[]}', json_type))
    gone = Reply(404, b'{"error":"model \'qwen3:8b\' not found"}', json_type)
    harness.server.route("POST", "/api/show", gone)
    with pytest.raises(ProviderStatusError, match="ollama pull qwen3:8b"):
        ask(config, store, "qwen3:8b")
    assert len(harness.server.received("/api/show")) == 2


def test_without_a_tags_listing_the_modification_time_is_the_version(
    harness: Any, store: ToolSupportCache
) -> None:
    json_type = {"Content-Type": "application/json"}
    harness.server.route("GET", "/api/tags", Reply(404, b"404 page not found", {}))
    harness.server.route(
        "POST", "/api/show", Reply(200, fixture_body("ollama_show_gemma_no_tools.json"), json_type)
    )
    config = harness.config("ollama", model="gemma:2b")
    assert ask(config, store, "gemma:2b") == [Capabilities(False, 8192, vision=False)]
    saved = json.loads(store.path.read_text())["detected"]
    assert next(iter(saved.values()))["version"] == "2024-10-01T07:55:40.911233012Z"


def test_a_refusal_corrects_the_detected_entry(harness: Any, store: ToolSupportCache) -> None:
    serve_ollama(harness.server)
    config = harness.config("ollama", model="qwen3:8b")
    ask(config, store, "qwen3:8b")
    store.remember_refusal(config, "registry.ollama.ai/library/qwen3:8b does not support tools")
    assert ask(config, store, "qwen3:8b") == [Capabilities(False, 40960, vision=False)]
    assert store.refused(config)
    assert len(harness.server.received("/api/show")) == 1


def test_a_model_never_pulled_says_how_to_pull_it(harness: Any, store: ToolSupportCache) -> None:
    harness.server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), {}))
    harness.server.error(404, "ollama_error_show_not_found.json")
    config = harness.config("ollama", model="llama3")
    with pytest.raises(ProviderStatusError, match="ollama pull llama3") as caught:
        ask(config, store, "llama3")
    assert caught.value.status == 404
    assert "model 'llama3' not found" in str(caught.value)


def test_a_damaged_cache_file_is_ignored(harness: Any, store: ToolSupportCache) -> None:
    serve_ollama(harness.server)
    store.path.write_text('{"detected": ["not", "a", "table"], "refused": 3}')
    config = harness.config("ollama", model="qwen3:8b")
    assert ask(config, store, "qwen3:8b") == [Capabilities(True, 40960, vision=False)]
    assert not store.refused(config)
