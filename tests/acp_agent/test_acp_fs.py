"""The editor's files: when the editor offers ``fs/read_text_file`` and
``fs/write_text_file``, Read, Write and Edit go through them (its unsaved buffers), and
every check they make still comes first: the editor is never asked for a path outside
the workspace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_editor import Editor, ask, drive
from scripted_calls import calls_stream, text_stream
from scripted_server import ScriptedServer


def tool_results(server: ScriptedServer) -> list[str]:
    messages = server.requests[-1].body["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


def calls_then_answer(server: ScriptedServer, calls: list[tuple[str, dict[str, Any]]]) -> None:
    server.stream(calls_stream(calls))
    server.stream(text_stream("Done."))


def test_read_sees_a_buffer_never_saved(server: ScriptedServer, tmp_path: Path) -> None:
    unsaved = str(tmp_path.resolve() / "scratch.py")
    calls_then_answer(server, [("Read", {"file_path": "scratch.py"})])
    editor = Editor(buffers={unsaved: "print('only in the editor')\n"})
    assert drive(editor, server, tmp_path, ask) == "end_turn"
    (result,) = tool_results(server)
    assert "1\tprint('only in the editor')" in result
    assert editor.fs_calls == [("read", unsaved)]
    assert not (tmp_path / "scratch.py").exists()


def test_edit_and_write_land_in_the_editors_buffers(server: ScriptedServer, tmp_path: Path) -> None:
    draft = tmp_path.resolve() / "draft.py"
    draft.write_text("x = 1\n")  # as saved; the buffer has moved on
    new = str(tmp_path.resolve() / "new.txt")
    edit = {"file_path": "draft.py", "old_string": "y = 2", "new_string": "y = 3"}
    calls_then_answer(server, [("Edit", edit)])
    calls_then_answer(server, [("Write", {"file_path": "new.txt", "content": "fresh\n"})])
    editor = Editor(answer="allow_once", buffers={str(draft): "x = 1\ny = 2\n"})

    async def twice(conn: Any, session_id: str) -> None:
        await ask(conn, session_id, "Edit the draft.")
        await ask(conn, session_id, "Write the new file.")

    drive(editor, server, tmp_path, twice)
    assert editor.buffers == {str(draft): "x = 1\ny = 3\n", new: "fresh\n"}
    assert draft.read_text() == "x = 1\n" and not Path(new).exists()
    assert editor.fs_calls == [("read", str(draft)), ("write", str(draft)), ("write", new)]
    diffs = [u.content[0] for u in editor.of_kind("tool_call_update") if u.status == "completed"]
    assert (diffs[0].old_text, diffs[0].new_text) == ("x = 1\ny = 2\n", "x = 1\ny = 3\n")
    assert diffs[1].new_text == "fresh\n"


def test_the_editor_is_never_asked_for_a_path_outside_the_workspace(
    server: ScriptedServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (tmp_path / "x").write_text("beside the project\n")
    outside = [
        ("Read", {"file_path": "/etc/passwd"}),
        ("Read", {"file_path": "../x"}),
        ("Edit", {"file_path": "../x", "old_string": "beside", "new_string": "inside"}),
        ("Write", {"file_path": "../y", "content": "escaped\n"}),
    ]
    calls_then_answer(server, outside)
    editor = Editor(answer="reject_once", buffers={"/etc/passwd": "root:x:0:0\n"})
    assert drive(editor, server, workspace, ask) == "end_turn"
    assert editor.fs_calls == []
    assert not any("root:" in result for result in tool_results(server))
    assert (tmp_path / "x").read_text() == "beside the project\n"
    assert not (tmp_path / "y").exists()


def test_without_fs_offered_the_tools_use_the_disk(server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("on disk\n")
    calls_then_answer(server, [("Read", {"file_path": "a.txt"})])
    editor = Editor()
    assert drive(editor, server, tmp_path, ask) == "end_turn"
    (result,) = tool_results(server)
    assert "1\ton disk" in result and editor.fs_calls == []
