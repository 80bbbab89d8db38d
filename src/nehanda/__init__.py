"""nehanda: an agentic command-line assistant whose tool calls work on any model.

The package root stays import-light so that ``nehanda --help`` starts instantly; the
public names below are the values a plugin or embedding program needs.
"""

from nehanda.errors import (
    AuthenticationError,
    ConfigError,
    ContextTooLongError,
    NehandaError,
    PermissionDenied,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    ProviderTimeout,
    RateLimitError,
    StreamProtocolError,
    ToolCallFormatError,
    ToolError,
    ToolsUnsupportedError,
)
from nehanda.events import (
    LeakedCallsRecovered,
    MessageEnd,
    ModeSwitched,
    Notice,
    ReasoningDelta,
    Retrying,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseArgsDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.types import (
    CheckedCall,
    Message,
    ReasoningPart,
    TextPart,
    ToolResult,
    Toolset,
    ToolSpec,
    ToolUse,
    Usage,
)

__version__ = "0.1.0"

__all__ = [
    "AuthenticationError",
    "CheckedCall",
    "ConfigError",
    "ContextTooLongError",
    "LeakedCallsRecovered",
    "Message",
    "MessageEnd",
    "ModeSwitched",
    "NehandaError",
    "Notice",
    "PermissionDenied",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderStatusError",
    "ProviderTimeout",
    "RateLimitError",
    "ReasoningDelta",
    "ReasoningPart",
    "Retrying",
    "StreamEvent",
    "StreamProtocolError",
    "TextDelta",
    "TextPart",
    "ToolCallFormatError",
    "ToolCallProblem",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "ToolUse",
    "ToolUseArgsDelta",
    "ToolUseEnd",
    "ToolUseStart",
    "ToolsUnsupportedError",
    "Toolset",
    "Usage",
    "__version__",
]
