"""How many tokens a model's context holds: asked of the server, or known from its family.

Each server says it in its own place, read by one pure function each:

- vLLM: ``GET /v1/models``, ``data[].max_model_len``;
- LM Studio: ``GET /api/v1/models``, the loaded instance's ``config.context_length``, or on
  older versions ``GET /api/v0/models``, ``loaded_context_length``. Never
  ``max_context_length``, the model's maximum; a model not loaded yet (JIT) has no window;
- llama.cpp: ``GET /props``, ``default_generation_settings.n_ctx`` (per slot), or the model
  list's ``meta.n_ctx``. Never ``n_ctx_train``, the training context;
- Ollama: ``/api/show`` (``providers.ollama_show``), capped by ``context_cap``;
- Claude and OpenAI: their model families in ``config.profiles``.

``choose_window`` puts these in order: the ``context_window`` setting, then a window learned
from the server's own context-length error (``window_from_error``; kept in
``ToolSupportCache``), then what the server or family says, then the profile's assumption.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nehanda.config.profiles import FAMILY_WINDOWS, family_for, profile_for

if TYPE_CHECKING:
    # The engine reads context-length errors with this module; it needs neither.
    import httpx

    from nehanda.config.settings import ProviderConfig

_LIMIT = re.compile(
    r"(?:maximum context length is|context size \(|context length of|n_ctx[:=]?|"
    r"context window of|context_length[\"']?:)\s*(\d{3,8})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Window:
    """A context window and where it came from, as ``doctor`` says it."""

    tokens: int
    source: str

    @property
    def assumed(self) -> bool:
        return self.source.startswith("assumed")


def _positive(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return value if ok else None


def _entries(body: Any, key: str) -> list[dict[str, Any]]:
    items = body.get(key) if isinstance(body, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def window_from_openai_models(body: Any, model: str) -> int | None:
    """vLLM's ``max_model_len``, or llama.cpp's ``meta.n_ctx`` (not ``n_ctx_train``)."""
    for entry in _entries(body, "data"):
        if entry.get("id") == model or entry.get("root") == model:
            meta = entry.get("meta")
            n_ctx = meta.get("n_ctx") if isinstance(meta, dict) else None
            return _positive(entry.get("max_model_len")) or _positive(n_ctx)
    return None


def window_from_llamacpp_props(body: Any) -> int | None:
    settings = body.get("default_generation_settings") if isinstance(body, dict) else None
    return _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None


def window_from_lmstudio_v1(body: Any, model: str) -> int | None:
    for entry in _entries(body, "models"):
        instances = _entries(entry, "loaded_instances")
        if entry.get("key") == model or any(i.get("id") == model for i in instances):
            for instance in instances:
                config = instance.get("config")
                if isinstance(config, dict) and _positive(config.get("context_length")):
                    return _positive(config.get("context_length"))
    return None


def window_from_lmstudio_v0(body: Any, model: str) -> int | None:
    for entry in _entries(body, "data"):
        if entry.get("id") == model and entry.get("state") == "loaded":
            return _positive(entry.get("loaded_context_length"))
    return None


def window_from_error(message: str) -> int | None:
    """The window a context-length error names ("maximum context length is 8192 tokens")."""
    found = _LIMIT.search(message)
    return int(found.group(1)) if found else None


Probe = tuple[str, Callable[[Any], int | None]]


def _probes(config: ProviderConfig, model: str) -> list[Probe]:
    base = config.base_url.rstrip("/")
    root = base.removesuffix("/v1")
    if profile_for(config.type).window_probe == "lmstudio":
        return [
            (root + "/api/v1/models", lambda body: window_from_lmstudio_v1(body, model)),
            (root + "/api/v0/models", lambda body: window_from_lmstudio_v0(body, model)),
        ]
    return [
        (base + "/models", lambda body: window_from_openai_models(body, model)),
        (root + "/props", window_from_llamacpp_props),
    ]


async def ask_window(
    client: httpx.AsyncClient, config: ProviderConfig, model: str, headers: dict[str, str]
) -> int | None:
    """The window an OpenAI-compatible server reports for ``model``; ``None`` when it does
    not say (an unreachable or silent server is not an error here: chat will say so)."""
    import httpx

    if profile_for(config.type).window_probe is None:
        return None
    for url, read in _probes(config, model):
        try:
            response = await client.get(url, headers=headers, timeout=config.connect_timeout)
            found = read(response.json()) if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            found = None
        if found:
            return found
    return None


def choose_window(config: ProviderConfig, reported: int | None, learned: int | None) -> Window:
    """The window to plan for (module docstring for the order); ``reported`` is what the
    provider's ``capabilities`` found."""
    if profile_for(config.type).wire == "ollama":
        # Ollama allocates what it is asked for (num_ctx): never more than the model's own
        # length, whatever a settings file (perhaps a cloned project's) says.
        if config.context_window:
            tokens = min(n for n in (config.context_window, reported) if n)
            return Window(tokens, "context_window setting")
        reported = min(n for n in (reported, config.context_cap, 1 << 30) if n)
    elif config.context_window:
        return Window(config.context_window, "context_window setting")
    if learned and (not reported or learned < reported):
        return Window(learned, "learned from the server's context-length error")
    if config.type in FAMILY_WINDOWS:
        family = family_for(config.model or "", FAMILY_WINDOWS[config.type])
        if family.context_length:
            return Window(family.context_length, "model family")
    if reported:
        return Window(reported, "reported by the server")
    unknown = profile_for(config.type).unknown_window
    return Window(unknown, f"assumed: {config.name} did not report one")
