"""Provider-test fixtures: the scripted server and a harness that drives providers at it."""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass
from typing import Any

import pytest

from nehanda.config.settings import ProviderConfig, ProviderEntry, Settings, resolve_named_provider
from nehanda.events import StreamEvent
from nehanda.providers.base import ChatRequest, Provider
from nehanda.providers.http import RetryPolicy
from nehanda.providers.openai_compat import OpenAICompatProvider
from scripted_server import ScriptedServer, fixture_body

FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05)


@dataclass
class Outcome:
    events: list[StreamEvent]
    error: BaseException | None


class Harness:
    """Builds providers aimed at the scripted server and drives their streams."""

    body = staticmethod(fixture_body)

    def __init__(self, server: ScriptedServer) -> None:
        self.server = server

    def provider(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        retry: RetryPolicy = FAST_RETRY,
        **config: Any,
    ) -> OpenAICompatProvider:
        settings = ProviderConfig(
            name=config.pop("name", "local-vllm"),
            type=config.pop("type", "vllm"),
            base_url=base_url or self.server.base_url,
            model=config.pop("model", "qwen"),
            **config,
        )
        return OpenAICompatProvider(settings, api_key=api_key, retry=retry)

    def config(self, provider_type: str, **entry: Any) -> ProviderConfig:
        """A provider entry of ``provider_type`` aimed at the server, with the type's defaults."""
        entry.setdefault("base_url", self.server.root_url)
        entry_ = ProviderEntry.model_validate({"type": provider_type, **entry})
        settings = Settings(providers={"test": entry_})
        return resolve_named_provider(settings, "test", environ={})

    def run(self, request: ChatRequest, provider: Provider | None = None) -> Outcome:
        provider = provider or self.provider()

        async def go() -> Outcome:
            events: list[StreamEvent] = []
            try:
                async for event in provider.stream(request):
                    events.append(event)
            except Exception as exc:
                return Outcome(events, exc)
            finally:
                await provider.aclose()
            return Outcome(events, None)

        return asyncio.run(go())


@pytest.fixture
def harness(server: ScriptedServer) -> Harness:
    return Harness(server)


@pytest.fixture
def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
