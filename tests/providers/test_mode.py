"""The specification's four rescue activation rules, as a table."""

import pytest

from nehanda.config.profiles import omit_tool_choice
from nehanda.config.settings import ProviderConfig, ProviderType
from nehanda.providers.base import Capabilities
from nehanda.providers.calling import choose_mode
from nehanda.providers.mode import Mode, decide_mode
from nehanda.providers.tool_support import ToolSupportCache


@pytest.mark.parametrize(
    ("provider_type", "force", "native_tools", "refused", "expected"),
    [
        ("openai", False, None, False, "native"),
        ("vllm", False, None, False, "native"),
        ("lmstudio", False, True, False, "native"),
        ("anthropic", False, None, False, "native"),
        ("ollama", False, True, False, "native"),
        ("ollama", False, None, False, "native"),
        # rule 1: force_manual_tools on any provider
        ("openai", True, None, False, "rescue"),
        ("anthropic", True, True, False, "rescue"),
        # rule 2: the Nehanda Cloud endpoint
        ("nehanda", False, None, False, "rescue"),
        ("nehanda", False, True, False, "rescue"),
        # rule 3: Ollama model without native tool support
        ("ollama", False, False, False, "rescue"),
        # rule 4: the provider answered "does not support tools"
        ("ollama", False, True, True, "rescue"),
        ("vllm", False, None, True, "rescue"),
    ],
)
def test_decide_mode(
    provider_type: str, force: bool, native_tools: bool | None, refused: bool, expected: str
) -> None:
    decision = decide_mode(
        provider_type, force_manual_tools=force, native_tools=native_tools, tools_refused=refused
    )
    assert decision.mode == expected
    assert decision.reason


@pytest.mark.parametrize(
    ("provider_type", "native_tools", "refused", "said"),
    [
        ("ollama", False, False, "rescue: Ollama /api/show lists no tools capability"),
        ("ollama", True, False, "native: Ollama /api/show lists the tools capability"),
        ("vllm", None, False, "native: the vllm profile says so; a refusal would switch to rescue"),
        ("vllm", None, True, "rescue: the provider answered that the model does not support tools"),
        ("nehanda", None, False, "rescue: the nehanda endpoint does not accept native tools"),
    ],
)
def test_the_reason_says_what_decided(
    provider_type: str, native_tools: bool | None, refused: bool, said: str
) -> None:
    """The reason a person reads at the start: what told nehanda, not only the outcome."""
    decision = decide_mode(provider_type, native_tools=native_tools, tools_refused=refused)
    assert f"{decision.mode}: {decision.reason}" == said


@pytest.mark.parametrize(
    ("provider_type", "omitted"),
    [
        ("nehanda", True),
        ("openai", False),
        ("vllm", False),
        ("ollama", False),
        ("anthropic", False),
    ],
)
def test_omit_tool_choice(provider_type: str, omitted: bool) -> None:
    assert omit_tool_choice(provider_type) is omitted


@pytest.mark.parametrize(
    ("provider_type", "forced", "override", "expected"),
    [
        ("vllm", True, "native", "native"),  # --mode beats force_manual_tools in settings
        ("vllm", False, "rescue", "rescue"),
        ("vllm", True, None, "rescue"),
        ("nehanda", False, "native", "rescue"),  # that endpoint takes no native tools at all
    ],
)
def test_a_chosen_mode_wins_over_the_settings(
    provider_type: ProviderType, forced: bool, override: Mode | None, expected: str
) -> None:
    config = ProviderConfig(
        name="box", type=provider_type, base_url="http://127.0.0.1:8000/v1",
        force_manual_tools=forced,
    )  # fmt: skip
    decision = choose_mode(config, Capabilities(), ToolSupportCache(), override)
    assert decision.mode == expected
