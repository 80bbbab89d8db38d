"""Per-provider quirks and defaults as data, and ``omit_tool_choice``.

A profile says where a provider type lives by default, which environment variables
carry its address and key, where it lists its models, which wire API it speaks (the
adapter ``providers.factory`` builds, the upstream shape ``nehanda serve`` sends), where
it reports a model's window, and how its requests must be shaped. Model families (matched
by name prefix, first match wins) carry what differs between models of one API, such as
Claude's output limit and context window.

Code reads these flags and never tests a provider's name: a type's name is only a key, of
these tables and of discovery's (the local servers it probes, the key variables it reads)
and the exam's server-parser hints. The specification's rule "rescue when the provider is
nehanda" is the ``forces_rescue`` flag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Wire = Literal["openai", "anthropic", "ollama"]
WindowProbe = Literal["models", "lmstudio"]

DEFAULT_CONTEXT_CAP = 32768
"""The most context nehanda asks Ollama to allocate unless settings say otherwise."""


@dataclass(frozen=True)
class ProviderProfile:
    type: str
    default_base_url: str | None
    base_url_env: str | None = None
    api_key_env: str | None = None
    default_model: str | None = None
    omit_tool_choice: bool = False
    forces_rescue: bool = False
    models_path: str | None = None
    context_cap: int | None = None
    api_version: str | None = None
    unknown_window: int = 8192
    """The window assumed when nothing says it: JIT-loaded local models often get 4k-8k."""
    tools_detected_by: str | None = None
    """What tells, per model, whether it takes native tools (named in the mode's reason)."""
    wire: Wire = "openai"
    """The API its requests and streams speak (``ollama``: the window is what it is asked
    to allocate, ``num_ctx``)."""
    window_probe: WindowProbe | None = "models"
    """Where an OpenAI-compatible server reports a model's window (``providers.window``):
    ``/models`` and llama.cpp's ``/props``, LM Studio's own API, or nowhere."""
    image_bytes: int = 20 * 1024 * 1024
    """The largest image it takes, in bytes before base64 (OpenAI's 20 MB by default)."""
    paid: bool = False
    """A metered service at its own address: ``doctor --exam`` asks before spending
    tokens there (``exam.estimate.paid_endpoint``)."""


@dataclass(frozen=True)
class ModelFamily:
    """``vision``: whether the family's models see images (``None``: nothing says)."""

    prefix: str
    max_tokens: int
    context_length: int | None = None
    vision: bool | None = None


PROFILES: dict[str, ProviderProfile] = {
    "openai": ProviderProfile(
        "openai",
        "https://api.openai.com/v1",
        base_url_env="OPENAI_BASE_URL",
        api_key_env="OPENAI_API_KEY",
        default_model="gpt-4o-mini",
        models_path="/models",
        paid=True,
        unknown_window=128_000,
        window_probe=None,  # the model families say it
    ),
    # LM Studio lists every downloaded model at /v1/models, embedding models included.
    "lmstudio": ProviderProfile(
        "lmstudio", "http://127.0.0.1:1234/v1", models_path="/models", window_probe="lmstudio"
    ),
    # vLLM streams reasoning as ``reasoning_content`` and, started without
    # --enable-auto-tool-choice, refuses tools with a 400 that triggers the rescue fallback;
    # the OpenAI-compatible adapter and the refusal phrases in providers/http_errors.py cover both.
    "vllm": ProviderProfile("vllm", "http://127.0.0.1:8000/v1", models_path="/models"),
    "ollama": ProviderProfile(
        "ollama",
        "http://127.0.0.1:11434",
        base_url_env="OLLAMA_HOST",
        models_path="/api/tags",
        context_cap=DEFAULT_CONTEXT_CAP,
        tools_detected_by="Ollama /api/show",
        wire="ollama",
        window_probe=None,  # /api/show, read by the adapter
    ),
    "anthropic": ProviderProfile(
        "anthropic",
        "https://api.anthropic.com",
        base_url_env="ANTHROPIC_BASE_URL",
        api_key_env="ANTHROPIC_API_KEY",
        default_model="claude-sonnet-4-5",
        models_path="/v1/models",
        paid=True,
        api_version="2023-06-01",
        unknown_window=200_000,
        image_bytes=5 * 1024 * 1024 * 3 // 4,  # 5 MB of base64 per image
        wire="anthropic",
        window_probe=None,  # the model families say it
    ),
    "nehanda": ProviderProfile(
        "nehanda",
        None,
        base_url_env="NEHANDA_BASE_URL",
        api_key_env="NEHANDA_API_KEY",
        omit_tool_choice=True,
        forces_rescue=True,
        models_path="/models",
        paid=True,
        unknown_window=32768,
        window_probe=None,
    ),
}

CLAUDE_FAMILIES: tuple[ModelFamily, ...] = (
    ModelFamily("claude-3-5-", 8192, 200_000),
    ModelFamily("claude-3-7-", 16384, 200_000),
    ModelFamily("claude-3-", 4096, 200_000),
    ModelFamily("claude-", 16384, 200_000),
)
"""Claude's ``max_tokens`` (required by the Messages API) and context window per family.

The output limit stays well under each model's maximum: the API counts the requested
``max_tokens`` against the output-tokens-per-minute rate limit up front.
"""

OPENAI_FAMILIES: tuple[ModelFamily, ...] = (
    ModelFamily("gpt-4.1", 32768, 1_047_576),
    ModelFamily("gpt-5", 32768, 400_000),
    ModelFamily("gpt-4o", 16384, 128_000),
    ModelFamily("o1", 32768, 200_000),
    ModelFamily("o3", 32768, 200_000),
    ModelFamily("o4-", 32768, 200_000),
    ModelFamily("gpt-4-turbo", 4096, 128_000),
    ModelFamily("gpt-4", 4096, 8192, vision=False),
    ModelFamily("gpt-3.5-turbo", 4096, 16385, vision=False),
)
"""OpenAI's models: the context window per family (its API does not report one), and
the two families that cannot see images."""

FAMILY_WINDOWS: dict[str, tuple[ModelFamily, ...]] = {
    "anthropic": CLAUDE_FAMILIES,
    "openai": OPENAI_FAMILIES,
}
"""The provider types whose windows come from the families, not from the server."""


@dataclass(frozen=True)
class TokenRatio:
    prefix: str
    chars_per_token: float


TOKEN_RATIOS: tuple[TokenRatio, ...] = (
    TokenRatio("claude", 3.3),
    TokenRatio("gpt-", 3.6),
    TokenRatio("", 3.2),
)
"""Characters per token of each family's tokenizer on code and prose, rounded down, so an
estimate errs on the large side (``bench/token_estimate.py`` measures the error). Names
are matched after the last "/" (``qwen/qwen3-8b``), first prefix wins."""

FALLBACK_FAMILY = ModelFamily("", 8192)


def profile_for(provider_type: str) -> ProviderProfile:
    return PROFILES[provider_type]


def family_for(model: str, families: tuple[ModelFamily, ...]) -> ModelFamily:
    """The first family whose prefix the model name starts with."""
    name = model.lower()
    return next((f for f in families if name.startswith(f.prefix)), FALLBACK_FAMILY)


def chars_per_token(model: str) -> float:
    name = model.lower().rsplit("/", 1)[-1]
    return next(r.chars_per_token for r in TOKEN_RATIOS if name.startswith(r.prefix))


def omit_tool_choice(provider_type: str) -> bool:
    """Whether requests to this provider must not carry ``tool_choice`` (Nehanda's proxy)."""
    return profile_for(provider_type).omit_tool_choice


def family_vision(provider_type: str, model: str) -> bool | None:
    """Whether the model's family sees images, for the types whose families are known."""
    families = FAMILY_WINDOWS.get(provider_type)
    return family_for(model, families).vision if families else None
