"""The editor's files as the tools read and write them (``tools.base.EditorFiles``).

When the editor offers ACP's ``fs/read_text_file`` and ``fs/write_text_file``, Read,
Write and Edit go through them, once their own checks have passed: the model sees the
editor's unsaved buffers, and its edits land in the editor's undo history. A file is
read whole (no ``line``/``limit``): Read windows it itself, and says how long it is.
What a call read and wrote is kept for the diff the editor is shown after it.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from pathlib import Path

from acp import Client, RequestError
from acp.schema import ClientCapabilities


def offers_files(capabilities: ClientCapabilities) -> bool:
    """Whether the editor reads and writes files for the agent (both, or neither is used)."""
    files = capabilities.fs
    return files is not None and bool(files.read_text_file) and bool(files.write_text_file)


@dataclass
class EditorBuffers:
    """The editor's files over the connection, for the session ``session_id`` (set once
    the session is open, before its first prompt)."""

    client: Client
    session_id: str = ""
    _read: dict[Path, str] = field(default_factory=dict)
    _written: dict[Path, tuple[str | None, str]] = field(default_factory=dict)

    async def read_text(self, path: Path) -> str:
        try:
            answer = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        except RequestError as error:
            raise OSError(errno.EIO, f"the editor could not read it: {error}") from None
        self._read[path] = answer.content
        return answer.content

    async def write_text(self, path: Path, text: str) -> None:
        try:
            await self.client.write_text_file(
                session_id=self.session_id, path=str(path), content=text
            )
        except RequestError as error:
            raise OSError(errno.EIO, f"the editor could not write it: {error}") from None
        self._written[path] = (self._read.pop(path, None), text)

    def change(self, path: Path) -> tuple[str | None, str] | None:
        """The text a call last wrote to ``path`` through the editor, and the text it read
        there first (``None``: it read none); ``None`` when it wrote none. Forgotten once told."""
        return self._written.pop(path, None)
