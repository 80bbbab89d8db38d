"""Skills: folders holding a ``SKILL.md``, found and read as the Agent Skills
specification (agentskills.io) has them.

``SKILL.md`` opens with YAML front matter: ``name`` (1–64 lowercase letters, digits and
single hyphens, neither first nor last, and the folder's own name), ``description``
(1–1024 characters), and optionally ``license``, ``compatibility`` (at most 500
characters), ``metadata`` (a map of texts) and ``allowed-tools`` (separated by spaces
or commas). A skill whose front matter breaks a rule is named with the reason, once,
and left out. Only the name and description are offered to the model; the body is
given when the model asks for the skill (the ``Skill`` tool).

``SkillShelf`` is the session's skills, shared by the ``Skill`` tool and the gate: the
tool tells ``on_load`` which skill it gave, and the gate lets the model read that
skill's folder and adds its ``allowed-tools`` rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nehanda.config.extension_files import Scope, places, untrusted_notes
from nehanda.config.front_matter import (
    FrontMatterError,
    list_field,
    split_front_matter,
    text_field,
)

SKILL_FILE = "SKILL.md"
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
MAX_NAME, MAX_DESCRIPTION, MAX_COMPATIBILITY = 64, 1024, 500
MAX_SKILL_FILE = 512 * 1024
MAX_SKILLS = 200  # per folder


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: Path  # as found (it may be a symlink a user keeps there)
    scope: Scope
    body: str
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()


@dataclass
class SkillShelf:
    """The skills of a session by name; ``on_load`` hears of each one given to the model."""

    skills: dict[str, Skill] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    on_load: Callable[[Skill], None] | None = None

    def loaded(self, skill: Skill) -> None:
        if self.on_load is not None:
            self.on_load(skill)


def load_skills(workspace: Path, *, trusted: bool) -> SkillShelf:
    """Every skill that counts here, by name, and a note for each left out."""
    found: dict[str, Skill] = {}
    notes: list[str] = []
    for place in places("skills", workspace, trusted=trusted):
        for folder in _skill_folders(place.folder):
            try:
                skill = read_skill(folder, place.scope)
            except (OSError, FrontMatterError, ValueError) as error:
                notes.append(f"skill {folder.name} ({folder / SKILL_FILE}): left out: {error}")
                continue
            if skill.name in found:
                kept = found[skill.name].folder
                notes.append(f"skill {skill.name}: {folder} is not used; {kept} has the name")
                continue
            found[skill.name] = skill
    if not trusted:
        notes += untrusted_notes("skills", workspace)
    return SkillShelf(found, tuple(notes))


def _skill_folders(root: Path) -> list[Path]:
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return []
    return [entry for entry in entries if (entry / SKILL_FILE).is_file()][:MAX_SKILLS]


def read_skill(folder: Path, scope: Scope) -> Skill:
    """The skill in ``folder``; ``FrontMatterError`` or ``ValueError`` saying what is wrong."""
    with (folder / SKILL_FILE).open("rb") as file:
        raw = file.read(MAX_SKILL_FILE + 1)
    if len(raw) > MAX_SKILL_FILE:
        raise ValueError(f"{SKILL_FILE} is longer than {MAX_SKILL_FILE} bytes")
    document = split_front_matter(raw.decode("utf-8", errors="replace"))
    fields = document.fields
    if not fields:
        raise FrontMatterError("it has no front matter (--- name, description ---)")
    name = check_name(text_field(fields, "name"), folder.name)
    description = _limited(fields, "description", MAX_DESCRIPTION, required=True)
    return Skill(
        name,
        description or "",
        folder,
        scope,
        document.body.strip(),
        text_field(fields, "license"),
        _limited(fields, "compatibility", MAX_COMPATIBILITY, required=False),
        _metadata(fields.get("metadata")),
        list_field(fields, "allowed-tools"),
    )


def check_name(name: str | None, folder: str) -> str:
    """``name`` if the specification allows it for a skill kept in ``folder``."""
    if not name:
        raise FrontMatterError("name is missing")
    if len(name) > MAX_NAME or not NAME.fullmatch(name):
        raise FrontMatterError(
            f"name {name!r} must be 1-{MAX_NAME} lowercase letters, digits and single "
            "hyphens, not starting or ending with one"
        )
    if name != folder:
        raise FrontMatterError(f"name {name!r} must be the folder's name, {folder!r}")
    return name


def _limited(fields: dict[str, Any], name: str, most: int, *, required: bool) -> str | None:
    value = text_field(fields, name)
    if value is not None:
        value = value.strip()
    if not value:
        if required:
            raise FrontMatterError(f"{name} is missing")
        return None
    if len(value) > most:
        raise FrontMatterError(f"{name} is longer than {most} characters")
    return value


def _metadata(value: object) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(key, str) and isinstance(item, str | int | float | bool)
        for key, item in value.items()
    ):
        raise FrontMatterError("metadata must be a map of names to texts")
    return {key: str(item) for key, item in value.items()}
