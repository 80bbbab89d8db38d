"""Builds the adapter for a resolved provider entry; adapters are imported on demand."""

from __future__ import annotations

from nehanda.errors import ConfigError
from nehanda.providers.base import Provider
from nehanda.settings import ProviderConfig

OPENAI_COMPATIBLE = frozenset({"openai", "lmstudio", "vllm", "nehanda"})


def create_provider(config: ProviderConfig) -> Provider:
    from nehanda.providers.openai_compat import OpenAICompatProvider

    if config.type in OPENAI_COMPATIBLE:
        return OpenAICompatProvider(config, api_key=config.api_key())
    if config.type == "ollama":
        # Ollama's OpenAI-compatible endpoint carries native tool calls.
        v1 = config.model_copy(update={"base_url": config.base_url + "/v1"})
        return OpenAICompatProvider(v1, api_key=config.api_key())
    raise ConfigError(
        f"provider type {config.type!r} is not supported yet; "
        "use an OpenAI-compatible server (openai, lmstudio, vllm) or ollama"
    )
