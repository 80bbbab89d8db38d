"""``nehanda undo`` after real ``nehanda run`` processes against a scripted vLLM server.

Each run's model changes files with Write, Edit and Bash (created, changed, deleted);
``undo`` then puts them back as they were before the prompt, ``--redo`` takes that back,
a file changed since by someone else is refused unless ``--force``, a run killed by
SIGKILL in the middle of a command is still undone, a git repository's index, refs
and stash stay as they were, and checkpoint records edited to point outside the
workspace are refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from cli_process import nehanda
from processes import gone
from repl_process import spawn_repl
from scripted_calls import calls_stream
from scripted_server import Reply, ScriptedServer, fixture_body
from waiting import until

Call = tuple[str, dict[str, Any]]
PROMPT = "\x1b[?2004h"
JSON = {"Content-Type": "application/json"}


def args(server: ScriptedServer, prompt: str = "Change the files.") -> list[str]:
    return [
        "run", prompt, "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--yes", "--output", "json",
    ]  # fmt: skip


def run(server: ScriptedServer, workspace: Path, *calls: Call) -> str:
    """Runs one prompt whose model makes ``calls``; the session's id."""
    server.stream(calls_stream(list(calls))).stream(fixture_body("e2e_vllm_answer.sse"))
    done = nehanda(*args(server), cwd=workspace)
    assert done.returncode == 0, done.stderr
    results = server.received("/v1/chat/completions")[-1].body["messages"]
    assert not any(m["role"] == "tool" and "rror" in m["content"][:40] for m in results)
    session: str = json.loads(done.stdout)["session_id"]
    return session


def files(workspace: Path) -> dict[str, str]:
    return {
        path.relative_to(workspace).as_posix(): path.read_text()
        for path in sorted(workspace.rglob("*"))
        if path.is_file() and ".git" not in path.parts
    }


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "a.txt").write_text("one\n")
    (folder / "b.txt").write_text("bee\n")
    (folder / "d.txt").write_text("dee\n")
    return folder


