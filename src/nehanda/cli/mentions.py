"""``@path`` in a prompt: the file's contents attached for the model.

A mention is ``@`` at the start of a word followed by a path (``@"a b.txt"`` for one
with spaces); punctuation closing a sentence is not part of it. Only a path that names
an existing file counts, so an e-mail address or a ``@decorator`` stays as typed. The
file is read by the Read tool through the session's gate, as a call of the model's
would be: a Read deny rule keeps it out, a file outside the workspace asks (and is
refused where nobody can be asked), secrets are masked and the size capped.

``attach`` is the one place a mentioned file becomes part of the prompt: its text, or,
for a PNG, JPEG, GIF or WebP image (known by its content, not its name), the image the
Read tool shows, sent with the prompt.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from nehanda.types import ImagePart, JsonObject, ToolResult, Toolset, ToolUse

_MENTION = re.compile(r'(?:(?<=\s)|^)@(?:"([^"\n]+)"|([^\s"]+))')
_TRAILING = ".,;:!?)]}'"


def find_mentions(text: str) -> list[str]:
    """The paths ``text`` mentions with ``@``, in order, each once, as typed."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        path = match.group(1) or match.group(2).rstrip(_TRAILING)
        if path and path not in found:
            found.append(path)
    return found


def mentioned_file(typed: str, workspace: Path) -> Path | None:
    """The file ``typed`` names (relative to the workspace, ``~`` for home), if one exists."""
    path = workspace / Path(typed).expanduser()
    try:
        return path if path.is_file() else None
    except OSError:
        return None


@dataclass(frozen=True)
class Attached:
    text: str  # what the prompt gains
    notes: tuple[str, ...] = ()  # what the user is told (a file left out, and why)
    images: tuple[ImagePart, ...] = ()  # sent with the prompt


async def attach_mentions(
    text: str, workspace: Path, toolset: Toolset, written: str | None = None
) -> Attached:
    """``text`` with each file mentioned in ``written`` (the part of it a person wrote,
    not a command's output; all of it by default) attached after it."""
    blocks, notes, images = [text], list[str](), list[ImagePart]()
    for typed in find_mentions(text if written is None else written):
        path = mentioned_file(typed, workspace)
        if path is None:
            continue
        one = await attach(typed, path, toolset)
        blocks += [one.text] if one.text else []
        notes += one.notes
        images += one.images
    return Attached("\n\n".join(blocks), tuple(notes), tuple(images))


async def attach(typed: str, path: Path, toolset: Toolset) -> Attached:
    """What ``@typed`` adds to the prompt: what the Read tool shows of the file, an image
    as an image; a note instead when it adds nothing."""
    result = await run_call(toolset, "Read", {"file_path": str(path)})
    if result.is_error:
        return Attached("", (f"@{typed} was not attached: {result.content}",))
    if result.images:
        return Attached(
            f"The user attached the image @{typed} ({result.content}).", (), result.images
        )
    return Attached(f"The user attached @{typed} (as the Read tool shows it):\n{result.content}")


async def run_call(toolset: Toolset, name: str, arguments: JsonObject) -> ToolResult:
    """A call nehanda makes for the user (``@path``, ``!command``), checked and run by
    ``toolset`` (the session's gate) as a call of the model's would be."""
    use = ToolUse(f"user_{uuid.uuid4().hex[:12]}", name, arguments)
    checked = toolset.check(use)
    if isinstance(checked, ToolResult):
        return checked
    return await toolset.run(checked)
