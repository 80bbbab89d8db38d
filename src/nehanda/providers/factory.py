"""Builds the adapter for a resolved provider entry; adapters are imported on demand."""

from __future__ import annotations

from nehanda.config.profiles import profile_for
from nehanda.config.settings import ProviderConfig
from nehanda.errors import ConfigError
from nehanda.providers.base import Provider


def create_provider(config: ProviderConfig) -> Provider:
    """The adapter for ``config``; ``ConfigError`` when an official endpoint would be
    sent a request without its key (a server at the user's own address may need none)."""
    official = profile_for(config.type).default_base_url
    if config.api_key_env and config.base_url == official and not config.api_key():
        raise ConfigError(
            f"{config.api_key_env} is not set: export {config.api_key_env}=<your key> "
            f"to use {official}, or pass --base-url for a server of your own"
        )
    if config.type == "ollama":
        from nehanda.providers.ollama import OllamaProvider

        return OllamaProvider(config, api_key=config.api_key())
    if config.type == "anthropic":
        from nehanda.providers.anthropic import AnthropicProvider

        return AnthropicProvider(config, api_key=config.api_key())
    from nehanda.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(config, api_key=config.api_key())
