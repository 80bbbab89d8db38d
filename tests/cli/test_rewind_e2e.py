"""``/rewind`` in a real REPL in a pty, against a scripted vLLM server.

Two prompts change files with Write and Edit. ``/rewind`` lists the prompts, the
latest first, with the files each changed; it shows the diff restoring them would make
and restores the files, the conversation, or both, as chosen. A rewound conversation
gives its prompt back in the input line and is what the next request sends, and what
``--resume`` reads back; a restore of files changed since asks first; the restore is
taken back by ``nehanda undo --redo``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pexpect
import pytest

from cli_process import nehanda
from nehanda.engine.transcript import find_session
from repl_process import spawn_repl
from scripted_calls import calls_stream
from scripted_server import ScriptedServer, fixture_body

PROMPT = "\x1b[?2004h"
DOWN, ENTER, ESC = "\x1b[B", "\r", "\x1b"

FIRST = ("Write", {"file_path": "a.txt", "content": "first\n"})
SECOND = [
    ("Edit", {"file_path": "a.txt", "old_string": "first", "new_string": "second"}),
    ("Write", {"file_path": "b.txt", "content": "bee\n"}),
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def two_prompts(server: ScriptedServer, workspace: Path) -> pexpect.spawn:
    """A REPL whose first prompt wrote a.txt and whose second changed it and wrote b.txt."""
    server.stream(calls_stream([FIRST])).stream(fixture_body("e2e_vllm_answer.sse"))
    server.stream(calls_stream(SECOND)).stream(fixture_body("e2e_vllm_answer.sse"))
    child = spawn_repl(server.base_url, workspace, "--yes")
    for prompt in ("write the first", "write the second"):
        child.expect_exact(PROMPT)
        child.send(prompt + ENTER)
    child.expect_exact(PROMPT)
    assert (workspace / "a.txt").read_text() == "second\n"
    return child


def leave(child: pexpect.spawn) -> str:
    """Leaves the REPL; the id of its session."""
    child.send("/exit" + ENTER)
    child.expect(pexpect.EOF)
    found: str = re.findall(r"nehanda --resume ([0-9a-f-]+)", child.logfile_read.getvalue())[-1]
    return found


def user_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


def test_rewinding_files_and_conversation_restores_both_and_gives_the_prompt_back(
    server: ScriptedServer, workspace: Path
) -> None:
    child = two_prompts(server, workspace)
    child.send("/rewind" + ENTER)
    child.expect("Go back to before which prompt")
    child.expect(r"write the second.*changed a\.txt, b\.txt")
    child.expect(r"write the first.*changed a\.txt")
    child.send(ENTER)  # the latest is first
    child.expect(r"-second")
    child.expect(r"\+first")
    child.expect("Restore what")
    child.send(ENTER)  # the files and the conversation
    child.expect("undid turn 2")
    child.expect("which is in the input")
    assert (workspace / "a.txt").read_text() == "first\n"
    assert not (workspace / "b.txt").exists()
    child.expect("write the second")  # given back in the input line
    server.stream(fixture_body("e2e_vllm_answer.sse"))
    child.send(ENTER)
    last = server.wait_for("/v1/chat/completions", 5)[-1].body
    assert user_texts(last) == ["write the first", "write the second"]
    child.expect_exact(PROMPT)
    session = leave(child)
    resumed = find_session(session)
    assert [m.text for m in resumed.messages if m.role == "user"] == user_texts(last)
    assert [mark.text for mark in resumed.prompts] == ["write the first", "write the second"]
    redone = nehanda("undo", "--redo", cwd=workspace)
    assert redone.returncode == 0, redone.stderr
    assert (workspace / "a.txt").read_text() == "second\n" and (workspace / "b.txt").exists()


def test_rewinding_the_conversation_only_leaves_the_files(
    server: ScriptedServer, workspace: Path
) -> None:
    child = two_prompts(server, workspace)
    child.send("/rewind" + ENTER)
    child.expect("Go back to before which prompt")
    child.send(DOWN + ENTER)  # the first prompt
    child.expect("Restore what")
    child.send(DOWN + ENTER)  # the conversation only
    child.expect("which is in the input")
    assert (workspace / "a.txt").read_text() == "second\n"
    child.send("\x15")  # Ctrl-U: the prompt given back is replaced
    server.stream(fixture_body("e2e_vllm_answer.sse"))
    child.send("something else" + ENTER)
    last = server.wait_for("/v1/chat/completions", 5)[-1].body
    assert user_texts(last) == ["something else"]
    child.expect_exact(PROMPT)
    leave(child)


def test_a_file_changed_since_is_restored_only_after_a_second_yes(
    server: ScriptedServer, workspace: Path
) -> None:
    child = two_prompts(server, workspace)
    (workspace / "a.txt").write_text("the user's own edit\n")
    for answer, kept in (("n", "the user's own edit\n"), ("y", "first\n")):
        child.send(ESC + ESC)  # at an empty prompt: /rewind
        child.expect("Go back to before which prompt")
        child.send(ENTER)
        child.expect(r"warning: a\.txt changed after that turn")
        child.expect("Restore what")
        child.send(DOWN + DOWN + ENTER)  # the files only
        child.expect(r"restoring them loses that \(y = go ahead\)")
        child.expect_exact(PROMPT)
        child.send(answer + ENTER)
        child.expect("nothing was restored" if answer == "n" else "undid turn 2")
        child.expect_exact(PROMPT)
        assert (workspace / "a.txt").read_text() == kept
    assert not (workspace / "b.txt").exists()
    leave(child)


def test_a_resumed_session_rewinds_to_a_prompt_from_before_it_was_resumed(
    server: ScriptedServer, workspace: Path
) -> None:
    child = two_prompts(server, workspace)
    session = leave(child)
    child = spawn_repl(server.base_url, workspace, "--yes", "--resume", session)
    child.expect_exact(PROMPT)
    child.send("/rewind" + ENTER)
    child.expect(r"write the second.*changed a\.txt, b\.txt")
    child.send(DOWN + ENTER)  # the first prompt: both turns are taken back
    child.expect(r"-second")
    child.expect("Restore what")
    child.send(ENTER)
    child.expect("undid turns 1, 2")
    child.expect("which is in the input")
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()
    child.send("\x15/exit" + ENTER)
    child.expect(pexpect.EOF)
    assert [m.text for m in find_session(session).messages if m.role == "user"] == []


def test_a_turn_that_changed_nothing_keeps_its_number_across_a_resume(
    server: ScriptedServer, workspace: Path
) -> None:
    server.stream(calls_stream([FIRST])).stream(fixture_body("e2e_vllm_answer.sse"))
    server.stream(fixture_body("e2e_vllm_answer.sse"))
    child = spawn_repl(server.base_url, workspace, "--yes")
    for prompt in ("write the first", "just talk"):
        child.expect_exact(PROMPT)
        child.send(prompt + ENTER)
    child.expect_exact(PROMPT)
    session = leave(child)
    third = ("Write", {"file_path": "c.txt", "content": "see\n"})
    server.stream(calls_stream([third])).stream(fixture_body("e2e_vllm_answer.sse"))
    child = spawn_repl(server.base_url, workspace, "--yes", "--resume", session)
    child.expect_exact(PROMPT)
    child.send("write the third" + ENTER)
    child.expect_exact(PROMPT)
    child.send("/rewind" + ENTER)
    child.expect(r"write the third.*changed c\.txt")
    child.send(DOWN + ENTER)  # "just talk": what came after it is the third prompt's turn
    child.expect("Restore what")
    child.send(DOWN + DOWN + ENTER)  # the files only
    child.expect(r"undid turn (\d+)")
    assert child.match.group(1) == "3"
    assert not (workspace / "c.txt").exists() and (workspace / "a.txt").exists()
    leave(child)
