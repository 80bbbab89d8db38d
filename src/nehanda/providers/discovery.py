"""Finds a provider when none was named, and a model when none was configured.

The order: ``--provider``, the configured default, the server at ``--base-url``, an
API key in the environment, then a local server answering on its conventional port.
When nothing answers, the error says what was tried and how to point nehanda at a
server.

A ``--base-url`` server is Ollama when it answers Ollama's ``/api/tags`` (or its URL
is a bare address on Ollama's port, 11434), and otherwise an OpenAI-compatible server
of type ``vllm``, named by what it says it is (``server_label``: its model list's
``owned_by``, its ``Server`` header), else "OpenAI-compatible": no API key, the model
from ``--model`` or the server's list, native tools with the refusal fallback. ``openai``
would send ``OPENAI_API_KEY`` to whatever server the URL names and default the model to
one of OpenAI's.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import httpx

from nehanda.config.profiles import profile_for
from nehanda.config.settings import (
    ProviderConfig,
    Settings,
    normalize_ollama_host,
    resolve_named_provider,
    user_settings_path,
)
from nehanda.errors import ConfigError, UnknownProviderError
from nehanda.providers.http import new_client
from nehanda.providers.http_errors import host_not_found, is_html, redact_url

HTML_PAGE = "an HTML page, not an OpenAI-compatible API: is base_url right? it usually ends in /v1"


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
    # Typed vllm, like any OpenAI-compatible server without a key: "openai" would
    # name one of OpenAI's models and send OPENAI_API_KEY.
    LocalServer("llama.cpp", "vllm", "http://127.0.0.1:8080/v1", "/models"),
)
KEY_ENV_ORDER: tuple[tuple[str, str], ...] = (
    ("NEHANDA_API_KEY", "nehanda"),
    ("ANTHROPIC_API_KEY", "anthropic"),
    ("OPENAI_API_KEY", "openai"),
)
OLLAMA_PORT = 11434
# A --base-url server may be another machine: give it longer than a local port.
GIVEN_URL_TIMEOUT = 5.0


class NoProviderFound(ConfigError):
    """Nothing named, configured or answering; the message is the full explanation."""


async def find_provider(
    settings: Settings,
    environ: Mapping[str, str] = os.environ,
    local_servers: Sequence[LocalServer] = LOCAL_SERVERS,
) -> ProviderConfig:
    if settings.default_provider:
        try:
            return resolve_named_provider(settings, settings.default_provider, environ)
        except UnknownProviderError as exc:
            if settings.default_provider_source is None:
                raise
            raise UnknownProviderError(f"{settings.default_provider_source}: {exc}") from None
    if settings.base_url:
        return await _server_at(settings.base_url, settings, environ)
    for key_env, provider_type in KEY_ENV_ORDER:
        if environ.get(key_env) and _address_known(provider_type, environ):
            return resolve_named_provider(settings, provider_type, environ)
    local_servers = [server.at(environ) for server in local_servers]
    answers = await asyncio.gather(*(_probe(server) for server in local_servers))
    for server, (models, _, said) in zip(local_servers, answers, strict=True):
        if models is not None:
            entry = resolve_named_provider(settings, server.provider_type, environ)
            model = entry.model or (models[0] if models else None)
            # A port is only a guess at what listens on it: the server's own word wins.
            name = said or (server.label if server.provider_type != "vllm" else GENERIC)
            return entry.model_copy(
                update={"name": name, "base_url": server.base_url, "model": model}
            )
    raise NoProviderFound(_nothing_found(local_servers, [why for _, why, _ in answers]))


def _address_known(provider_type: str, environ: Mapping[str, str]) -> bool:
    """A key alone picks a provider only where its address is known too (Nehanda Cloud's
    comes from ``NEHANDA_BASE_URL``)."""
    profile = profile_for(provider_type)
    return bool(profile.default_base_url or environ.get(profile.base_url_env or ""))


async def _server_at(
    base_url: str, settings: Settings, environ: Mapping[str, str]
) -> ProviderConfig:
    """The ``--base-url`` server as Ollama or an OpenAI-compatible server (module doc)."""
    url = base_url.rstrip("/")
    tags, models = await asyncio.gather(
        _get(url + "/api/tags", timeout=GIVEN_URL_TIMEOUT),
        _get(url + "/models", timeout=GIVEN_URL_TIMEOUT),
    )
    if tags.status is None and models.status is None:
        raise NoProviderFound(
            f"no model provider answered at --base-url {redact_url(url)}: {models.why}. "
            "Start the server or check the address; an OpenAI-compatible server's "
            "usually ends in /v1 (http://HOST:8000/v1), Ollama's is http://HOST:11434"
        )
    ollama = _is_ollama_tags(tags) or _is_ollama_address(url)
    if not ollama and models.why == HTML_PAGE:
        raise NoProviderFound(f"--base-url {redact_url(url)} answered with {HTML_PAGE}")
    listed = tags if ollama else models
    entry = resolve_named_provider(settings, "ollama" if ollama else "vllm", environ)
    names = _model_names(listed.body) if listed.status == 200 else []
    return entry.model_copy(
        update={
            "name": "Ollama" if ollama else server_label(models.body, models.server) or GENERIC,
            "model": entry.model or (names[0] if names else None),
        }
    )


def _is_ollama_tags(answer: _Answer) -> bool:
    body = answer.body
    # llama.cpp's server also answers /api/tags, with OpenAI's "data" beside "models".
    return (
        answer.status == 200
        and isinstance(body, dict)
        and isinstance(body.get("models"), list)
        and "data" not in body
    )


def _is_ollama_address(url: str) -> bool:
    """A bare address on Ollama's port; with a path (``/v1``) it is Ollama's OpenAI API."""
    try:
        parts = urlsplit(url)
        return parts.port == OLLAMA_PORT and parts.path in ("", "/")
    except ValueError:  # a port that is not a number
        return False


async def ensure_model(config: ProviderConfig) -> ProviderConfig:
    """The entry with a model: the configured one, or the first the server lists."""
    if config.model:
        return config
    path = profile_for(config.type).models_path or "/models"
    server = LocalServer(config.name, config.type, config.base_url, path)
    models, why, _ = await _probe(server, api_key=config.api_key(), timeout=config.connect_timeout)
    if not models:
        detail = f"it listed none ({why})" if why else "it listed no models"
        raise ConfigError(
            f"no model chosen for provider {config.name!r} at {redact_url(config.base_url)} "
            f"and {detail}; pass --model NAME "
            "or set model in the provider's settings entry"
        )
    return config.model_copy(update={"model": models[0]})


async def list_models(config: ProviderConfig, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The models the provider's server lists; empty when it lists none or cannot say."""
    names, _ = await server_models(config, environ)
    return names or []


