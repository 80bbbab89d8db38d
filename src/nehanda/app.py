"""Wires one ``nehanda run``: settings, provider, mode, tools, engine and output."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

from nehanda.engine.loop import Agent, ModeSwitched, RunFinished, ToolRunner
from nehanda.engine.mode import decide_mode
from nehanda.engine.system_prompt import build_system_prompt
from nehanda.errors import NehandaError
from nehanda.providers.discovery import ensure_model, find_provider
from nehanda.providers.factory import create_provider
from nehanda.providers.rescue import RescueProvider
from nehanda.settings import (
    Flags,
    ProviderConfig,
    Settings,
    load_settings,
    resolve_named_provider,
)
from nehanda.tool_support import ToolSupportCache
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BUILTIN_TOOLS, builtin_specs, execute_builtin_tool
from nehanda.types import Message, ToolResult, ToolUse
from nehanda.ui.json_output import JsonOutput, RunDescription
from nehanda.ui.terminal import TerminalOutput


@dataclass(frozen=True)
class RunOptions:
    prompt: str
    flags: Flags
    output_format: str
    approve_all: bool
    workspace: Path


def run_once(options: RunOptions) -> int:
    """Runs the agent to its final answer; returns the process exit code."""
    description = RunDescription(provider="", model="", mode="")
    output: JsonOutput | TerminalOutput
    if options.output_format == "text":
        output = TerminalOutput(sys.stdout, sys.stderr)
    else:
        output = JsonOutput(
            sys.stdout, sys.stderr, description, stream=options.output_format == "stream-json"
        )
    try:
        finished = asyncio.run(_run(options, description, output))
    except NehandaError as exc:
        output.error(str(exc))
        if not isinstance(output, TerminalOutput):
            sys.stderr.write(f"error: {exc}\n")
        return 1
    if finished.problem and not isinstance(output, TerminalOutput):
        sys.stderr.write(f"error: {finished.problem}\n")
    return 1 if finished.problem else 0


async def _run(
    options: RunOptions, description: RunDescription, output: JsonOutput | TerminalOutput
) -> RunFinished:
    settings = load_settings(options.workspace, options.flags)
    config = await _choose_provider(options.flags, settings)
    support = ToolSupportCache()
    decision = decide_mode(
        config.type,
        force_manual_tools=config.force_manual_tools,
        tools_refused=support.refused(config),
    )
    description.provider, description.model = config.name, config.model or ""
    description.mode = decision.mode
    provider = create_provider(config)
    agent = Agent(
        provider=RescueProvider(provider) if decision.mode == "rescue" else provider,
        model=description.model,
        tools=builtin_specs(),
        run_tool=_tool_runner(ToolContext(options.workspace), options.approve_all),
        max_turns=settings.max_turns,
        mode=decision.mode,
        recover_leaks=settings.recover_leaked_calls,
        messages=[Message.text_message("system", build_system_prompt(options.workspace))],
    )
    output.start()
    try:
        async for event in agent.run(options.prompt):
            if isinstance(event, ModeSwitched):
                support.remember_refusal(config, event.reason)
                description.mode = event.mode
            output.handle(event)
            if isinstance(event, RunFinished):
                return event
    finally:
        await agent.provider.aclose()
    raise AssertionError("the engine always ends a run with RunFinished")


async def _choose_provider(flags: Flags, settings: Settings) -> ProviderConfig:
    if flags.provider:
        config = resolve_named_provider(settings, flags.provider)
    else:
        config = await find_provider(settings)
    return await ensure_model(config)


def _tool_runner(context: ToolContext, approve_all: bool) -> ToolRunner:
    async def run_tool(tool_use: ToolUse) -> ToolResult:
        tool = BUILTIN_TOOLS.get(tool_use.name)
        if tool is not None and not tool.read_only and not approve_all:
            return ToolResult(
                tool_use.id,
                f"{tool_use.name} was not run: it changes things and needs approval "
                "(the user did not pass --yes)",
                is_error=True,
            )
        return await execute_builtin_tool(tool_use, context)

    return run_tool
