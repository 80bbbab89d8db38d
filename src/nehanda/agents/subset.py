"""``Only``: a view of a toolset offering the tools a subagent may use, and no others.

Its calls go to the toolset it views (the session's, gate and masking included), so a
subagent's call is judged and run as the session's own. The tools it keeps are read
from each spec as the toolset offers it now (plan mode offers fewer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from nehanda.types import CheckedCall, ToolResult, Toolset, ToolSpec, ToolUse


@dataclass
class Only:
    inner: Toolset
    keep: Callable[[ToolSpec], bool]
    # Kept while the inner list is the same object: the rescue prompt's cache keys on it.
    _kept: tuple[tuple[ToolSpec, ...], tuple[ToolSpec, ...]] | None = field(
        default=None, repr=False
    )

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        offered = self.inner.specs
        if self._kept is None or self._kept[0] is not offered:
            self._kept = (offered, tuple(spec for spec in offered if self.keep(spec)))
        return self._kept[1]

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        names = [spec.name for spec in self.specs]
        if use.name not in names:
            have = ", ".join(names) or "none"
            message = f"Unknown tool {use.name!r}: this subagent's tools are: {have}."
            return ToolResult(use.id, message, is_error=True)
        return self.inner.check(use)

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        return await self.inner.run(checked, started)

    def plain_output(self, content: str) -> str:
        return self.inner.plain_output(content)