CHANGES: list[Call] = [
    ("Write", {"file_path": "new.txt", "content": "written\n"}),
    ("Edit", {"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
    ("Bash", {"command": "printf changed > b.txt; rm d.txt; mkdir -p sub; printf made > sub/e"}),
]


def test_undo_restores_what_write_edit_and_bash_changed_and_redo_takes_it_back(
    server: ScriptedServer, workspace: Path
) -> None:
    before = files(workspace)
    run(server, workspace, *CHANGES)
    after = files(workspace)
    assert after == {
        "a.txt": "two\n", "b.txt": "changed", "new.txt": "written\n", "sub/e": "made"
    }  # fmt: skip
    listed = nehanda("undo", "--list", cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    assert "Change the files." in listed.stdout
    for name in ("a.txt", "b.txt", "d.txt", "new.txt", "sub/e"):
        assert f"  {name}\n" in listed.stdout + "\n"
    undone = nehanda("undo", cwd=workspace)
    assert undone.returncode == 0, undone.stderr
    assert files(workspace) == before
    assert "restored a.txt" in undone.stdout and "deleted new.txt" in undone.stdout
    assert "restored d.txt" in undone.stdout and "deleted sub/e" in undone.stdout
    assert "(undone)" in nehanda("undo", "--list", cwd=workspace).stdout
    again = nehanda("undo", cwd=workspace)
    assert again.returncode == 1 and "nothing to undo" in again.stderr
    redone = nehanda("undo", "--redo", cwd=workspace)
    assert redone.returncode == 0, redone.stderr
    assert files(workspace) == after


def test_undo_takes_back_the_latest_session_and_an_earlier_one_by_its_id(
    server: ScriptedServer, workspace: Path
) -> None:
    first = run(server, workspace, ("Write", {"file_path": "a.txt", "content": "first\n"}))
    run(server, workspace, ("Write", {"file_path": "a.txt", "content": "second\n"}))
    assert nehanda("undo", cwd=workspace).returncode == 0
    assert (workspace / "a.txt").read_text() == "first\n"
    assert nehanda("undo", "--session", first, cwd=workspace).returncode == 0
    assert (workspace / "a.txt").read_text() == "one\n"


def test_a_file_changed_after_the_turn_is_refused_unless_forced(
    server: ScriptedServer, workspace: Path
) -> None:
    run(server, workspace, *CHANGES)
    (workspace / "a.txt").write_text("the user's own edit\n")
    refused = nehanda("undo", cwd=workspace)
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1 and "a.txt changed after that turn" in refused.stderr
    assert "--force" in refused.stderr
    assert (workspace / "a.txt").read_text() == "the user's own edit\n"
    assert (workspace / "new.txt").exists()  # nothing at all was restored
    forced = nehanda("undo", "--force", cwd=workspace)
    assert forced.returncode == 0, forced.stderr
    assert (workspace / "a.txt").read_text() == "one\n"
    assert not (workspace / "new.txt").exists()


def test_a_run_killed_in_the_middle_of_a_command_is_undone(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "shell.pid"
    command = (
        "printf changed > a.txt; rm b.txt; printf new > c.txt; "
        f"read -r pid rest < /proc/self/stat; echo $pid > {pid_file}; exec sleep 60"
    )
    server.stream(calls_stream([("Write", {"file_path": "w.txt", "content": "w\n"})]))
    server.stream(calls_stream([("Bash", {"command": command})]))
    process = subprocess.Popen(
        [sys.executable, "-m", "nehanda", *args(server)],
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the command ran")
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        process.kill()
        if pid_file.exists() and pid_file.read_text().strip():
            shell = int(pid_file.read_text())
            os.kill(shell, signal.SIGKILL)
            until(lambda: gone(shell), "the command is gone")
    undone = nehanda("undo", cwd=workspace)
    assert undone.returncode == 0, undone.stderr
    assert files(workspace) == {"a.txt": "one\n", "b.txt": "bee\n", "d.txt": "dee\n"}


def git(workspace: Path, *words: str) -> str:
    done = subprocess.run(
        ["git", *words], cwd=workspace, capture_output=True, text=True, check=True
    )
    return done.stdout


def git_state(workspace: Path) -> dict[str, str]:
    """The index, every ref, the stash and the status, as bytes' digests and text."""
    dot_git = workspace / ".git"
    state = {"index": hashlib.sha256((dot_git / "index").read_bytes()).hexdigest()}
    state["refs"] = git(workspace, "for-each-ref")
    state["stash"] = git(workspace, "stash", "list")
    state["head"] = git(workspace, "rev-parse", "HEAD")
    state["status"] = git(workspace, "status", "--porcelain")
    return state


def test_in_a_git_repository_the_index_refs_and_stash_are_left_alone(
    server: ScriptedServer, workspace: Path
) -> None:
    environment = ("-c", "user.name=t", "-c", "user.email=t@example.com")
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, *environment, "commit", "-qm", "start")
    (workspace / "b.txt").write_text("stashed\n")
    git(workspace, *environment, "stash", "-q")
    (workspace / "a.txt").write_text("staged\n")
    git(workspace, "add", "a.txt")
    before, state = files(workspace), git_state(workspace)
    run(server, workspace, *CHANGES)
    assert nehanda("undo", cwd=workspace).returncode == 0
    assert files(workspace) == before
    assert git_state(workspace) == state


def records(workspace: Path) -> Path:
    root = Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "checkpoints" / "sessions"
    (session,) = root.iterdir()
    return session / "turns" / "1.json"


@pytest.mark.parametrize("hostile", ["../victim.txt", "/VICTIM", "sub/../../victim.txt"])
def test_a_checkpoint_edited_to_point_outside_the_workspace_is_refused(
    server: ScriptedServer, workspace: Path, tmp_path: Path, hostile: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    run(server, workspace, ("Write", {"file_path": "a.txt", "content": "changed\n"}))
    record = records(workspace)
    turn = json.loads(record.read_text())
    name = hostile.replace("/VICTIM", str(victim))
    turn["files"] = {name: turn["files"]["a.txt"]}
    record.write_text(json.dumps(turn))
    victim_after = victim.read_text()
    refused = nehanda("undo", "--force", cwd=workspace)
    assert refused.returncode == 1
    assert "not a plain path in the workspace" in refused.stderr
    assert victim.read_text() == victim_after == "precious\n"


def test_a_folder_swapped_for_a_symlink_out_of_the_workspace_is_not_followed(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("written\n")
    run(server, workspace, ("Write", {"file_path": "sub/x.txt", "content": "written\n"}))
    (workspace / "sub" / "x.txt").unlink()
    (workspace / "sub").rmdir()
    (workspace / "sub").symlink_to(outside)
    refused = nehanda("undo", "--force", cwd=workspace)
    assert refused.returncode == 1 and "symlink" in refused.stderr
    assert (outside / "x.txt").read_text() == "written\n"


def test_after_model_switches_in_the_repl_each_prompts_changes_are_its_own_turn(
    server: ScriptedServer, workspace: Path
) -> None:
    models = {"object": "list", "data": [{"id": "q"}, {"id": "q2"}]}
    server.route("GET", "/v1/models", Reply(200, json.dumps(models).encode(), JSON))
    for name in ("first.txt", "second.txt"):
        server.stream(calls_stream([("Write", {"file_path": name, "content": "x\n"})]))
        server.stream(fixture_body("e2e_vllm_answer.sse"))
    child = spawn_repl(server.base_url, workspace, "--yes")
    child.expect_exact(PROMPT)
    child.send("write the first\r")
    child.expect_exact(PROMPT)
    child.send("/model q2\r")  # the session is opened again on the other model
    child.expect(r"vllm · q2 · ")
    child.expect_exact(PROMPT)
    child.send("write the second\r")
    child.expect_exact(PROMPT)
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    listed = nehanda("undo", "--list", cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    turns: dict[str, list[str]] = {}
    for line in listed.stdout.splitlines()[1:]:
        if line.startswith("turn "):
            prompt = line.split("  ")[2]
        else:
            turns.setdefault(prompt, []).append(line.strip())
    assert turns == {"write the first": ["first.txt"], "write the second": ["second.txt"]}
    undone = nehanda("undo", cwd=workspace)
    assert undone.returncode == 0, undone.stderr
    assert not (workspace / "second.txt").exists() and (workspace / "first.txt").exists()
