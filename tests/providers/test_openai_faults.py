"""Faults against a real server: retries, typed HTTP errors, timeouts, broken streams.

The rule under test throughout: nothing from a broken stream may run, so no
``ToolUseEnd`` is emitted unless the stream is known to be complete.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from nehanda.errors import (
    AuthenticationError,
    ContextTooLongError,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    ProviderTimeout,
    RateLimitError,
    StreamProtocolError,
    ToolsUnsupportedError,
)
from nehanda.events import Retrying, TextDelta, ToolUseEnd, ToolUseStart
from nehanda.providers.base import ChatRequest
from nehanda.providers.http import RetryPolicy
from nehanda.providers.http_errors import is_loopback
from nehanda.types import Message, ToolSpec

READ = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})
ASK = ChatRequest("qwen", (Message.text_message("user", "read it"),), tools=(READ,))
GOOD = "openai_vllm_hermes_split_args.sse"


def assert_named(error: BaseException | None, cls: type[ProviderError]) -> ProviderError:
    assert type(error) is cls, repr(error)
    assert isinstance(error, ProviderError)
    assert (error.provider, error.model) == ("local-vllm", "qwen")
    return error


def test_429_with_retry_after_is_retried_after_the_wait(harness: Any) -> None:
    harness.server.error(429, "openai_error_rate_limit.json", **{"Retry-After": "0.3"})
    harness.server.stream(GOOD)
    provider = harness.provider(retry=RetryPolicy(max_retries=2, base_delay=0.01, max_delay=2.0))
    started = time.monotonic()
    outcome = harness.run(ASK, provider)
    assert outcome.error is None
    assert time.monotonic() - started >= 0.3
    assert len(harness.server.requests) == 2
    assert any(isinstance(e, ToolUseEnd) for e in outcome.events)


def test_429_that_outlasts_the_retries_is_a_rate_limit_error(harness: Any) -> None:
    for _ in range(3):
        harness.server.error(429, "openai_error_rate_limit.json", **{"Retry-After": "0"})
    error = assert_named(harness.run(ASK).error, RateLimitError)
    assert "Rate limit reached for gpt-4o" in str(error)
    assert len(harness.server.requests) == 3  # the first try and two retries


def test_5xx_before_the_body_is_retried(harness: Any) -> None:
    harness.server.error(502, "<html><head><title>502 Bad Gateway</title></head></html>")
    harness.server.error(503, '{"error": {"message": "model is loading"}}')
    harness.server.stream(GOOD)
    outcome = harness.run(ASK)
    assert outcome.error is None
    assert len(harness.server.requests) == 3


def test_400_is_not_retried_and_carries_the_servers_message(harness: Any) -> None:
    harness.server.error(400, "openai_error_bad_temperature.json")
    harness.server.stream(GOOD)
    error = assert_named(harness.run(ASK).error, ProviderStatusError)
    assert isinstance(error, ProviderStatusError)
    assert error.status == 400
    assert "Invalid 'temperature': decimal above maximum value" in str(error)
    assert "decimal_above_max_value" in error.body
    assert len(harness.server.requests) == 1


def test_404_detail_body(harness: Any) -> None:
    harness.server.error(404, "openai_error_fastapi_not_found.json")
    error = assert_named(harness.run(ASK).error, ProviderStatusError)
    assert str(error).endswith(
        "HTTP 404 from " + harness.server.base_url + "/chat/completions: Not Found"
    )


def test_401_is_an_authentication_error_and_never_shows_the_key(harness: Any) -> None:
    key = "sk-test-secret-0123456789"
    harness.server.error(401, '{"error": {"message": "Incorrect API key provided: ' + key + '"}}')
    error = assert_named(harness.run(ASK, harness.provider(api_key=key)).error, AuthenticationError)
    assert "Incorrect API key provided: ***" in str(error)
    assert isinstance(error, ProviderStatusError)
    assert key not in str(error) and key not in error.body
    assert len(harness.server.requests) == 1


@pytest.mark.parametrize(
    ("status", "name", "words"),
    [
        (400, "openai_error_vllm_auto_tool_choice.json", "--enable-auto-tool-choice"),
        (400, "openai_error_ollama_no_tools.json", "does not support tools"),
        (500, "openai_error_llamacpp_jinja.json", "tools param requires --jinja flag"),
    ],
)
def test_servers_refusing_tools(harness: Any, status: int, name: str, words: str) -> None:
    harness.server.error(status, name)
    harness.server.stream(GOOD)
    error = assert_named(harness.run(ASK).error, ToolsUnsupportedError)
    assert words in str(error)
    assert len(harness.server.requests) == 1  # a refusal is not retried, not even a 500


def test_context_too_long(harness: Any) -> None:
    harness.server.error(400, "openai_error_context_length.json")
    error = assert_named(harness.run(ASK).error, ContextTooLongError)
    assert "maximum context length is 128000 tokens" in str(error)


def test_each_retry_is_announced_before_its_wait(harness: Any) -> None:
    loading = '{"error": {"message": "model is loading"}}'
    harness.server.error(503, loading, **{"Retry-After": "0.2"})
    harness.server.error(500, "<html>Internal Server Error</html>")
    harness.server.stream(GOOD)
    provider = harness.provider(retry=RetryPolicy(max_retries=3, base_delay=0.01, max_delay=2.0))
    outcome = harness.run(ASK, provider)
    assert outcome.error is None
    retries = [event for event in outcome.events if isinstance(event, Retrying)]
    assert [(r.reason, r.attempt, r.attempts) for r in retries] == [
        ("HTTP 503", 2, 4),
        ("HTTP 500", 3, 4),
    ]
    assert retries[0].delay == 0.2  # the server's Retry-After
    assert 0.01 <= retries[1].delay <= 0.02  # backoff: half to all of base * 2
    assert outcome.events[:2] == retries  # before anything of the answer


def test_a_refused_connection_to_this_machine_fails_at_once(unused_port: int) -> None:
    """Nothing listens there: one attempt, no retries, and a line saying what to do."""
    from nehanda.config.settings import ProviderConfig
    from nehanda.providers.openai_compat import OpenAICompatProvider

    sent: list[httpx.Request] = []

    async def count(request: httpx.Request) -> None:
        sent.append(request)

    async def go() -> tuple[list[Any], BaseException]:
        base = f"http://127.0.0.1:{unused_port}/v1"
        config = ProviderConfig(name="local-vllm", type="vllm", base_url=base, model="qwen")
        client = httpx.AsyncClient(event_hooks={"request": [count]})
        provider = OpenAICompatProvider(config, client=client, retry=RetryPolicy(max_retries=3))
        events: list[Any] = []
        try:
            async for event in provider.stream(ASK):
                events.append(event)
        except ProviderError as exc:
            return events, exc
        finally:
            await client.aclose()
        raise AssertionError("a refused connection must fail")

    events, error = asyncio.run(go())
    assert events == [] and len(sent) == 1  # one try: the policy would make four
    assert_named(error, ProviderConnectionError)
    assert str(error) == (
        f"local-vllm (model qwen): no server is running at "
        f"http://127.0.0.1:{unused_port}/v1/chat/completions (connection refused); "
        "start it, or fix base_url"
    )


def own_address() -> str | None:
    """This machine's address on its network (no packet is sent), if it has one."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("10.255.255.255", 1))
        except OSError:
            return None
        address: str = sock.getsockname()[0]
    return None if is_loopback(address) else address


