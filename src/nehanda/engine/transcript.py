"""The session log: an append-only JSONL file per session, under the XDG state dir.

Each record is one line, flushed and fsynced as it happens, so a crash or kill loses
at most the record in flight; a truncated last line is skipped (with a warning) when
the log is read back, and the next record written starts a line of its own. Values of
environment variables whose names say they are secrets (KEY, TOKEN, SECRET, PASSWORD)
are redacted before anything is written.

Images and documents' bytes are kept by content hash in ``images/`` beside the logs
(``engine.blobs``); a record names the hash, and reading the log back loads them.

A ``compaction`` record says that the conversation went on from a summary and the
``kept`` most recent messages: reading the log back restores that state, while every
message before it stays in the file.

A ``prompt`` record follows the user message each prompt added, naming it (``number``)
and the checkpoint turn it ran as (``turn``). A ``rewind`` record (the REPL's
``/rewind``) says that the conversation went back to just before prompt ``number``:
reading the log back drops that prompt's message and everything after it, which stays
in the file too.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from nehanda.engine.blobs import Blobs
from nehanda.errors import ConfigError, StorageError
from nehanda.fs import state_dir
from nehanda.secret_env import redact
from nehanda.types import (
    DocumentPart,
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolResult,
    ToolUse,
)


def sessions_dir() -> Path:
    return state_dir() / "sessions"


def new_session_id() -> str:
    """Sortable by start time, unique enough for one user's sessions."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


GONE = "[an image or document was attached here; its copy beside the session log is gone]"


def part_to_json(part: Part, blobs: Blobs) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ReasoningPart):
        return {"type": "reasoning", "text": part.text, "signature": part.signature}
    if isinstance(part, ImagePart):
        return _image_to_json(part, blobs)
    if isinstance(part, DocumentPart):
        digest = None if part.data is None else blobs.put(part.data)
        return {"type": "document", "media_type": part.media_type, "sha256": digest,
                "text": part.text, "url": part.url, "title": part.title}  # fmt: skip
    if isinstance(part, ToolUse):
        return {
            "type": "tool_use",
            "id": part.id,
            "name": part.name,
            "input": part.input,
            "origin": part.origin,
            "input_error": part.input_error,
        }
    record: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": part.tool_use_id,
        "content": part.content,
        "is_error": part.is_error,
    }
    if part.images:
        record["images"] = [_image_to_json(image, blobs) for image in part.images]
    return record


def _image_to_json(image: ImagePart, blobs: Blobs) -> dict[str, Any]:
    digest = None if image.data is None else blobs.put(image.data)
    return {"type": "image", "media_type": image.media_type, "sha256": digest,
            "url": image.url, "name": image.name}  # fmt: skip


def part_from_json(data: Mapping[str, Any], blobs: Blobs) -> Part:
    kind = data["type"]
    if kind == "text":
        return TextPart(data["text"])
    if kind == "reasoning":
        return ReasoningPart(data["text"], data.get("signature"))
    if kind == "image":
        return _image_from_json(data, blobs) or TextPart(GONE)
    if kind == "document":
        stored = blobs.get(data["sha256"]) if data.get("sha256") else None
        if data.get("sha256") and stored is None:
            return TextPart(GONE)
        return DocumentPart(
            data["media_type"], stored, data.get("url"), data.get("text"), data.get("title", "")
        )
    if kind == "tool_use":
        return ToolUse(
            data["id"],
            data["name"],
            dict(data["input"]),
            data.get("origin", "native"),
            data.get("input_error"),
        )
    if kind == "tool_result":
        found = [_image_from_json(image, blobs) for image in data.get("images", ())]
        images = tuple(image for image in found if image is not None)
        content = "\n".join([data["content"], *[GONE] * (len(found) - len(images))])
        return ToolResult(data["tool_use_id"], content, bool(data.get("is_error")), images=images)
    raise ValueError(f"unknown part type {kind!r}")


def _image_from_json(data: Mapping[str, Any], blobs: Blobs) -> ImagePart | None:
    """The image a record names; ``None`` when its stored bytes are gone."""
    image = ImagePart(data["media_type"], None, data.get("url"), data.get("name", ""))
    if not data.get("sha256"):
        return image
    stored = blobs.get(data["sha256"])
    return None if stored is None else replace(image, data=stored)


