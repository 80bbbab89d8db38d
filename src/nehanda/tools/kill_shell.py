"""KillShell: stop one background shell, with Claude Code's arguments ``{"shell_id"}``.

Only shells this session started (``ToolContext.shells``) can be named, so it can stop
nothing else: its facts say it reads only (it changes nothing beyond what the session's
own approved commands started), so it runs without asking; its kind is ``execute``, so
plan mode, where no command runs, neither offers nor runs it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.tools.base import Tool, ToolContext

NAME = "KillShell"

DESCRIPTION = """\
Stop a background shell (a Bash command run with `run_in_background: true`) and \
everything it started. `shell_id` is the id Bash gave, e.g. bash_1."""


class KillShellArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    shell_id: str = Field(min_length=1, description="The shell id Bash gave, e.g. bash_1.")


async def kill_shell(args: KillShellArgs, context: ToolContext) -> str:
    if context.shells is None:
        raise ToolError(NAME, "There are no background shells here.")
    return await context.shells.kill(args.shell_id, NAME)


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=KillShellArgs,
    read_only=True,
    kind="execute",
    handler=kill_shell,
    summary_keys=("shell_id",),
)