def test_a_refused_connection_elsewhere_is_retried(harness: Any, unused_port: int) -> None:
    address = own_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    provider = harness.provider(base_url=f"http://{address}:{unused_port}/v1")
    outcome = harness.run(ASK, provider)
    assert_named(outcome.error, ProviderConnectionError)
    assert [(e.reason, e.attempt) for e in outcome.events] == [
        ("connection refused", 2),
        ("connection refused", 3),
    ]
    assert "connection refused (is the server running on that port?)" in str(outcome.error)


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("localhost", True),
        ("LocalHost.", True),
        ("::ffff:127.0.0.1", True),
        ("0.0.0.0", True),
        ("10.0.0.1", False),
        ("192.168.1.20", False),
        ("example.com", False),
        ("localhost.example.com", False),
        ("", False),
    ],
)
def test_which_addresses_are_this_machine(host: str, local: bool) -> None:
    """A refused connection elsewhere may be a server restarting: that one is retried."""
    assert is_loopback(host) is local


def test_stalled_server_is_a_read_timeout(harness: Any) -> None:
    harness.server.stream(GOOD).replies[-1].held = harness.server.released  # silent till the end
    provider = harness.provider(read_timeout=0.2, connect_timeout=5.0)
    error = assert_named(harness.run(ASK, provider).error, ProviderTimeout)
    assert "read timeout" in str(error)
    assert len(harness.server.requests) == 1  # a slow server is not asked twice


def test_stream_that_goes_quiet_is_a_read_timeout_and_no_call_ends(harness: Any) -> None:
    body = harness.body(GOOD)
    stall = body.index(b"docs/caf")
    harness.server.stream(body, piece=64, stall_after=stall, held=harness.server.released)
    outcome = harness.run(ASK, harness.provider(read_timeout=0.2))
    assert_named(outcome.error, ProviderTimeout)
    assert any(isinstance(e, ToolUseStart) for e in outcome.events)
    assert not any(isinstance(e, ToolUseEnd) for e in outcome.events)


@pytest.mark.parametrize("cut", [False, True], ids=["body-ends", "socket-closed"])
def test_cut_stream_is_a_protocol_error_and_no_call_ends(harness: Any, cut: bool) -> None:
    harness.server.stream("openai_vllm_cut_before_finish.sse", piece=40, cut=cut)
    outcome = harness.run(ASK)
    assert_named(outcome.error, StreamProtocolError)
    assert (
        ToolUseStart(0, "chatcmpl-tool-8d3c2b1a9f0e4d7c8b6a5e4f3d2c1b0a", "Bash") in outcome.events
    )
    assert not any(isinstance(e, ToolUseEnd) for e in outcome.events)
    assert len(harness.server.requests) == 1  # a stream that has begun is never retried


def test_non_json_chunk_is_a_protocol_error(harness: Any) -> None:
    harness.server.stream("openai_non_json_chunk.sse")
    outcome = harness.run(ASK)
    error = assert_named(outcome.error, StreamProtocolError)
    assert "upstream timed out" in str(error)
    assert outcome.events == [TextDelta("Hello")]


def test_error_object_mid_stream_is_a_protocol_error_and_no_call_ends(harness: Any) -> None:
    harness.server.stream("openai_vllm_error_mid_stream.sse")
    outcome = harness.run(ASK)
    error = assert_named(outcome.error, StreamProtocolError)
    assert "CUDA error: an illegal memory access was encountered" in str(error)
    assert not any(isinstance(e, ToolUseEnd) for e in outcome.events)
