"""Skill: the body of one of the session's skills, and the files of its folder.

Offered only when the session has skills (``config.skills``); its description lists
each skill's name and description within a budget, so the bodies stay out of the
context until the model asks for one. It only reads what nehanda found at start, and
never asks. Once it has given a skill, the shelf's ``on_load`` hears of it: the gate
then lets Read and the other reading tools into that skill's folder (its resolved
place: no symlink leads out of it) and adds the skill's ``allowed-tools`` rules.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from nehanda.config.skills import SKILL_FILE, Skill
from nehanda.errors import ToolError
from nehanda.tools.base import Tool, ToolContext, compact_schema
from nehanda.types import ToolSpec

NAME = "Skill"
# What the listing of skills may take of the description, in characters.
LISTING_BUDGET = 8000
MAX_LISTED_FILES = 100

INTRO = """\
Loads a skill: instructions, and often scripts and reference files, for one kind of \
task. When a task matches a skill's description, load it first and follow it. Returns \
the skill's instructions and the files of its folder, which you may then Read. \
The skills:"""


class SkillArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The skill's name, as listed.")


def skill_spec(context: ToolContext) -> ToolSpec | None:
    """The Skill tool listing the session's skills; ``None`` when there are none."""
    skills = context.skills.skills
    if not skills:
        return None
    lines, used, left = [], len(INTRO), 0
    for skill in skills.values():
        line = f"\n- {skill.name}: {' '.join(skill.description.split())}"
        if used + len(line) > LISTING_BUDGET:
            left += 1
            continue
        lines.append(line)
        used += len(line)
    more = f"\n(and {left} more, whose descriptions did not fit)" if left else ""
    schema = compact_schema(SkillArgs.model_json_schema())
    description = INTRO + "".join(lines) + more
    # The descriptions are the whole point: a small window gets them too.
    return ToolSpec(NAME, description, schema, brief=description, facts=TOOL.facts)


async def load_skill(args: SkillArgs, context: ToolContext) -> str:
    shelf = context.skills
    skill = shelf.skills.get(args.name.strip())
    if skill is None:
        names = ", ".join(shelf.skills) or "none"
        raise ToolError(NAME, f"There is no skill {args.name!r}. The skills: {names}.")
    files = skill_files(skill)
    shelf.loaded(skill)
    listed = "\n".join(f"- {path}" for path in files[:MAX_LISTED_FILES])
    if len(files) > MAX_LISTED_FILES:
        listed += f"\n(and {len(files) - MAX_LISTED_FILES} more)"
    where = f"The skill's folder is {skill.folder}."
    if files:
        where += f" Its files (Read them when the instructions call for them):\n{listed}"
    return f"{skill.body}\n\n{where}"


def skill_files(skill: Skill) -> list[Path]:
    """The regular files of the skill's folder but ``SKILL.md``, sorted; symlinks and
    hidden entries are left out, and no symlinked folder is entered."""
    found: list[Path] = []
    for folder, subfolders, files in os.walk(skill.folder):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if name.startswith(".") or path.is_symlink() or not path.is_file():
                continue
            if path != skill.folder / SKILL_FILE:
                found.append(path)
    return found


TOOL = Tool(
    name=NAME,
    description=INTRO,
    args_model=SkillArgs,
    read_only=True,
    kind="read",
    handler=load_skill,
    summary_keys=("name",),
    offered_in=skill_spec,
)