async def server_models(
    config: ProviderConfig, environ: Mapping[str, str] = os.environ
) -> tuple[list[str] | None, str]:
    """The models the provider's server lists, or ``None`` and why it could not say (not
    answering is not listing none)."""
    profile = profile_for(config.type)
    url = config.base_url + (profile.models_path or "/models")
    key = config.api_key(environ)
    answer = await _get(url, key, config.connect_timeout, profile.api_version)
    return (None, answer.why) if answer.why else (_model_names(answer.body), "")


def unlisted_model(name: str, listed: list[str] | None, server: str) -> str | None:
    """What is wrong with asking ``server`` for ``name``, when its list says; pure."""
    if not listed or name in listed:
        return None
    shown = ", ".join(listed[:12]) + (f" and {len(listed) - 12} more" if len(listed) > 12 else "")
    return f"{server} does not list the model {name!r}; it has: {shown}"


@dataclass(frozen=True)
class _Answer:
    status: int | None  # None: no HTTP answer at all
    body: Any = None  # the decoded JSON, None when it was not JSON
    why: str = ""
    server: str = ""  # the Server header


GENERIC = "OpenAI-compatible"
# What an OpenAI-compatible server's model list says in owned_by, or its Server header
# starts with, and the server's name; lower case.
_OWNERS = {"vllm": "vLLM", "llamacpp": "llama.cpp", "sglang": "SGLang", "tabbyapi": "TabbyAPI"}
_SERVER_HEADERS = {"llama.cpp": "llama.cpp", "ollama": "Ollama", "tgi": "TGI"}


def server_label(models: Any, server_header: str = "") -> str | None:
    """The name a server gives itself, in its model list's ``owned_by`` or its ``Server``
    header; ``None`` when it says nothing nehanda knows (uvicorn names no server). Pure."""
    items = models.get("data") if isinstance(models, dict) else None
    for item in items if isinstance(items, list) else []:
        owner = item.get("owned_by") if isinstance(item, dict) else None
        if isinstance(owner, str) and owner.lower() in _OWNERS:
            return _OWNERS[owner.lower()]
    said = [part.strip().lower() for part in server_header.split(",")]  # headers repeated
    known = (name for key, name in _SERVER_HEADERS.items() for part in said if part.startswith(key))
    return next(known, None)


async def _get(
    url: str, api_key: str | None = None, timeout: float = 0.5, api_version: str | None = None
) -> _Answer:
    """``api_version`` set: Anthropic's way, the key in ``x-api-key`` beside the version."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    if api_version:
        headers = {"anthropic-version": api_version, **({"x-api-key": api_key} if api_key else {})}
    try:
        async with new_client(url, httpx.Timeout(2.0, connect=timeout)) as client:
            response = await client.get(url, headers=headers)
    except httpx.ConnectError as exc:
        return _Answer(None, why="host not found" if host_not_found(exc) else "connection refused")
    except httpx.TimeoutException:
        return _Answer(None, why="no answer in time")
    except httpx.UnsupportedProtocol:
        return _Answer(None, why="the URL must start with http:// or https://")
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return _Answer(None, why=type(exc).__name__)
    if is_html(response.headers.get("content-type", ""), response.text[:64]):
        return _Answer(response.status_code, why=HTML_PAGE)
    server = response.headers.get("server", "")
    if response.status_code != 200:
        return _Answer(response.status_code, why=f"HTTP {response.status_code}", server=server)
    try:
        return _Answer(200, response.json(), server=server)
    except ValueError:
        return _Answer(200, why="answer was not JSON", server=server)


async def _probe(
    server: LocalServer, api_key: str | None = None, timeout: float = 0.5
) -> tuple[list[str] | None, str, str | None]:
    """The models a server lists, or ``None`` and why it did not answer; and the name it
    gives itself."""
    answer = await _get(server.base_url + server.models_path, api_key, timeout)
    if answer.why:
        return None, answer.why, None
    return _model_names(answer.body), "", server_label(answer.body, answer.server)


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
        "  nehanda run --provider vllm --base-url http://HOST:8000/v1 --model NAME '...'\n"
        f"or add it under [providers.NAME] in {user_settings_path()}"
    )
