"""Every error nehanda raises, in one tree.

```
NehandaError
├─ ConfigError                      settings file problems, with file:line
│  └─ UnknownProviderError          --provider names nothing that exists (exit 2)
├─ StorageError                     nehanda's own files cannot be written (disk full)
├─ ImageRefused                     an image nehanda cannot send (not one, too large)
├─ ProviderError(provider, model)
│  ├─ ProviderConnectionError ─ ProviderTimeout
│  ├─ ProviderStatusError(status, body) ─ AuthenticationError, RateLimitError,
│  │                                      ContextTooLongError, ImagesUnsupportedError
│  ├─ ToolsUnsupportedError         "does not support tools" -> rescue fallback
│  └─ StreamProtocolError           bad chunk, stream ended without its final event
├─ ToolCallFormatError(raw, reply)  carries the message to send back to the model
├─ ToolError(tool_name)             becomes ToolResult(is_error=True)
└─ PermissionDenied(tool_use, refusal)
```

Callers catch broadly (``ProviderError``) and recover narrowly
(``ToolsUnsupportedError`` switches the turn to rescue mode). ``with_hint`` is the one
way to add what to do next to an error's message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from nehanda.types import Refusal, ToolUse

E = TypeVar("E", bound=BaseException)


def with_hint(error: E, hint: str) -> E:
    """A copy of ``error``, of its class and with its fields, whose message ends with
    ``hint``; raise it ``from error``."""
    hinted = type(error).__new__(type(error))
    hinted.__dict__.update(vars(error))
    hinted.args = (f"{error}{hint}",)
    return hinted


class NehandaError(Exception):
    """The root of every error nehanda raises on purpose."""

    exit_code = 1  # the command's exit code when this error ends it


class ConfigError(NehandaError):
    """A settings file or flag is wrong; the message names the file and line."""


class UnknownProviderError(ConfigError):
    """The provider asked for is neither in settings nor a provider type: a usage error."""

    exit_code = 2


class StorageError(NehandaError):
    """One of nehanda's own files (the session log) cannot be written; the message
    names it and what to do."""


class ProviderError(NehandaError):
    def __init__(self, message: str, *, provider: str = "", model: str = "") -> None:
        super().__init__(message)
        self.provider = provider
        self.model = model


class ProviderConnectionError(ProviderError):
    """The server could not be reached (refused, DNS, TLS, reset before an answer)."""


class ProviderTimeout(ProviderConnectionError):
    """Connecting took too long, or the stream went quiet for longer than allowed."""


class ProviderStatusError(ProviderError):
    """The server answered with an HTTP error status."""

    def __init__(
        self, message: str, *, status: int, body: str = "", provider: str = "", model: str = ""
    ) -> None:
        super().__init__(message, provider=provider, model=model)
        self.status = status
        self.body = body


class AuthenticationError(ProviderStatusError):
    """401 or 403: the API key is missing, wrong or lacks access."""


class RateLimitError(ProviderStatusError):
    """429 (or an overloaded answer) that outlasted the retries."""


class ContextTooLongError(ProviderStatusError):
    """The request does not fit the model's context window."""


class ImageRefused(NehandaError):
    """A file given as an image is none, cannot be read, or cannot be made small enough."""


class ImagesUnsupportedError(ProviderStatusError):
    """The model cannot see images; the request is asked again with notes in their place."""


class ToolsUnsupportedError(ProviderError):
    """The server or model refused native tools; the engine retries in rescue mode."""


class StreamProtocolError(ProviderError):
    """A chunk could not be read, or the stream ended without its final event.

    No tool call from such a stream runs: the response may be cut short.
    """


class ToolCallFormatError(NehandaError):
    """Model text that looked like a tool call but could not be read as one."""

    def __init__(self, raw: str, reply: str) -> None:
        super().__init__(reply)
        self.raw = raw
        self.reply = reply


class ToolError(NehandaError):
    """A tool failed; the engine turns this into ``ToolResult(is_error=True)``, carrying
    ``sandbox_denial``, the line saying what the sandbox denied, if it denied anything."""

    def __init__(self, tool_name: str, message: str, sandbox_denial: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.sandbox_denial = sandbox_denial


class PermissionDenied(NehandaError):
    """A tool call was not allowed to run; ``refusal`` says who refused it, for the
    renderers (``reason`` is written for the model)."""

    def __init__(self, tool_use: ToolUse, reason: str, refusal: Refusal | None = None) -> None:
        super().__init__(reason)
        self.tool_use = tool_use
        self.reason = reason
        self.refusal = refusal
