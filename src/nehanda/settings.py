"""Layered settings: defaults < user file < project file < environment < flags."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

ProviderType = Literal["openai", "lmstudio", "vllm", "ollama", "anthropic", "nehanda"]


class ProviderConfig(BaseModel):
    """One provider entry, fully resolved: every field has its final value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    type: ProviderType
    base_url: str
    model: str | None = None
    api_key_env: str | None = None
    force_manual_tools: bool = False
    connect_timeout: float = 10.0
    read_timeout: float = 300.0
    max_retries: int = 3

    def api_key(self, environ: Mapping[str, str] = os.environ) -> str | None:
        """The API key from the environment variable the entry names, if any."""
        if not self.api_key_env:
            return None
        return environ.get(self.api_key_env) or None
