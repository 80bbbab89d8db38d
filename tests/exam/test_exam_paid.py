"""Which endpoints ``doctor --exam`` asks about before spending tokens: a table."""

from __future__ import annotations

import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.exam.estimate import paid_endpoint

KEY = {"THE_KEY": "sk-1234"}


@pytest.mark.parametrize(
    ("kind", "base_url", "key_env", "paid"),
    [
        ("vllm", "http://127.0.0.1:8000/v1", None, False),  # this machine, no key
        ("ollama", "http://localhost:11434", None, False),
        ("vllm", "http://gpu-box:8000/v1", None, False),  # a local network's own server
        ("vllm", "http://127.0.0.1:8000/v1", "THE_KEY", True),  # a key: it may be billed
        ("vllm", "http://127.0.0.1:8000/v1", "UNSET_KEY", False),
        ("openai", "https://api.openai.com/v1", None, True),
        ("anthropic", "https://api.anthropic.com", None, True),
        ("nehanda", "https://cloud.example/v1", None, True),
        ("openai", "http://127.0.0.1:9000/v1", None, False),  # an OpenAI-type local server
        ("openai", "http://[::1]:9000/v1", "THE_KEY", True),
    ],
)
def test_a_paid_endpoint_takes_a_key_or_is_a_paid_service_elsewhere(
    kind: str, base_url: str, key_env: str | None, paid: bool
) -> None:
    config = ProviderConfig.model_validate(
        {"name": "p", "type": kind, "base_url": base_url, "api_key_env": key_env}
    )
    assert paid_endpoint(config, KEY) is paid
