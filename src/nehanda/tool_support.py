"""What nehanda has learned about a model's native tool support, kept across runs.

A small JSON file under the XDG cache dir. When a provider refuses native tools for a
model, the refusal is remembered so the next run starts in rescue mode instead of
failing first. Writes are atomic: a crash never leaves a half-written file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from nehanda.settings import ProviderConfig


def default_path() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("nehanda") / "tool_support.json"


class ToolSupportCache:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def refused(self, config: ProviderConfig) -> bool:
        return _key(config) in self._read().get("refused", {})

    def remember_refusal(self, config: ProviderConfig, reason: str) -> None:
        data = self._read()
        data.setdefault("refused", {})[_key(config)] = {"reason": reason[:300]}
        self._write(data)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".tool_support.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(data, file, indent=1, sort_keys=True)
                file.flush()
                os.fsync(file.fileno())
            Path(temporary).replace(self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _key(config: ProviderConfig) -> str:
    return f"{config.type} {config.base_url} {config.model}"
