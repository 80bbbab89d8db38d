"""What an Ollama model can do, from ``POST /api/show``, asked once per model.

Native tools when the ``capabilities`` list contains "tools" (servers since 0.6.4
send it, and it wins when present); from older servers, when the chat template
mentions ``.Tools``. Images when the list contains "vision" (older servers: unknown).
The context length is ``<architecture>.context_length`` in
``model_info``. An answer is kept in memory for the process and on disk
(``ToolSupportCache``) under the model's version: its digest from ``GET /api/tags``,
else the modification time ``/api/show`` reports, so a re-pulled model is asked
about again and an unchanged one never is. A model ``/api/tags`` does not list is
asked about in every process: it may have been deleted, and ``/api/show`` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpx

from nehanda.config.settings import ProviderConfig
from nehanda.errors import ProviderConnectionError, ProviderStatusError, with_hint
from nehanda.events import Retrying
from nehanda.providers.base import Capabilities
from nehanda.providers.http import RetryPolicy, request_json
from nehanda.providers.http_errors import Target, redact_url
from nehanda.providers.tool_support import ToolSupportCache


def native_tools_from_show(show: Mapping[str, Any]) -> bool:
    capabilities = show.get("capabilities")
    if isinstance(capabilities, list):
        return "tools" in capabilities
    template = show.get("template")
    return isinstance(template, str) and ".Tools" in template


def vision_from_show(show: Mapping[str, Any]) -> bool | None:
    """Whether the model sees images: ``vision`` among its capabilities (``None`` from
    servers too old to list them)."""
    capabilities = show.get("capabilities")
    return "vision" in capabilities if isinstance(capabilities, list) else None


def context_length_from_show(show: Mapping[str, Any]) -> int | None:
    info = show.get("model_info")
    if not isinstance(info, dict):
        return None
    architecture = info.get("general.architecture")
    length = info.get(f"{architecture}.context_length")
    if not isinstance(length, int):
        length = next((v for k, v in info.items() if k.endswith(".context_length")), None)
    return length if isinstance(length, int) and not isinstance(length, bool) else None


def version_from_tags(tags: Any, model: str) -> str | None:
    """The digest (or modification time) ``/api/tags`` lists for ``model``."""
    wanted = {model, model + ":latest"} if ":" not in model else {model}
    entries = tags.get("models") if isinstance(tags, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and {entry.get("name"), entry.get("model")} & wanted:
            version = entry.get("digest") or entry.get("modified_at")
            return version if isinstance(version, str) else None
    return None


@contextmanager
def explained(model: str, base_url: str) -> Iterator[None]:
    """Adds what to do to the two failures every Ollama user meets first."""
    try:
        yield
    except ProviderStatusError as exc:
        if exc.status != 404:
            raise
        raise with_hint(exc, f". Download the model with: ollama pull {model}") from exc
    except ProviderConnectionError as exc:
        if type(exc) is not ProviderConnectionError:
            raise
        raise with_hint(
            exc,
            f"; nehanda looked for Ollama at {redact_url(base_url)}: start it with "
            "`ollama serve`, or point OLLAMA_HOST (or --base-url) at the server",
        ) from exc


class OllamaModelInfo:
    """``capabilities(model)`` for one Ollama server, cached in memory and on disk."""

    def __init__(
        self,
        config: ProviderConfig,
        client: httpx.AsyncClient,
        *,
        store: ToolSupportCache | None = None,
        headers: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        on_retry: Callable[[Retrying], None] | None = None,
    ) -> None:
        self._config = config
        self._client = client
        self._store = store or ToolSupportCache()
        self._headers = headers
        self._retry = retry
        self._on_retry = on_retry
        self._known: dict[str, Capabilities] = {}

    async def capabilities(self, model: str) -> Capabilities:
        if model in self._known:
            return self._known[model]
        with explained(model, self._config.base_url):
            version = await self._version(model)
            found = self._store.detected(self._config, model, version)
            if found is None:
                show = await self._ask("/api/show", model, {"model": model})
                found = Capabilities(
                    native_tools_from_show(show),
                    context_length_from_show(show),
                    vision_from_show(show),
                )
                modified = show.get("modified_at") if isinstance(show, dict) else None
                version = version or (modified if isinstance(modified, str) else None)
                self._store.remember_detected(self._config, model, version, found)
        self._known[model] = found
        return found

    async def _version(self, model: str) -> str | None:
        try:
            tags = await self._ask("/api/tags", model, None)
        except ProviderStatusError:
            return None  # a proxy that only passes /api/chat and /api/show through
        return version_from_tags(tags, model)

    async def _ask(self, path: str, model: str, payload: Mapping[str, Any] | None) -> Any:
        target = Target(self._config.base_url + path, self._config.name, model, "Ollama")
        return await request_json(
            self._client,
            target,
            payload,
            method="GET" if payload is None else "POST",
            headers=self._headers,
            retry=self._retry,
            timeout=self._client.timeout,
            on_retry=self._on_retry,
        )
