"""BashOutput: what a background shell printed since the last read, and whether it ended.

Claude Code's arguments: ``{"bash_id", "filter"}``, the filter a regular expression
that keeps only the lines it matches (the others are read all the same). It reads only
shells this session started (``ToolContext.shells``), so it changes nothing and runs
without asking, in plan mode too.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import ToolError
from nehanda.tools.base import Tool, ToolContext

NAME = "BashOutput"

DESCRIPTION = """\
Get the new output of a background shell (a Bash command run with \
`run_in_background: true`): what it printed since the last read, and its status \
(running, or ended with its exit code). `filter`, a regular expression, keeps only the \
lines that match it; the other new lines are read too and will not come back."""


class BashOutputArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bash_id: str = Field(min_length=1, description="The shell id Bash gave, e.g. bash_1.")
    filter: str | None = Field(
        default=None, description="A regular expression: only the lines it matches."
    )


async def bash_output(args: BashOutputArgs, context: ToolContext) -> str:
    if context.shells is None:
        raise ToolError(NAME, "There are no background shells here.")
    return context.shells.read(args.bash_id, args.filter, NAME)


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=BashOutputArgs,
    read_only=True,
    kind="read",
    handler=bash_output,
    summary_keys=("bash_id",),
)
