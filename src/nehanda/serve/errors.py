"""Failures as each client protocol reports them: a status code and an error object.

The upstream's own status passes through where it means the same to the client (a
bad request, a missing model, a rate limit); a failure of the upstream itself (its
5xx, an unreachable server, a cut stream, a refused key of nehanda's) is a 502, or a
504 for a timeout, never a 401 that would tell the client its own token is wrong.
Messages come from ``ProviderError``s, which mask the credentials they sent; a key a
server echoed into its stream is masked here too, with every key serve knows, in every
form (``nehanda.masking``).
"""

from __future__ import annotations

from dataclasses import dataclass

from nehanda.errors import (
    AuthenticationError,
    ConfigError,
    ContextTooLongError,
    ProviderStatusError,
    ProviderTimeout,
    RateLimitError,
)
from nehanda.masking import SecretMask
from nehanda.serve.config import UnknownModel
from nehanda.serve.wire import BadRequest
from nehanda.types import JsonObject

NO_SECRETS = SecretMask(())
_KINDS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}
_KINDS |= {404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error"}
_KINDS |= {529: "overloaded_error"}


@dataclass(frozen=True)
class Failure:
    status: int
    kind: str
    message: str


def failure_for(error: Exception, mask: SecretMask = NO_SECRETS) -> Failure:
    """The status and error type a client receives for ``error``, secrets masked."""
    status = _status(error)
    message = mask.mask(str(error) or type(error).__name__)
    return Failure(status, _KINDS.get(status, "api_error"), message)


def _status(error: Exception) -> int:
    if isinstance(error, BadRequest | ContextTooLongError):
        return 400
    if isinstance(error, UnknownModel):
        return 404
    if isinstance(error, RateLimitError):
        return 529 if error.status == 529 else 429
    if isinstance(error, AuthenticationError):
        return 502
    if isinstance(error, ProviderStatusError) and error.status in (400, 404, 413, 422):
        return error.status
    if isinstance(error, ProviderTimeout):
        return 504
    if isinstance(error, ConfigError):
        return 500
    return 502


def openai_error(failure: Failure) -> tuple[int, JsonObject]:
    status = 503 if failure.status == 529 else failure.status
    body = {"message": failure.message, "type": failure.kind, "param": None, "code": None}
    return status, {"error": body}


def anthropic_error(failure: Failure) -> tuple[int, JsonObject]:
    return failure.status, {
        "type": "error",
        "error": {"type": failure.kind, "message": failure.message},
    }
