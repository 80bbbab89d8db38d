"""Per-provider quirks and defaults as data, and ``omit_tool_choice``.

Adapters and the engine read these flags; nothing else tests a provider's name. A
profile says where a provider type lives by default, which environment variables
carry its address and key, and how its requests must be shaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nehanda.settings import ProviderConfig


@dataclass(frozen=True)
class ProviderProfile:
    type: str
    default_base_url: str | None
    base_url_env: str | None = None
    api_key_env: str | None = None
    default_model: str | None = None
    omit_tool_choice: bool = False
    forces_rescue: bool = False
    local_probe_path: str | None = None


PROFILES: dict[str, ProviderProfile] = {
    "openai": ProviderProfile(
        "openai",
        "https://api.openai.com/v1",
        base_url_env="OPENAI_BASE_URL",
        api_key_env="OPENAI_API_KEY",
        default_model="gpt-4o-mini",
    ),
    "lmstudio": ProviderProfile("lmstudio", "http://127.0.0.1:1234/v1", local_probe_path="/models"),
    "vllm": ProviderProfile("vllm", "http://127.0.0.1:8000/v1", local_probe_path="/models"),
    "ollama": ProviderProfile(
        "ollama", "http://127.0.0.1:11434", base_url_env="OLLAMA_HOST", local_probe_path="/api/tags"
    ),
    "anthropic": ProviderProfile(
        "anthropic",
        "https://api.anthropic.com",
        base_url_env="ANTHROPIC_BASE_URL",
        api_key_env="ANTHROPIC_API_KEY",
        default_model="claude-sonnet-4-5",
    ),
    "nehanda": ProviderProfile(
        "nehanda",
        None,
        base_url_env="NEHANDA_BASE_URL",
        api_key_env="NEHANDA_API_KEY",
        omit_tool_choice=True,
        forces_rescue=True,
    ),
}


def profile_for(provider: ProviderConfig | str) -> ProviderProfile:
    provider_type = provider if isinstance(provider, str) else provider.type
    return PROFILES[provider_type]


def omit_tool_choice(provider: ProviderConfig | str) -> bool:
    """Whether requests to this provider must not carry ``tool_choice`` (Nehanda's proxy)."""
    return profile_for(provider).omit_tool_choice
