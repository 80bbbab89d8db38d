"""Bash: run a shell command in the workspace, contained and bounded.

The command gets stdin from ``/dev/null`` and its own session (so its own process
group), an environment without secrets (provider API keys, and every variable whose
name holds KEY, TOKEN, SECRET or PASSWORD) and with guards that turn
interactive prompts into failures, and a time limit. With a sandbox in the context it
starts inside it (``nehanda.sandbox``): the child enters it before exec, and a sandbox
that cannot be set up stops the command before it runs. On timeout or cancellation
(Ctrl-C) the whole group gets SIGTERM, then SIGKILL. Nothing it starts outlives it: in
the sandbox it has a PID namespace of its own, whose init kills what is left as the
command ends (``sandbox.pid_namespace``), and what is left of its process group is
stopped too (all there is to stop without the namespace; a daemon that called
``setsid`` escapes that). Output (stdout and stderr interleaved) is kept head and tail,
with the number of bytes left out. A change the command made to a project file that
steers later runs (``watched``) is reported, and so is, in one last line, what the sandbox
denied a command that failed (``Sandbox.denied``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from nehanda.errors import ToolError
from nehanda.secret_env import SECRET_NAME
from nehanda.tools import watched
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.output import HeadTail

if TYPE_CHECKING:
    from nehanda.sandbox.child import ChildSteps

NAME = "Bash"
DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
# Command output is mostly noise (build logs, test runs): a smaller cap than files get.
MAX_OUTPUT_BYTES = 30_000
TERM_GRACE = 2.0
# How long output may keep flowing after bash exits: a background child holding the pipe.
PIPE_GRACE = 0.5

Ending = Literal["exited", "timeout", "stragglers"]
NO_OUTPUT = "(no output)"
_CLEAN_EXIT = "\n\n(exit code 0)"

SANDBOX_FAILED = (
    "The command did not run: the sandbox could not be set up ({error}). "
    "`nehanda doctor` shows what this kernel offers; [sandbox] enabled = false in the "
    "user settings runs commands without it."
)

# Each of these makes a tool that would wait for a person fail or carry on instead.
GUARDS = {
    "GIT_EDITOR": "true",
    "EDITOR": "true",
    "VISUAL": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "MANPAGER": "cat",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
    "NO_COLOR": "1",
}

DESCRIPTION = f"""\
Run a bash command in the workspace root and get its output (stdout and stderr \
together) and exit code. Each call starts a fresh shell: `cd` and variables do not \
carry over, so chain steps with `&&`. There is no input: commands that wait for a \
person (editors, pagers, password prompts) fail instead, so pass flags such as `-y` \
or `--no-edit`. The command is stopped after `timeout` seconds (default \
{DEFAULT_TIMEOUT:.0f}, at most {MAX_TIMEOUT:.0f}). Processes it leaves running in the \
background are stopped when it ends. Long output keeps its start and end. Prefer Read, \
Grep, Glob and Edit for files; use Bash for builds, tests, git and other programs. \
With `run_in_background: true` it returns at once with a shell id and the first output, \
and the command goes on (servers, watchers); `timeout` does not apply to it."""


class BashArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="The bash command to run.")
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT,
        description=f"Seconds before it is stopped (default {DEFAULT_TIMEOUT:.0f}).",
    )
    run_in_background: bool = Field(
        default=False,
        description="Run it in the background and return at once with a shell id "
        "(servers, watchers, long builds); read it with BashOutput, stop it with KillShell.",
    )
    # Claude Code's Bash takes a few words saying what the command does, and models
    # trained on it send them: taken, not offered (the schema stays short).
    description: SkipJsonSchema[str | None] = None


async def run_command(args: BashArgs, context: ToolContext) -> str:
    if args.run_in_background:
        return await _in_background(args.command, context)
    before = watched.snapshot(context.workspace)
    context.checkpoint.before_command()
    try:
        text, ending, process, limit = await _run(args, context)
    finally:
        context.checkpoint.after_command()
        changed = watched.changes(before, watched.snapshot(context.workspace))
    if changed:
        text += "\n\n" + watched.note(changed)
    denial = None
    if context.sandbox is not None and ending != "timeout":
        denied = context.sandbox.denied(text, process.returncode)
        denial = denied.line() if denied is not None else None
    return _verdict(text, ending, process.returncode, limit, denial)


async def _in_background(command: str, context: ToolContext) -> str:
    if context.shells is None:
        raise ToolError(NAME, "Background shells are not available here; run it without.")
    # Imported here: the background module builds on this one.
    from nehanda.tools.background import started

    return started(await context.shells.start(command, context))


async def _run(
    args: BashArgs, context: ToolContext
) -> tuple[str, Ending, asyncio.subprocess.Process, float]:
    limit = args.timeout or DEFAULT_TIMEOUT
    try:
        process = await _start(args.command, context)
    except OSError as error:
        raise ToolError(NAME, f"Cannot start bash: {error.strerror or error}.") from error
    except subprocess.SubprocessError as error:
        raise ToolError(NAME, SANDBOX_FAILED.format(error=error)) from error
    output = HeadTail(MAX_OUTPUT_BYTES)
    ending = await _collect(process, output, limit)
    return output.text().rstrip("\n") or NO_OUTPUT, ending, process, limit


def _verdict(
    text: str, ending: Ending, code: int | None, limit: float, denial: str | None = None
) -> str:
    if ending == "timeout":
        raise ToolError(
            NAME,
            f"{text}\n\nThe command was still running after {limit:g} seconds and was "
            "stopped (with everything it started). Use a longer timeout or a quicker command.",
        )
    if ending == "stragglers":
        text += "\n(processes it left running in the background were stopped)"
    if code != 0:
        said = f"\n{denial}" if denial else ""
        raise ToolError(NAME, f"{text}\n\n{_exit_note(code)}{said}", denial)
    return f"{text}{_CLEAN_EXIT}"


def without_exit_note(output: str) -> str:
    """What the command printed, without the note of its clean exit (a failure is an
    error result, shown whole)."""
    text = output.removesuffix(_CLEAN_EXIT)
    return "" if text == NO_OUTPUT else text


def command_environment(environ: Mapping[str, str], secret: frozenset[str]) -> dict[str, str]:
    """``environ`` without secrets (the names in ``secret``, and every name holding KEY,
    TOKEN, SECRET or PASSWORD, as Codex leaves them out too), plus guards."""
    kept = {
        name: value
        for name, value in environ.items()
        if name not in secret and not SECRET_NAME.search(name)
    }
    return {**kept, **GUARDS}


@contextlib.contextmanager
def launch(context: ToolContext) -> Iterator[tuple[dict[str, str], ChildSteps | None]]:
    """The environment of one command and the sandbox's steps for its child, held while
    the command starts (the foreground's and the background's alike)."""
    environment = command_environment(os.environ, context.secret_env)
    if context.sandbox is None:
        yield environment, None
        return
    with contextlib.ExitStack() as stack:
        try:
            steps = stack.enter_context(context.sandbox.spawn())
        except OSError as error:
            raise ToolError(NAME, SANDBOX_FAILED.format(error=error)) from error
        yield context.sandbox.environment(environment), steps


async def _start(command: str, context: ToolContext) -> asyncio.subprocess.Process:
    """bash running ``command`` in its own process group, inside the context's sandbox.
    Cancelled while starting, it still stops the group: the command may already be
    running once bash has forked."""
    with launch(context) as (environment, steps):
        starting = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                "bash",
                "-c",
                command,
                cwd=context.workspace,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                env=environment,
                preexec_fn=steps,
            )
        )
        try:
            return await asyncio.shield(starting)
        except asyncio.CancelledError:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                await _stop_group(await starting)
            raise


async def _collect(process: asyncio.subprocess.Process, output: HeadTail, limit: float) -> Ending:
    """Gather the output until the command ends, and say how it ended."""
    assert process.stdout is not None
    reading = asyncio.ensure_future(_pump(process.stdout, output))
    try:
        try:
            await asyncio.wait_for(_exited(process), limit)
        except TimeoutError:
            await _stop_group(process)
            return "timeout"
        done, _ = await asyncio.wait({reading}, timeout=PIPE_GRACE)
        if done and not group_alive(process.pid):
            return "exited"
        await _stop_group(process)
        return "stragglers"
    except BaseException:
        await _stop_group(process)
        raise
    finally:
        # Once the group is gone the pipe closes; the last bytes are read, then the reader ends.
        await asyncio.wait({reading}, timeout=PIPE_GRACE)
        reading.cancel()


async def _exited(process: asyncio.subprocess.Process) -> None:
    # Process.wait() also waits for the output pipe to close, which a child left running
    # in the background may hold open for ever; the return code is set at exit itself.
    while process.returncode is None:
        await asyncio.sleep(0.01)


async def _pump(stream: asyncio.StreamReader, output: HeadTail) -> None:
    while chunk := await stream.read(65536):
        output.feed(chunk)


async def _stop_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM to the command's process group; SIGKILL to whatever is left after a grace."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TERM_GRACE
    try:
        signal_group(process.pid, signal.SIGTERM)
        while group_alive(process.pid) and loop.time() < deadline:
            await asyncio.sleep(0.02)
    finally:
        signal_group(process.pid, signal.SIGKILL)
    await process.wait()


def signal_group(group: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signum)


def group_alive(group: int) -> bool:
    """Whether any process of ``group`` still runs; zombies (already dead) do not count."""
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    return any(_live_member(entry, group) for entry in proc.iterdir() if entry.name.isdigit())


def _live_member(entry: Path, group: int) -> bool:
    try:
        stat = (entry / "stat").read_text()
    except OSError:
        return False
    # "pid (name) state ppid pgrp ...": the name may itself hold spaces and parentheses.
    fields = stat[stat.rfind(")") + 2 :].split()
    return len(fields) > 2 and fields[2] == str(group) and fields[0] != "Z"


def _exit_note(code: int | None) -> str:
    if code is not None and code < 0:
        return f"(killed by signal {signal.strsignal(-code) or -code})"
    return f"(exit code {code})"


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=BashArgs,
    read_only=False,
    kind="execute",
    handler=run_command,
    command_argument="command",
    summary_keys=("command",),
    plain_output=without_exit_note,
)
