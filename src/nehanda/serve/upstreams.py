"""The providers a serve process talks to: one adapter per provider entry (one pooled
HTTP client), one ``ToolCalling`` per provider and model.

This is a cache, not conversation state: each model's mode is chosen on first use by
the same rules as ``nehanda run`` (``choose_mode``: forced, the ``nehanda`` type,
Ollama's answer, a refusal remembered on disk), and a refusal met later switches that
model to rescue here and is written to the on-disk cache for every other process.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from nehanda.config.settings import ProviderConfig
from nehanda.providers.base import Provider
from nehanda.providers.calling import ToolCalling, choose_mode
from nehanda.providers.factory import create_provider
from nehanda.providers.tool_support import ToolSupportCache


class Upstreams:
    def __init__(
        self,
        support: ToolSupportCache,
        *,
        recover_leaks: bool = True,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self.support = support
        self.recover_leaks = recover_leaks
        self.environ = environ  # where the keys are read: the values a worker was handed
        self._adapters: dict[str, Provider] = {}
        self._callings: dict[tuple[str, str, str], ToolCalling] = {}
        self._lock = asyncio.Lock()

    async def calling(self, config: ProviderConfig) -> ToolCalling:
        """The ``ToolCalling`` for ``config``'s provider and model, its mode chosen once."""
        key = (config.name, config.base_url, config.model or "")
        found = self._callings.get(key)
        if found is not None:
            return found
        async with self._lock:
            if key in self._callings:
                return self._callings[key]
            adapter = self.adapter(config)
            capabilities = await adapter.capabilities(config.model or "")
            decision = choose_mode(config, capabilities, self.support)
            calling = ToolCalling(
                adapter,
                decision.mode,
                recover_leaks=self.recover_leaks,
                sees_images=self.support.sees_images(config),
                tell_each_request=True,
            )
            self._callings[key] = calling
            return calling

    def remember_refusal(self, config: ProviderConfig, reason: str) -> None:
        self.support.remember_refusal(config, reason)

    def remember_blind(self, config: ProviderConfig, reason: str) -> None:
        self.support.remember_blind(config, reason)

    def adapter(self, config: ProviderConfig) -> Provider:
        key = f"{config.name} {config.base_url}"
        if key not in self._adapters:
            self._adapters[key] = create_provider(config, self.environ)
        return self._adapters[key]

    async def aclose(self) -> None:
        for adapter in self._adapters.values():
            await adapter.aclose()
        self._adapters.clear()
        self._callings.clear()
