"""Finds a provider when none was named, and a model when none was configured.

The order: ``--provider``, the configured default, an API key in the environment,
then a local server answering on its conventional port. When nothing answers, the
error says what was tried and how to point nehanda at a server.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

from nehanda.errors import ConfigError
from nehanda.model_config import profile_for
from nehanda.settings import (
    ProviderConfig,
    Settings,
    normalize_ollama_host,
    resolve_named_provider,
)


@dataclass(frozen=True)
class LocalServer:
    label: str
    provider_type: str
    base_url: str
    models_path: str
    host_env: str | None = None  # a variable naming the host, as OLLAMA_HOST does

    def at(self, environ: Mapping[str, str]) -> LocalServer:
        host = environ.get(self.host_env) if self.host_env else None
        return replace(self, base_url=normalize_ollama_host(host)) if host else self


LOCAL_SERVERS: tuple[LocalServer, ...] = (
    LocalServer("Ollama", "ollama", "http://127.0.0.1:11434", "/api/tags", "OLLAMA_HOST"),
    LocalServer("LM Studio", "lmstudio", "http://127.0.0.1:1234/v1", "/models"),
    LocalServer("vLLM", "vllm", "http://127.0.0.1:8000/v1", "/models"),
    LocalServer("llama.cpp", "openai", "http://127.0.0.1:8080/v1", "/models"),
)
KEY_ENV_ORDER: tuple[tuple[str, str], ...] = (
    ("NEHANDA_API_KEY", "nehanda"),
    ("ANTHROPIC_API_KEY", "anthropic"),
    ("OPENAI_API_KEY", "openai"),
)


class NoProviderFound(ConfigError):
    """Nothing named, configured or answering; the message is the full explanation."""


async def find_provider(
    settings: Settings,
    environ: Mapping[str, str] = os.environ,
    local_servers: Sequence[LocalServer] = LOCAL_SERVERS,
) -> ProviderConfig:
    if settings.default_provider:
        return resolve_named_provider(settings, settings.default_provider, environ)
    for key_env, provider_type in KEY_ENV_ORDER:
        if environ.get(key_env) and (provider_type != "nehanda" or environ.get("NEHANDA_BASE_URL")):
            return resolve_named_provider(settings, provider_type, environ)
    local_servers = [server.at(environ) for server in local_servers]
    answers = await asyncio.gather(*(_probe(server) for server in local_servers))
    for server, (models, _) in zip(local_servers, answers, strict=True):
        if models is not None:
            entry = resolve_named_provider(settings, server.provider_type, environ)
            model = entry.model or (models[0] if models else None)
            return entry.model_copy(
                update={"name": server.label, "base_url": server.base_url, "model": model}
            )
    raise NoProviderFound(_nothing_found(local_servers, [why for _, why in answers]))


async def ensure_model(config: ProviderConfig) -> ProviderConfig:
    """The entry with a model: the configured one, or the first the server lists."""
    if config.model:
        return config
    path = profile_for(config).models_path or "/models"
    server = LocalServer(config.name, config.type, config.base_url, path)
    models, why = await _probe(server, api_key=config.api_key(), timeout=config.connect_timeout)
    if not models:
        detail = f"it listed none ({why})" if why else "it listed no models"
        raise ConfigError(
            f"no model chosen for provider {config.name!r} and {detail}; pass --model NAME "
            "or set model in the provider's settings entry"
        )
    return config.model_copy(update={"model": models[0]})


async def _probe(
    server: LocalServer, api_key: str | None = None, timeout: float = 0.5
) -> tuple[list[str] | None, str]:
    """The models a server lists, or ``None`` and why it did not answer."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(2.0, connect=timeout)) as client:
            response = await client.get(server.base_url + server.models_path, headers=headers)
    except httpx.ConnectError:
        return None, "connection refused"
    except httpx.TimeoutException:
        return None, "no answer in time"
    except httpx.HTTPError as exc:
        return None, type(exc).__name__
    if response.status_code != 200:
        return None, f"HTTP {response.status_code}"
    try:
        return _model_names(response.json()), ""
    except ValueError:
        return None, "answer was not JSON"


def _model_names(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    items = body.get("data") or body.get("models") or []
    names = [item.get("id") or item.get("name") for item in items if isinstance(item, dict)]
    chat = [name for name in names if isinstance(name, str)]
    # Ollama and LM Studio list embedding models beside chat models: offer those last.
    return sorted(chat, key=lambda name: "embed" in name.lower())


def _nothing_found(servers: Sequence[LocalServer], reasons: Sequence[str]) -> str:
    tried = "\n".join(
        f"  - {server.label} at {server.base_url}: {why}"
        for server, why in zip(servers, reasons, strict=True)
    )
    keys = ", ".join(env for env, _ in KEY_ENV_ORDER)
    return (
        "no model provider found. Tried:\n"
        "  - --provider: not given; default_provider: not set in any settings file\n"
        f"  - API keys in the environment ({keys}): none set\n"
        f"{tried}\n"
        "Start a local server (ollama serve, LM Studio, vllm serve, llama-server), or name one:\n"
        "  nehanda run --provider vllm --base-url http://HOST:8000/v1 --model NAME '...'"
    )
