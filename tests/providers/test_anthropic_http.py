"""``AnthropicProvider`` against a real server on 127.0.0.1 replaying recorded Messages
API bytes: the request it sends, retries (429, 529, ``retry-after``,
``x-should-retry``), errors that are not retried, and streams that end badly.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from nehanda.config.profiles import CLAUDE_FAMILIES, family_for
from nehanda.errors import (
    AuthenticationError,
    ProviderStatusError,
    RateLimitError,
    StreamProtocolError,
)
from nehanda.events import MessageEnd, ToolUseEnd, ToolUseStart
from nehanda.providers.anthropic import AnthropicProvider
from nehanda.providers.base import ChatRequest
from nehanda.providers.http import RetryPolicy
from nehanda.types import Message, ToolSpec

READ = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})
ASK = ChatRequest(
    "claude-sonnet-4-5",
    (Message.text_message("system", "Be brief."), Message.text_message("user", "install?")),
    tools=(READ,),
)
KEY = "sk-ant-api03-very-secret"
FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=2.0)


@pytest.fixture
def claude(harness: Any) -> Any:
    def build(api_key: str | None = KEY, **entry: Any) -> AnthropicProvider:
        config = harness.config("anthropic", **entry)
        return AnthropicProvider(config, api_key=api_key, retry=FAST_RETRY)

    return build


def test_the_request_on_the_wire(harness: Any, claude: Any) -> None:
    harness.server.stream("anthropic_tool_use.sse", piece=11)
    outcome = harness.run(ASK, claude())
    assert outcome.error is None
    assert isinstance(outcome.events[-1], MessageEnd)
    (request,) = harness.server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    body = request.body
    assert (body["model"], body["stream"], body["system"]) == (
        "claude-sonnet-4-5",
        True,
        "Be brief.",
    )
    assert body["max_tokens"] == 16384
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "install?"}]}]
    assert body["tool_choice"] == {"type": "auto"}


@pytest.mark.parametrize(
    ("model", "max_tokens", "context"),
    [
        ("claude-sonnet-4-5", 16384, 200_000),
        ("claude-opus-4-1-20250805", 16384, 200_000),
        ("claude-3-5-haiku-latest", 8192, 200_000),
        ("claude-3-opus-20240229", 4096, 200_000),
        ("some-proxy-model", 8192, None),
    ],
)
def test_max_tokens_and_context_per_family(
    model: str, max_tokens: int, context: int | None
) -> None:
    family = family_for(model, CLAUDE_FAMILIES)
    assert (family.max_tokens, family.context_length) == (max_tokens, context)


def test_429_is_retried_after_retry_after(harness: Any, claude: Any) -> None:
    harness.server.error(429, "anthropic_error_rate_limit.json", **{"retry-after": "0.3"})
    harness.server.stream("anthropic_answer.sse")
    started = time.monotonic()
    outcome = harness.run(ASK, claude())
    assert outcome.error is None
    assert time.monotonic() - started >= 0.3
    assert len(harness.server.requests) == 2


def test_529_overloaded_is_retried_then_reported(harness: Any, claude: Any) -> None:
    for _ in range(3):
        harness.server.error(529, "anthropic_error_overloaded.json", **{"retry-after": "0"})
    outcome = harness.run(ASK, claude())
    assert isinstance(outcome.error, RateLimitError)
    assert outcome.error.status == 529 and "Overloaded" in str(outcome.error)
    assert len(harness.server.requests) == 3


def test_x_should_retry_false_is_obeyed(harness: Any, claude: Any) -> None:
    harness.server.error(529, "anthropic_error_overloaded.json", **{"x-should-retry": "false"})
    harness.server.stream("anthropic_answer.sse")
    outcome = harness.run(ASK, claude())
    assert isinstance(outcome.error, RateLimitError)
    assert len(harness.server.requests) == 1


def test_x_should_retry_true_retries_what_would_not_be(harness: Any, claude: Any) -> None:
    harness.server.error(409, "anthropic_error_overloaded.json", **{"x-should-retry": "true"})
    harness.server.stream("anthropic_answer.sse")
    assert harness.run(ASK, claude()).error is None
    assert len(harness.server.requests) == 2


@pytest.mark.parametrize(
    ("status", "fixture", "cls", "says"),
    [
        (400, "anthropic_error_invalid_request.json", ProviderStatusError, "max_tokens: 100000"),
        (401, "anthropic_error_authentication.json", AuthenticationError, "invalid x-api-key"),
        (403, "anthropic_error_permission.json", AuthenticationError, "does not have permission"),
        (404, "anthropic_error_not_found.json", ProviderStatusError, "model: claude-sonnet-9"),
        (413, "anthropic_error_request_too_large.json", ProviderStatusError, "maximum allowed"),
    ],
)
def test_client_errors_are_not_retried_and_carry_the_apis_message(
    harness: Any, claude: Any, status: int, fixture: str, cls: type[Exception], says: str
) -> None:
    harness.server.error(status, fixture)
    harness.server.stream("anthropic_answer.sse")
    outcome = harness.run(ASK, claude())
    assert type(outcome.error) is cls
    assert isinstance(outcome.error, ProviderStatusError) and outcome.error.status == status
    assert says in str(outcome.error)
    assert KEY not in str(outcome.error)
    assert len(harness.server.requests) == 1


def test_a_missing_key_is_named_when_the_api_refuses(harness: Any, claude: Any) -> None:
    harness.server.error(401, "anthropic_error_authentication.json")
    outcome = harness.run(ASK, claude(api_key=None))
    assert isinstance(outcome.error, AuthenticationError)
    assert "set ANTHROPIC_API_KEY" in str(outcome.error)
    assert "x-api-key" not in harness.server.requests[0].headers


@pytest.mark.parametrize(
    ("fixture", "options", "error"),
    [
        ("anthropic_cut_before_message_stop.sse", {"cut": True}, StreamProtocolError),
        ("anthropic_error_overloaded_mid_stream.sse", {}, RateLimitError),
    ],
)
def test_a_stream_that_ends_badly_runs_nothing(
    harness: Any, claude: Any, fixture: str, options: dict[str, Any], error: type[Exception]
) -> None:
    harness.server.stream(fixture, **options)
    harness.server.stream("anthropic_answer.sse")
    outcome = harness.run(ASK, claude())
    assert type(outcome.error) is error
    assert not any(isinstance(e, ToolUseEnd) for e in outcome.events)
    assert len(harness.server.requests) == 1  # the body had begun: never retried
    if fixture.startswith("anthropic_cut"):
        assert any(isinstance(e, ToolUseStart) for e in outcome.events)
