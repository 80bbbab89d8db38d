"""What nehanda has learned about a model's native tool support, kept across runs.

A small JSON file under the XDG cache dir with three kinds of record, both keyed by
provider type, base URL and model:

- ``refused``: the provider answered that the model does not support tools, so the
  next run starts in rescue mode instead of failing first;
- ``detected``: what a provider found out by asking its server about the model
  (Ollama's ``/api/show``), with the model's version (digest or modification time)
  so that a re-pulled model is asked about again, and one whose version is unknown
  (no longer listed: perhaps deleted) always is. A refusal corrects this record;
- ``windows``: the context window a server's context-length error named, which wins
  over a larger window the server reports (``providers.window.choose_window``);
- ``blind``: the server answered that the model cannot see images, so later runs send
  it notes in their place from the start.

Writes are atomic: a crash never leaves a half-written file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nehanda.config.settings import ProviderConfig
from nehanda.fs import cache_dir, write_atomic
from nehanda.providers.base import Capabilities

# Owner-only, as the file has always been written.
_FILE_MODE = 0o600


def default_path() -> Path:
    return cache_dir() / "tool_support.json"


class ToolSupportCache:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def refused(self, config: ProviderConfig) -> bool:
        return _key(config) in _section(self._read(), "refused")

    def remember_refusal(self, config: ProviderConfig, reason: str) -> None:
        data = self._read()
        key = _key(config)
        _section(data, "refused")[key] = {"reason": reason[:300]}
        detected = _section(data, "detected").get(key)
        if isinstance(detected, dict):
            detected["native_tools"] = False
        self._write(data)

    def detected(
        self, config: ProviderConfig, model: str, version: str | None
    ) -> Capabilities | None:
        """The recorded answer for ``model``, unless the model changed since (``version``).

        An unknown version answers nothing: a model the server no longer lists may
        have been deleted, and only asking the server again can tell.
        """
        entry = _section(self._read(), "detected").get(_key(config, model))
        if version is None or not isinstance(entry, dict) or entry.get("version") != version:
            return None
        native, length = entry.get("native_tools"), entry.get("context_length")
        vision = entry.get("vision")
        return Capabilities(
            native_tools=native if isinstance(native, bool) else None,
            context_length=length if isinstance(length, int) else None,
            vision=vision if isinstance(vision, bool) else None,
        )

    def remember_detected(
        self, config: ProviderConfig, model: str, version: str | None, found: Capabilities
    ) -> None:
        data = self._read()
        _section(data, "detected")[_key(config, model)] = {
            "version": version,
            "native_tools": found.native_tools,
            "context_length": found.context_length,
            "vision": found.vision,
        }
        self._write(data)

    def sees_images(self, config: ProviderConfig) -> bool | None:
        """Whether the model sees images, as the settings say, else ``False`` when the
        server once answered that it cannot; ``None``: nothing says (ask the provider)."""
        if config.vision is not None:
            return config.vision
        return False if _key(config) in _section(self._read(), "blind") else None

    def remember_blind(self, config: ProviderConfig, reason: str) -> None:
        data = self._read()
        _section(data, "blind")[_key(config)] = {"reason": reason[:300]}
        self._write(data)

    def learned_window(self, config: ProviderConfig) -> int | None:
        """The window the server's own context-length error named for this model."""
        entry = _section(self._read(), "windows").get(_key(config))
        tokens = entry.get("tokens") if isinstance(entry, dict) else None
        return tokens if isinstance(tokens, int) and tokens > 0 else None

    def remember_window(self, config: ProviderConfig, tokens: int) -> None:
        data = self._read()
        _section(data, "windows")[_key(config)] = {"tokens": tokens}
        self._write(data)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, indent=1, sort_keys=True)
        write_atomic(self.path, text.encode("utf-8"), _FILE_MODE)


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    """One kind of record, replaced by an empty one if the file held something else."""
    if not isinstance(data.get(name), dict):
        data[name] = {}
    section: dict[str, Any] = data[name]
    return section


def _key(config: ProviderConfig, model: str | None = None) -> str:
    return f"{config.type} {config.base_url} {model or config.model}"
