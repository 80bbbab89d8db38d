"""``nehanda acp`` as an editor meets it: the SDK's client side drives the real command in
a child process, against a scripted model server on 127.0.0.1.

A turn streams as ``session/update`` notifications and ends ``end_turn``; a Write asks
through ``session/request_permission`` and runs or not as the editor answers; cancel stops
a turn mid-stream or mid-question; ``session/set_mode`` changes what asks; a logged
session loads again as its history; an MCP server the editor passes serves the session;
rescue mode works the same way.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any

from acp_editor import Editor, ask, connected, drive
from mcp_session import write_settings
from scripted_calls import calls_stream, chunk, rescue_calls_stream, text_stream
from scripted_server import ScriptedServer

NOTES = Path(__file__).parents[1] / "fixtures" / "mcp" / "notes_server.py"


def write_then_answer(server: ScriptedServer, path: str, content: str) -> None:
    server.stream(calls_stream([("Write", {"file_path": path, "content": content})]))
    server.stream(text_stream("Done."))


def test_a_reply_streams_as_message_chunks_and_ends_the_turn(
    server: ScriptedServer, tmp_path: Path, isolated_home: Path
) -> None:
    server.stream("openai_vllm_reasoning_content.sse")
    editor = Editor()
    stop = drive(editor, server, tmp_path, ask)
    assert stop == "end_turn"
    assert editor.of_kind("agent_thought_chunk"), editor.kinds()
    assert editor.text().strip()
    # An ACP session is a nehanda session: logged where `nehanda sessions` reads.
    logged = list((isolated_home / "xdg_state_home" / "nehanda" / "sessions").glob("*.jsonl"))
    assert len(logged) == 1 and editor.text().strip() in logged[0].read_text()


def test_a_write_asks_the_editor_and_runs_when_allowed(
    server: ScriptedServer, tmp_path: Path
) -> None:
    write_then_answer(server, "note.txt", "hello\n")
    editor = Editor(answer="allow_once")
    assert drive(editor, server, tmp_path, ask) == "end_turn"
    assert (tmp_path / "note.txt").read_text() == "hello\n"
    (question,) = editor.asked
    assert question.tool_call_id == "call-0" and question.kind == "edit"
    assert question.locations[0].path == str(tmp_path / "note.txt")
    (start,) = editor.of_kind("tool_call")
    assert start.title.startswith("Write") and start.kind == "edit"
    statuses = [u.status for u in editor.of_kind("tool_call_update")]
    assert statuses == ["in_progress", "completed"]
    diff = editor.of_kind("tool_call_update")[-1].content[0]
    assert diff.type == "diff" and diff.old_text is None and diff.new_text == "hello\n"
    assert diff.path == str(tmp_path / "note.txt")


def test_a_write_the_editor_rejects_never_runs(server: ScriptedServer, tmp_path: Path) -> None:
    write_then_answer(server, "note.txt", "hello\n")
    editor = Editor(answer="reject_once")
    assert drive(editor, server, tmp_path, ask) == "end_turn"
    assert not (tmp_path / "note.txt").exists()
    (update,) = editor.of_kind("tool_call_update")
    assert update.status == "failed"
    result = server.requests[-1].body["messages"][-1]
    assert result["role"] == "tool" and "said no in the editor" in result["content"]


def test_reject_always_refuses_the_next_such_call_without_asking(
    server: ScriptedServer, tmp_path: Path, isolated_home: Path
) -> None:
    write_then_answer(server, "note.txt", "one\n")
    write_then_answer(server, "note.txt", "two\n")
    editor = Editor(answer="reject_always")

    async def twice(conn: Any, session_id: str) -> None:
        await ask(conn, session_id)
        await ask(conn, session_id)

    drive(editor, server, tmp_path, twice)
    assert len(editor.asked) == 1 and not (tmp_path / "note.txt").exists()


def test_cancel_stops_a_reply_mid_stream(server: ScriptedServer, tmp_path: Path) -> None:
    first = chunk({"role": "assistant", "content": "First words. "})
    rest = chunk({"content": "more words"}) + chunk({"content": ""}, "stop") + "data: [DONE]\n\n"
    body = f": vLLM 0.8, a reply held after its first words\n{first}{rest}".encode()
    server.stream(body, piece=1, stall_after=len(body) - len(rest.encode()), held=threading.Event())
    editor = Editor()

    async def cancelled(conn: Any, session_id: str) -> str:
        turn = asyncio.ensure_future(ask(conn, session_id, "Say a lot."))
        await editor.until(lambda: "First words." in editor.text())
        await conn.cancel(session_id=session_id)
        return await turn

    assert drive(editor, server, tmp_path, cancelled) == "cancelled"
    assert "more words" not in editor.text()


def test_a_turn_cancelled_while_asking_is_a_refusal(server: ScriptedServer, tmp_path: Path) -> None:
    write_then_answer(server, "note.txt", "hello\n")
    editor = Editor(answer=None)

    async def cancelled(conn: Any, session_id: str) -> str:
        turn = asyncio.ensure_future(ask(conn, session_id))
        await editor.until(lambda: bool(editor.asked))
        await conn.cancel(session_id=session_id)
        return await turn

    assert drive(editor, server, tmp_path, cancelled) == "cancelled"
    assert not (tmp_path / "note.txt").exists()


def test_set_mode_yolo_runs_the_write_without_asking(
    server: ScriptedServer, tmp_path: Path
) -> None:
    write_then_answer(server, "note.txt", "hello\n")
    editor = Editor(answer="reject_once")

    async def in_yolo(conn: Any, session_id: str) -> str:
        await conn.set_session_mode(session_id=session_id, mode_id="yolo")
        return await ask(conn, session_id)

    assert drive(editor, server, tmp_path, in_yolo) == "end_turn"
    assert not editor.asked and (tmp_path / "note.txt").read_text() == "hello\n"


def test_plan_mode_refuses_the_write_without_asking(server: ScriptedServer, tmp_path: Path) -> None:
    write_then_answer(server, "note.txt", "hello\n")
    editor = Editor(answer="allow_once")

    async def in_plan(conn: Any, session_id: str) -> str:
        await conn.set_session_mode(session_id=session_id, mode_id="plan")
        return await ask(conn, session_id)

    drive(editor, server, tmp_path, in_plan)
    assert not editor.asked and not (tmp_path / "note.txt").exists()


def test_an_unknown_mode_is_an_error_naming_the_modes(
    server: ScriptedServer, tmp_path: Path
) -> None:
    async def bad_mode(conn: Any, session_id: str) -> str:
        try:
            await conn.set_session_mode(session_id=session_id, mode_id="careless")
        except Exception as error:
            return str(error)
        return ""

    said = drive(Editor(), server, tmp_path, bad_mode)
    assert "careless" in said and "accept-edits" in said


def test_an_earlier_session_loads_and_replays_its_history(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(text_stream("The answer is 42."))
    first = Editor()

    async def once(conn: Any, session_id: str) -> str:
        await ask(conn, session_id, "What is the answer?")
        return session_id

    session_id = drive(first, server, tmp_path, once)
    server.stream(text_stream("Still 42."))
    second = Editor()

    async def load() -> str:
        async with connected(second, server.base_url, tmp_path) as conn:
            await conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
            replayed = list(second.kinds())
            assert replayed == ["user_message_chunk", "agent_message_chunk"]
            return await ask(conn, session_id, "And now?")

    assert asyncio.run(load()) == "end_turn"
    assert second.of_kind("user_message_chunk")[0].content.text == "What is the answer?"
    sent = [m["content"] for m in server.requests[-1].body["messages"] if m["role"] != "system"]
    assert sent == ["What is the answer?", "The answer is 42.", "And now?"]


def test_an_mcp_server_the_editor_passes_serves_the_session(
    server: ScriptedServer, tmp_path: Path
) -> None:
    import sys

    from acp.schema import EnvVariable, McpServerStdio

    calls = tmp_path / "calls.jsonl"
    write_settings("")  # the first request waits for the server however long it takes
    server.stream(calls_stream([("mcp__notes__add_note", {"text": "from the editor"})]))
    server.stream(text_stream("Saved."))
    editor = Editor(answer="allow_once")
    notes = McpServerStdio(
        name="notes",
        command=sys.executable,
        args=[str(NOTES), "stdio"],
        env=[EnvVariable(name="NOTES_LOG", value=str(calls))],
    )

    async def with_notes() -> str:
        async with connected(editor, server.base_url, tmp_path) as conn:
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[notes])
            return await ask(conn, opened.session_id, "Save a note.")

    assert asyncio.run(with_notes()) == "end_turn"
    offered = [tool["function"]["name"] for tool in server.requests[0].body["tools"]]
    assert "mcp__notes__add_note" in offered
    added = [json.loads(line) for line in calls.read_text().splitlines()]
    assert {"event": "add_note", "text": "from the editor", "priority": 1} in added
    (update,) = editor.of_kind("tool_call_update")[-1:]
    assert update.status == "completed" and "saved 'from the editor'" in str(update.content)


def test_rescue_mode_streams_prose_and_asks_for_its_calls(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(rescue_calls_stream([("Write", {"file_path": "n.txt", "content": "x\n"})]))
    server.stream(text_stream("Written."))
    editor = Editor(answer="allow_once")
    assert drive(editor, server, tmp_path, ask, "--force-manual-tools") == "end_turn"
    assert "tools" not in server.requests[0].body
    assert (tmp_path / "n.txt").read_text() == "x\n" and len(editor.asked) == 1
    assert "TOOL_CALL" not in editor.text() and "Written." in editor.text()


def test_allow_always_keeps_the_rule_for_the_session(
    server: ScriptedServer, tmp_path: Path
) -> None:
    write_then_answer(server, "note.txt", "one\n")
    write_then_answer(server, "note.txt", "two\n")
    editor = Editor(answer="allow_always")

    async def twice(conn: Any, session_id: str) -> None:
        await ask(conn, session_id)
        await ask(conn, session_id)

    drive(editor, server, tmp_path, twice)
    assert len(editor.asked) == 1 and (tmp_path / "note.txt").read_text() == "two\n"


def test_todowrite_is_the_plan_and_custom_commands_are_announced(
    server: ScriptedServer, tmp_path: Path, isolated_home: Path
) -> None:
    commands = isolated_home / "xdg_config_home" / "nehanda" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review the diff\n---\nReview it.\n")
    todos = [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing"},
    ]
    server.stream(calls_stream([("TodoWrite", {"todos": todos})]))
    server.stream(text_stream("Planned."))
    editor = Editor()

    async def planned(conn: Any, session_id: str) -> str:
        await editor.until(lambda: bool(editor.of_kind("available_commands_update")))
        return await ask(conn, session_id, "Plan it.")

    assert drive(editor, server, tmp_path, planned) == "end_turn"
    (announced,) = editor.of_kind("available_commands_update")
    assert [(c.name, c.description) for c in announced.available_commands] == [
        ("review", "Review the diff")
    ]
    (plan,) = editor.of_kind("plan")
    entries = [(e.content, e.status) for e in plan.entries]
    assert entries == [("Read the code", "completed"), ("Fix the bug", "in_progress")]


def test_a_write_to_a_fifo_does_not_hang_the_diff_it_would_show(
    server: ScriptedServer, tmp_path: Path
) -> None:
    # The file's text is read for the editor's diff before the call is even asked about;
    # a FIFO the model names must not block that read (nothing ever writes to it).
    os.mkfifo(tmp_path / "pipe")
    write_then_answer(server, "pipe", "x\n")
    editor = Editor(answer="reject_once")
    assert drive(editor, server, tmp_path, ask) == "end_turn"
    (start,) = editor.of_kind("tool_call")
    assert start.locations[0].path == str(tmp_path / "pipe")
