"""Where each server says its model's window, and which window nehanda plans for."""

from __future__ import annotations

import json
from typing import Any

import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.providers.window import (
    choose_window,
    window_from_error,
    window_from_llamacpp_props,
    window_from_lmstudio_v0,
    window_from_lmstudio_v1,
    window_from_openai_models,
)

LMSTUDIO_V1 = {
    "models": [
        {
            "key": "google/gemma-4-26b-a4b",
            "max_context_length": 262144,
            "loaded_instances": [
                {"id": "google/gemma-4-26b-a4b", "config": {"context_length": 4096}}
            ],
        },
        {"key": "deepseek-r1", "max_context_length": 131072, "loaded_instances": []},
    ]
}
LMSTUDIO_V0 = {
    "data": [
        {
            "id": "qwen3-8b",
            "state": "loaded",
            "max_context_length": 40960,
            "loaded_context_length": 16384,
        },
        {"id": "phi-4", "state": "not-loaded", "max_context_length": 16384},
    ]
}
LLAMACPP_MODELS = {"data": [{"id": "q.gguf", "meta": {"n_ctx_train": 262144, "n_ctx": 32768}}]}


@pytest.mark.parametrize(
    ("read", "body", "expected"),
    [
        (
            lambda b: window_from_openai_models(b, "q"),
            {"data": [{"id": "q", "max_model_len": 8192}]},
            8192,
        ),
        (
            lambda b: window_from_openai_models(b, "q"),
            {"data": [{"id": "other", "max_model_len": 8192}]},
            None,
        ),
        (lambda b: window_from_openai_models(b, "q.gguf"), LLAMACPP_MODELS, 32768),
        # n_ctx_train is what the model was trained on, not what the server serves.
        (
            lambda b: window_from_openai_models(b, "q.gguf"),
            {"data": [{"id": "q.gguf", "meta": {"n_ctx_train": 262144}}]},
            None,
        ),
        (
            window_from_llamacpp_props,
            {"default_generation_settings": {"n_ctx": 8192}, "n_ctx_train": 262144},
            8192,
        ),
        (window_from_llamacpp_props, {"total_slots": 1}, None),
        (lambda b: window_from_lmstudio_v1(b, "google/gemma-4-26b-a4b"), LMSTUDIO_V1, 4096),
        # Not loaded yet (JIT): max_context_length is the model's maximum, not its window.
        (lambda b: window_from_lmstudio_v1(b, "deepseek-r1"), LMSTUDIO_V1, None),
        (lambda b: window_from_lmstudio_v0(b, "qwen3-8b"), LMSTUDIO_V0, 16384),
        (lambda b: window_from_lmstudio_v0(b, "phi-4"), LMSTUDIO_V0, None),
        (lambda b: window_from_openai_models(b, "q"), ["not", "an", "object"], None),
        (
            lambda b: window_from_openai_models(b, "q"),
            {"data": [{"id": "q", "max_model_len": True}]},
            None,
        ),
    ],
)
def test_each_server_is_read_where_it_says_its_window(
    read: Any, body: Any, expected: int | None
) -> None:
    assert read(body) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("This model's maximum context length is 8192 tokens. However, you requested 9000", 8192),
        ("the request exceeds the available context size (4096 tokens), try increasing it", 4096),
        ("prompt is too long", None),
    ],
)
def test_the_window_a_context_length_error_names(message: str, expected: int | None) -> None:
    assert window_from_error(message) == expected


def config(provider_type: str, **fields: Any) -> ProviderConfig:
    return ProviderConfig(name="p", type=provider_type, base_url="http://127.0.0.1:1", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("entry", "reported", "learned", "expected"),
    [
        (config("vllm"), 32768, None, (32768, "reported by the server")),
        (config("vllm"), None, None, (8192, "assumed: p did not report one")),
        (config("vllm", context_window=16384), 32768, 4096, (16384, "context_window setting")),
        (config("vllm"), 32768, 4096, (4096, "learned from the server's context-length error")),
        (config("ollama", context_cap=32768), 40960, None, (32768, "reported by the server")),
        (config("ollama", context_cap=32768), None, None, (32768, "reported by the server")),
        # A settings file cannot make Ollama allocate more than the model's own length.
        (config("ollama", context_window=10**7), 40960, None, (40960, "context_window setting")),
        (
            config("ollama", context_window=65536, context_cap=32768),
            131072,
            None,
            (65536, "context_window setting"),
        ),
        (config("anthropic", model="claude-sonnet-4-5"), None, None, (200_000, "model family")),
        (config("openai", model="gpt-4o-mini"), None, None, (128_000, "model family")),
        (
            config("openai", model="someone-elses-model"),
            None,
            None,
            (128_000, "assumed: p did not report one"),
        ),
    ],
)
def test_which_window_is_planned_for(
    entry: ProviderConfig, reported: int | None, learned: int | None, expected: tuple[int, str]
) -> None:
    window = choose_window(entry, reported, learned)
    assert (window.tokens, window.source) == expected


def served_window(server: Any, provider_type: str, model: str) -> int | None:
    import asyncio

    from nehanda.providers.openai_compat import OpenAICompatProvider

    entry = config(provider_type, model=model).model_copy(update={"base_url": server.base_url})

    async def ask() -> int | None:
        provider = OpenAICompatProvider(entry)
        try:
            return (await provider.capabilities(model)).context_length
        finally:
            await provider.aclose()

    return asyncio.run(ask())


def test_llamacpp_is_asked_at_props_when_its_model_list_has_only_the_training_context(
    server: Any,
) -> None:
    from scripted_server import Reply, fixture_body

    json_type = {"Content-Type": "application/json"}
    models = fixture_body("openai_llamacpp_models.json")  # n_ctx_train 40960 only
    props = {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}
    server.route("GET", "/v1/models", Reply(200, models, json_type))
    server.route("GET", "/props", Reply(200, json.dumps(props).encode(), json_type))
    assert served_window(server, "vllm", "Qwen3-8B-Q4_K_M.gguf") == 8192


def test_lm_studio_is_asked_for_the_loaded_context_on_old_and_new_versions(server: Any) -> None:
    from scripted_server import Reply

    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/v0/models", Reply(200, json.dumps(LMSTUDIO_V0).encode(), json_type))
    assert served_window(server, "lmstudio", "qwen3-8b") == 16384  # /api/v1 answered 404
    server.route("GET", "/api/v1/models", Reply(200, json.dumps(LMSTUDIO_V1).encode(), json_type))
    assert served_window(server, "lmstudio", "google/gemma-4-26b-a4b") == 4096
    assert served_window(server, "lmstudio", "deepseek-r1") is None  # not loaded yet (JIT)
