"""``nehanda sessions``: the saved sessions as a table, newest first."""

from __future__ import annotations

from pathlib import Path

from nehanda.engine.transcript import iter_sessions, read_session

MAX_LISTED = 50


def describe_sessions(workspace: Path | None, directory: Path | None = None) -> str:
    """Sessions of ``workspace`` (or of every folder when ``None``), one line each."""
    rows = []
    for path in iter_sessions(directory):
        session = read_session(path)
        folder = session.header.get("workspace", "?")
        if workspace is not None and folder != str(workspace):
            continue
        started = str(session.header.get("started", "?"))[:16].replace("T", " ")
        prompt = " ".join(session.first_prompt.split())
        prompt = prompt if len(prompt) <= 60 else prompt[:59] + "…"
        rows.append(f"{session.id}  {started}  {session.turns:>5}  {folder}  {prompt}")
        if len(rows) == MAX_LISTED:
            break
    if not rows:
        where = f" in {workspace}" if workspace else ""
        return f"no sessions{where} yet"
    return "\n".join([f"{'id':22}  {'started':16}  {'turns':>5}  folder  first prompt", *rows])
