"""``WithAgents``: a ``Toolset`` adding the ``Task`` tool to another toolset's.

A ``Task`` (or ``Agent``) call is checked here (its arguments, a subagent the session
has) and run as a subagent's conversation (``agents.runner``), at most
``max_parallel`` at once; every other call goes to the toolset inside. The subagents'
calls come back in through the session's whole toolset (``crew.route``, the gate's
outside), set once that is built, so that each is judged as the session's own. The
crew also reads WebFetch's long pages (``read_page``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import pydantic

from nehanda.agents.runner import Subagents
from nehanda.agents.task import FACTS, NAME, NAMES, TaskArgs, task_spec
from nehanda.config.agent_files import AgentDefinition
from nehanda.errors import NehandaError
from nehanda.types import CheckedCall, ToolResult, Toolset, ToolSpec, ToolUse


@dataclass
class WithAgents:
    inner: Toolset
    definitions: dict[str, AgentDefinition]
    max_parallel: int = 4
    crew: Subagents | None = None
    _slots: asyncio.Semaphore = field(init=False, repr=False)
    _specs: tuple[tuple[ToolSpec, ...], tuple[ToolSpec, ...]] | None = field(
        default=None, repr=False
    )

    def __post_init__(self) -> None:
        self._slots = asyncio.Semaphore(self.max_parallel)
        self._task = task_spec(self.definitions)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        offered = self.inner.specs
        if self._specs is None or self._specs[0] is not offered:
            self._specs = (offered, (*offered, self._task))
        return self._specs[1]

    def plain_output(self, content: str) -> str:
        return self.inner.plain_output(content)

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        if use.name not in NAMES:
            return self.inner.check(use)
        if use.input_error is not None:
            return _error(use, use.input_error)
        try:
            args = TaskArgs.model_validate(use.input)
        except pydantic.ValidationError as error:
            first = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "arguments"
            return _error(use, f"Invalid arguments for {NAME}: {where}: {first['msg']}.")
        if args.subagent_type not in self.definitions:
            have = ", ".join(self.definitions)
            return _error(
                use, f"Unknown subagent_type {args.subagent_type!r}; the subagents are: {have}."
            )
        return CheckedCall(use, args, facts=FACTS)

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        args = checked.arguments
        if not isinstance(args, TaskArgs):
            return await self.inner.run(checked, started)
        if self.crew is None:
            return _error(checked.use, "Subagents are not available in this session.")
        async with self._slots:
            if started is not None:
                started()
            definition = self.definitions[args.subagent_type]
            return await self.crew.answer(checked.use, definition, args.prompt)

    async def read_page(self, page: str, prompt: str) -> str:
        """A long page read by the session's model, which follows ``/model`` (``crew``)."""
        if self.crew is None:
            raise NehandaError("no model is there to read the page")
        return await self.crew.read_page(page, prompt)


def _error(use: ToolUse, message: str) -> ToolResult:
    return ToolResult(use.id, message, is_error=True)
