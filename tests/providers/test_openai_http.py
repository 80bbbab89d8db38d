"""The shared HTTP helpers as pure functions: backoff, Retry-After, error bodies, masking."""

from __future__ import annotations

import email.utils

import pytest

from nehanda.errors import (
    AuthenticationError,
    ContextTooLongError,
    ProviderError,
    ProviderStatusError,
    RateLimitError,
    ToolsUnsupportedError,
)
from nehanda.providers.http import RetryPolicy, parse_retry_after, timeout_for
from nehanda.providers.http_errors import (
    MAX_MESSAGE_CHARS,
    Target,
    error_message,
    mask,
    redact_url,
    secrets_in,
    status_error,
)

TARGET = Target("http://127.0.0.1:8000/v1/chat/completions", "vllm", "qwen")


def test_backoff_grows_is_jittered_and_bounded() -> None:
    policy = RetryPolicy(max_retries=10, base_delay=0.5, max_delay=4.0)
    for attempt in range(10):
        ceiling = min(4.0, 0.5 * 2**attempt)
        delays = {policy.delay(attempt) for _ in range(20)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1


def test_retry_after_is_honoured_and_capped() -> None:
    policy = RetryPolicy(max_delay=20.0)
    assert policy.delay(0, 7.0) == 7.0
    assert policy.delay(0, 3600.0) == 20.0


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.25") == 0.25
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after(date, now=1_000_000) == pytest.approx(30.0)
    assert parse_retry_after(date, now=2_000_000) == 0.0


def test_connect_and_read_timeouts_are_separate() -> None:
    timeout = timeout_for(connect=2.0, read=90.0)
    assert (timeout.connect, timeout.read, timeout.write, timeout.pool) == (2.0, 90.0, 2.0, 2.0)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"error": {"message": "bad model", "type": "x"}}', "bad model"),
        ('{"error": "model not found"}', "model not found"),
        ('{"detail": "Not Found"}', "Not Found"),
        ('{"detail": [{"loc": ["body", "messages"], "msg": "field required"}]}', "field required"),
        ('{"object": "error", "message": "too long", "code": 400}', "too long"),
        # Of a page or other text, one line: what it says, not its markup.
        ("<html>\n  <body>502 Bad Gateway</body>\n</html>", "502 Bad Gateway"),
        ("<html><title>Oops &amp; gone</title><p>a\nb</p></html>", "Oops & gone"),
        ("\nupstream connect error\nreset reason: overflow\n", "upstream connect error"),
        ('{"unrelated": 1}', '{"unrelated": 1}'),
    ],
)
def test_error_message_shapes(body: str, message: str) -> None:
    assert error_message(body) == message


def test_error_message_is_truncated() -> None:
    message = error_message('{"error": {"message": "' + "x" * 5000 + '"}}')
    assert len(message) == MAX_MESSAGE_CHARS and message.endswith("…")


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (401, '{"error": {"message": "no key"}}', AuthenticationError),
        (403, '{"error": "forbidden"}', AuthenticationError),
        (429, '{"error": {"message": "slow down"}}', RateLimitError),
        (
            400,
            '{"error": {"code": "context_length_exceeded", "message": "x"}}',
            ContextTooLongError,
        ),
        (
            400,
            '{"error": {"message": "the request exceeds the available context size"}}',
            ContextTooLongError,
        ),
        (400, '{"error": "llama3.2:1b does not support tools"}', ToolsUnsupportedError),
        (400, '{"message": "No endpoints found that support tool use."}', ToolsUnsupportedError),
        (500, '{"error": {"message": "Cannot use tools with stream"}}', ToolsUnsupportedError),
        (400, '{"error": {"message": "temperature out of range"}}', ProviderStatusError),
        (500, "Internal Server Error", ProviderStatusError),
    ],
)
def test_status_error_classification(status: int, body: str, cls: type[ProviderError]) -> None:
    error = status_error(status, body, TARGET)
    assert type(error) is cls
    assert (error.provider, error.model) == ("vllm", "qwen")
    assert f"HTTP {status} from http://127.0.0.1:8000/v1/chat/completions" in str(error)


def test_secrets_are_masked_and_urls_redacted() -> None:
    headers = {"Authorization": "Bearer sk-abcdef123456", "x-api-key": "ant-999999"}
    secrets = secrets_in(headers)
    assert "sk-abcdef123456" in secrets and "ant-999999" in secrets
    assert mask("key sk-abcdef123456 and ant-999999", secrets) == "key *** and ***"
    error = status_error(401, '{"error": "bad key sk-abcdef123456"}', TARGET, secrets=secrets)
    assert "sk-abcdef123456" not in str(error)
    assert isinstance(error, ProviderStatusError) and "sk-abcdef123456" not in error.body
    assert redact_url("https://u:p@host:8443/v1?key=s3cret#x") == "https://host:8443/v1"
    assert redact_url("http://[::1]:8000/v1") == "http://[::1]:8000/v1"
