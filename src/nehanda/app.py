"""Runs one ``nehanda run``: opens a session, asks once, reports in the chosen format."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass

from nehanda.engine.loop import RunFinished
from nehanda.errors import NehandaError
from nehanda.session import ChatSession, SessionOptions, open_session
from nehanda.ui.json_output import JsonOutput, RunDescription
from nehanda.ui.terminal import TerminalOutput


@dataclass(frozen=True)
class RunOptions:
    prompt: str
    session: SessionOptions
    output_format: str


def run_once(options: RunOptions) -> int:
    """Runs the agent to its final answer; returns the process exit code."""
    description = RunDescription(provider="", model="", mode="", session_id="")
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
    chat = await open_session(options.session)
    description.provider, description.model = chat.config.name, chat.agent.model
    description.mode, description.session_id = chat.mode, chat.id
    for note in chat.notes:
        sys.stderr.write(f"note: {note}\n")
    output.start()
    try:
        return await _ask(chat, options.prompt, description, output)
    except NehandaError as exc:
        chat.record_error(str(exc))
        raise
    except (KeyboardInterrupt, asyncio.CancelledError):
        chat.record_interruption()
        raise
    finally:
        await chat.close()


async def _ask(
    chat: ChatSession, prompt: str, description: RunDescription, output: JsonOutput | TerminalOutput
) -> RunFinished:
    async for event in chat.ask(prompt):
        description.mode = chat.mode
        output.handle(event)
        if isinstance(event, RunFinished):
            return event
    raise AssertionError("the engine always ends a run with RunFinished")
