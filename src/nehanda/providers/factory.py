"""Builds the adapter for a resolved provider entry: the one its profile's wire API names,
imported on demand."""

from __future__ import annotations

import os
from collections.abc import Mapping

from nehanda.config.profiles import profile_for
from nehanda.config.settings import ProviderConfig
from nehanda.errors import ConfigError
from nehanda.providers.base import Provider


def create_provider(config: ProviderConfig, environ: Mapping[str, str] = os.environ) -> Provider:
    """The adapter for ``config``, its key read from ``environ``; ``ConfigError`` when an
    official endpoint would be sent a request without its key (a server at the user's
    own address may need none)."""
    profile = profile_for(config.type)
    official = profile.default_base_url
    key = config.api_key(environ)
    if config.api_key_env and config.base_url == official and not key:
        raise ConfigError(
            f"{config.api_key_env} is not set: export {config.api_key_env}=<your key> "
            f"to use {official}, or pass --base-url for a server of your own"
        )
    if profile.wire == "ollama":
        from nehanda.providers.ollama import OllamaProvider

        return OllamaProvider(config, api_key=key)
    if profile.wire == "anthropic":
        from nehanda.providers.anthropic import AnthropicProvider

        return AnthropicProvider(config, api_key=key)
    from nehanda.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(config, api_key=key)
