"""``Masked``: a ``Toolset`` around any ``Toolset`` whose every answer reaches the model
with each known secret value masked and its size capped, once, here.

Built-in tools, MCP servers' tools, ToolSearch and the permission gate's refusals all
answer through it alike, so none of them masks or caps for itself: a tool that prints a
key (a command's ``env``, an MCP server that returns its own token) shows the model
``[REDACTED]`` (``masking.SecretMask``: raw, URL-encoded, JSON-escaped, base64, or a
long run of it), and no answer holds more than ``output.MAX_OUTPUT_BYTES``. The error
results ``check`` gives are treated the same, since they may quote what they refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from nehanda.masking import SecretMask
from nehanda.tools.output import cap_output
from nehanda.types import CheckedCall, ToolResult, Toolset, ToolSpec, ToolUse


@dataclass
class Masked:
    inner: Toolset
    mask: SecretMask = field(default_factory=lambda: SecretMask(()))

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return self.inner.specs

    def plain_output(self, content: str) -> str:
        return self.inner.plain_output(content)

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        checked = self.inner.check(use)
        return self.answer(checked) if isinstance(checked, ToolResult) else checked

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        return self.answer(await self.inner.run(checked, started))

    def answer(self, result: ToolResult) -> ToolResult:
        """``result`` as the model may see it: masked, then capped (its sandbox line,
        which the user sees, masked too)."""
        denial = result.sandbox_denial
        return replace(
            result,
            content=cap_output(self.mask.mask(result.content)),
            sandbox_denial=self.mask.mask(denial) if denial is not None else None,
        )
