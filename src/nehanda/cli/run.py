"""Runs one ``nehanda run``: opens a session, asks once, reports in the chosen format.

In the JSON formats every ending is a JSON line a program can read last: the result,
or an error object when the run failed, could not start, or was interrupted.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass

from nehanda.cli.session import ChatSession, SessionOptions, open_session
from nehanda.engine.loop import RunFinished
from nehanda.errors import NehandaError
from nehanda.ui.json_output import JsonOutput, RunDescription
from nehanda.ui.terminal import TerminalOutput

INTERRUPTED = "interrupted"

Output = JsonOutput | TerminalOutput


@dataclass(frozen=True)
class RunOptions:
    prompt: str
    session: SessionOptions
    output_format: str
    verbose: bool = False


def run_once(options: RunOptions) -> int:
    """Runs the agent to its final answer; returns the process exit code.

    ``KeyboardInterrupt`` still escapes (the caller exits 130), once the JSON formats
    have written their last line."""
    description = RunDescription(provider="", model="", mode="", session_id="")
    output = _output(options.output_format, description)
    try:
        finished = asyncio.run(_run(options, description, output))
    except NehandaError as exc:
        return _failed(output, str(exc), exc.exit_code)
    except KeyboardInterrupt:
        if isinstance(output, JsonOutput):
            output.error(INTERRUPTED)
        raise
    if finished.problem and isinstance(output, JsonOutput):
        sys.stderr.write(f"error: {finished.problem}\n")
    return 1 if finished.problem else 0


def report_failure(output_format: str, message: str) -> int:
    """Reports a run that could not start (no session to resume) as ``run_once`` reports
    a failed one; returns the exit code."""
    description = RunDescription(provider="", model="", mode="", session_id="")
    return _failed(_output(output_format, description), message)


def _output(output_format: str, description: RunDescription) -> Output:
    if output_format == "text":
        return TerminalOutput(sys.stdout, sys.stderr)
    return JsonOutput(sys.stdout, sys.stderr, description, stream=output_format == "stream-json")


def _failed(output: Output, message: str, code: int = 1) -> int:
    output.error(message)
    if isinstance(output, JsonOutput):
        sys.stderr.write(f"error: {message}\n")
    return code


async def _run(options: RunOptions, description: RunDescription, output: Output) -> RunFinished:
    chat = await open_session(options.session)
    description.provider, description.model = chat.config.name, chat.agent.model
    description.mode, description.session_id = chat.mode, chat.id
    chosen = chat.chosen()
    if isinstance(output, JsonOutput):
        output.start(chosen)
    else:
        output.start()
        if options.verbose or sys.stderr.isatty():
            output.chosen(chosen)
    for note in chat.notes:
        output.note(note)
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
    chat: ChatSession, prompt: str, description: RunDescription, output: Output
) -> RunFinished:
    async for event in chat.ask(prompt):
        description.mode = chat.mode
        output.handle(event)
        if isinstance(event, RunFinished):
            return event
    raise AssertionError("the engine always ends a run with RunFinished")