def message_to_json(message: Message, blobs: Blobs) -> dict[str, Any]:
    return {"role": message.role, "parts": [part_to_json(p, blobs) for p in message.parts]}


def message_from_json(data: Mapping[str, Any], blobs: Blobs) -> Message:
    return Message(data["role"], tuple(part_from_json(p, blobs) for p in data["parts"]))


class SessionLog:
    """Appends records to one session's file; every write is durable before it returns.

    A write that fails (a full disk) is taken back whole, so the file keeps every record
    written before it and no torn line, and raises ``StorageError`` saying so.
    """

    def __init__(self, path: Path, redacted: tuple[str, ...] = ()) -> None:
        self.path = path
        self.redacted = redacted
        self.blobs = Blobs.beside(path)
        self._file: IO[bytes] | None = None

    def append(self, record: Mapping[str, Any]) -> None:
        line = redact(json.dumps(record, ensure_ascii=False), self.redacted)
        data = (line + "\n").encode("utf-8", "backslashreplace")
        try:
            if self._file is None:
                self._file = self._open()
            self._write(self._file, data)
        except OSError as error:
            raise StorageError(
                f"cannot write the session log {self.path}: {error.strerror or error}; "
                "free some space or fix the folder (the conversation up to here is in it)"
            ) from None

    @staticmethod
    def _write(file: IO[bytes], data: bytes) -> None:
        size = file.seek(0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:  # a raw write may take only part of it
                view = view[file.write(view) :]
            os.fsync(file.fileno())
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(file.fileno(), size)
            raise

    def message(self, message: Message) -> None:
        self.append({"type": "message", "message": message_to_json(message, self.blobs)})

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _open(self) -> IO[bytes]:
        """The log opened for appending, ready for a new line even after a torn one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Unbuffered: a failed write must not linger in a buffer to be written later.
        file = self.path.open("ab", buffering=0)
        if _ends_mid_line(self.path):
            # Glued onto the torn fragment, the next record would be lost with it.
            self._write(file, b"\n")
        return file


def _ends_mid_line(path: Path) -> bool:
    with path.open("rb") as file:
        if file.seek(0, os.SEEK_END) == 0:
            return False
        file.seek(-1, os.SEEK_END)
        return file.read(1) != b"\n"


@dataclass(frozen=True)
class SubagentLog:
    """A subagent's conversation as logged, under the call that started it."""

    agent: str
    answer: str
    messages: tuple[Message, ...]
    error: bool = False


@dataclass(frozen=True)
class PromptMark:
    """Where one prompt of the conversation begins: its ``message`` (the very object in
    the conversation, whose place is found by identity), its ``number`` in the session,
    the checkpoint ``turn`` it ran as (``None`` without checkpoints) and its ``text`` as
    typed."""

    number: int
    turn: int | None
    text: str
    message: Message = field(compare=False)


def live_marks(marks: list[PromptMark], messages: list[Message]) -> list[PromptMark]:
    """The ``marks`` whose message is still in ``messages`` (a compaction replaces old
    ones), in order."""
    present = {id(message) for message in messages}
    return [mark for mark in marks if id(mark.message) in present]


def rewound(messages: list[Message], mark: PromptMark) -> list[Message]:
    """``messages`` as they were just before ``mark``'s prompt was added."""
    for index, message in enumerate(messages):
        if message is mark.message:
            return messages[:index]
    raise ValueError(f"prompt {mark.number} is no longer in the conversation")


@dataclass
class Session:
    """A session read back: its header, its messages (as the next request would send
    them: a compaction's summary in place of what it replaced), its subagents'
    conversations by their parent call's id, and what was wrong with the file.
    ``first_prompt`` and ``turns`` count the whole log, compacted or not."""

    id: str
    header: dict[str, Any] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    subagents: dict[str, SubagentLog] = field(default_factory=dict)
    first_prompt: str = ""  # the first thing the user asked: the session's title
    turns: int = 0  # the model's replies
    prompts: list[PromptMark] = field(default_factory=list)  # those /rewind may go back to
    prompts_logged: int = 0  # every prompt record, those rewound or compacted away too

    def add(self, message: Message) -> None:
        if message.role == "user" and not self.first_prompt:
            self.first_prompt = message.text
        self.turns += message.role == "assistant"
        self.messages.append(message)


def read_session(path: Path) -> Session:
    session = Session(path.stem)
    blobs = Blobs.beside(path)
    # Bytes, decoded per record: a line torn inside a character spoils only itself.
    with path.open("rb") as file:
        for number, line in enumerate(file, 1):
            _read_record(session, path, number, line, blobs)
    return session


def _read_record(session: Session, path: Path, number: int, line: bytes, blobs: Blobs) -> None:
    try:
        record = json.loads(line)
        kind = record["type"]
        if kind == "session":
            session.header = record
        elif kind == "message":
            session.add(message_from_json(record["message"], blobs))
        elif kind == "subagent":
            messages = tuple(message_from_json(m, blobs) for m in record["messages"])
            agent, answer, error = str(record["agent"]), str(record["answer"]), record["error"]
            log = SubagentLog(agent, answer, messages, bool(error))
            session.subagents[str(record["parent"])] = log
        elif kind == "compaction":
            kept = int(record["kept"])
            recent = session.messages[len(session.messages) - kept :] if kept > 0 else []
            session.messages = [message_from_json(record["summary"], blobs), *recent]
            session.prompts = live_marks(session.prompts, session.messages)
        elif kind == "prompt":
            _read_prompt(session, record)
        elif kind == "rewind":
            _read_rewind(session, int(record["number"]))
    except (ValueError, KeyError, TypeError) as exc:
        session.warnings.append(f"{path}:{number}: skipped an unreadable record ({exc})")


def _read_prompt(session: Session, record: Mapping[str, Any]) -> None:
    number, turn = int(record["number"]), record.get("turn")
    last = session.messages[-1] if session.messages else None
    if last is None or last.role != "user":
        raise ValueError(f"prompt {number} follows no message of the user")
    mark = PromptMark(number, None if turn is None else int(turn), str(record["text"]), last)
    session.prompts.append(mark)
    session.prompts_logged = max(session.prompts_logged, number)


def _read_rewind(session: Session, number: int) -> None:
    found = [mark for mark in session.prompts if mark.number == number]
    if not found:
        raise ValueError(f"a rewind to prompt {number}, which the conversation no longer has")
    session.messages = rewound(session.messages, found[0])
    session.prompts = live_marks(session.prompts, session.messages)


def iter_sessions(directory: Path | None = None) -> Iterator[Path]:
    """Session files, the most recently written first."""
    directory = directory or sessions_dir()
    if directory.is_dir():
        paths = [(path.stat().st_mtime, path.name, path) for path in directory.glob("*.jsonl")]
        yield from (path for _, _, path in sorted(paths, reverse=True))


def find_session(session_id: str) -> Session:
    """The logged session ``session_id``, or the one whose id, or whose id's last part,
    starts with it (``5ea999`` for ``20261203-171550-5ea999``); ``ConfigError`` when
    there is none, or more than one."""
    listed = "`nehanda sessions` lists them"
    if not session_id or not all(char.isalnum() or char in "-_" for char in session_id):
        raise ConfigError(f"{session_id!r} is no session id; {listed}")
    path = sessions_dir() / f"{session_id}.jsonl"
    if path.is_file():
        return read_session(path)
    found = [
        other
        for other in iter_sessions()
        if other.stem.startswith(session_id) or other.stem.rpartition("-")[2].startswith(session_id)
    ]
    if not found:
        raise ConfigError(f"no session {session_id!r}; {listed}")
    if len(found) > 1:
        named = ", ".join(other.stem for other in found[:3])
        raise ConfigError(
            f"{session_id!r} starts {len(found)} sessions' ids ({named}…); give more of it"
        )
    return read_session(found[0])


def latest_session(workspace: Path, directory: Path | None = None) -> Session | None:
    for path in iter_sessions(directory):
        session = read_session(path)
        if session.header.get("workspace") == str(workspace):
            return session
    return None
