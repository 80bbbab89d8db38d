"""Builds the adapter for a resolved provider entry; adapters are imported on demand."""

from __future__ import annotations

from nehanda.config.settings import ProviderConfig
from nehanda.providers.base import Provider


def create_provider(config: ProviderConfig) -> Provider:
    if config.type == "ollama":
        from nehanda.providers.ollama import OllamaProvider

        return OllamaProvider(config, api_key=config.api_key())
    if config.type == "anthropic":
        from nehanda.providers.anthropic import AnthropicProvider

        return AnthropicProvider(config, api_key=config.api_key())
    from nehanda.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(config, api_key=config.api_key())
