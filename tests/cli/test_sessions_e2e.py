"""Session logs through the real CLI: written as the run goes, listed, resumed, redacted."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda, run_json
from scripted_server import ScriptedServer

SECRET = "tok-1234567890abcdef"


def result_of(
    server: ScriptedServer, workspace: Path, *args: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    done = run_json(server.base_url, *args, cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def log_path(session_id: str) -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "sessions" / f"{session_id}.jsonl"


def test_run_writes_a_log_that_continue_resumes(server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# widget\n")
    server.stream("e2e_vllm_read_readme.sse").stream("e2e_vllm_answer.sse")
    first = result_of(server, tmp_path, "How do I install it?")
    records = [json.loads(line) for line in log_path(first["session_id"]).read_text().splitlines()]
    assert records[0]["type"] == "session" and records[0]["workspace"] == str(tmp_path)
    roles = [r["message"]["role"] for r in records if r["type"] == "message"]
    assert roles == ["user", "assistant", "tool", "assistant"]

    server.stream("e2e_vllm_answer.sse")
    second = result_of(server, tmp_path, "And to upgrade?", "--continue")
    assert second["session_id"] == first["session_id"]
    sent = server.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert sent[1]["content"] == "How do I install it?" and sent[-1]["content"] == "And to upgrade?"
    assert sent[3]["tool_call_id"] == "chatcmpl-tool-4b2c"


def test_sessions_lists_this_folder(server: ScriptedServer, tmp_path: Path) -> None:
    server.stream("e2e_vllm_answer.sse")
    result = result_of(server, tmp_path, "What is   this\nproject?")
    listing = nehanda("sessions", cwd=tmp_path)
    assert listing.returncode == 0
    assert result["session_id"] in listing.stdout
    assert "What is this project?" in listing.stdout
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert "no sessions" in nehanda("sessions", cwd=elsewhere).stdout


def test_resume_by_id_and_missing_sessions_are_clear_errors(
    server: ScriptedServer, tmp_path: Path
) -> None:
    missing = nehanda("run", "hi", "--resume", "20990101-000000-abcdef", cwd=tmp_path)
    assert missing.returncode == 1 and "no session '20990101-000000-abcdef'" in missing.stderr
    nothing = nehanda("run", "hi", "--continue", cwd=tmp_path)
    assert nothing.returncode == 1 and "no earlier session" in nothing.stderr
    both = nehanda("run", "hi", "--continue", "--resume", "x", cwd=tmp_path)
    assert both.returncode == 2


@pytest.mark.parametrize(
    "args",
    [["run", "--resume"], ["run", "hi", "--resume"], ["-p", "--resume", "hi"]],
    ids=["run --resume", "run PROMPT --resume", "-p --resume PROMPT"],
)
def test_run_resume_with_no_id_is_a_usage_error_naming_the_ways_to_pick(
    tmp_path: Path, args: list[str]
) -> None:
    done = nehanda(*args, cwd=tmp_path)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "--resume needs a session ID here" in line
    assert "`nehanda sessions` lists them" in line and "--continue" in line


def test_secrets_in_tool_output_reach_neither_the_log_nor_the_model(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "README.md").write_text(f"token: {SECRET}\n")
    server.stream("e2e_vllm_read_readme.sse").stream("e2e_vllm_answer.sse")
    result = result_of(server, tmp_path, "read it", env={"DEPLOY_TOKEN": SECRET})
    log = log_path(result["session_id"]).read_text()
    assert SECRET not in log and "[REDACTED]" in log
    sent = server.requests[1].body["messages"][-1]["content"]
    assert SECRET not in sent and "token: [REDACTED]" in sent


def tear_last_line(path: Path) -> str:
    """Cuts the log's last record in half, as a crash mid-write would; the torn line."""
    lines = path.read_text().splitlines(keepends=True)
    torn = lines[-1][: len(lines[-1]) // 2]
    path.write_text("".join(lines[:-1]) + torn)
    return torn


def test_continue_after_a_torn_last_line_warns_and_keeps_the_log_whole(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    first = result_of(server, tmp_path, "What is this project?")
    path = log_path(first["session_id"])
    torn = tear_last_line(path)
    torn_number = len(path.read_text().splitlines())

    done = nehanda(
        "run", "And to upgrade?", "--continue", "--provider", "vllm",
        "--base-url", server.base_url, "--model", "q", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"note: {path}:{torn_number}: skipped an unreadable record" in done.stderr

    lines = path.read_text().splitlines()
    assert lines[torn_number - 1] == torn
    records = [json.loads(line) for n, line in enumerate(lines, 1) if n != torn_number]
    assert records[torn_number - 1]["type"] == "resumed"
    assert records[torn_number - 1]["id"] == first["session_id"]
    assert records[-1]["type"] == "message"
    assert records[-1]["message"]["role"] == "assistant"


def test_stream_json_tells_of_a_torn_line_as_a_notice(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    first = result_of(server, tmp_path, "What is this project?")
    tear_last_line(log_path(first["session_id"]))
    done = nehanda(
        "run", "And to upgrade?", "--resume", first["session_id"], "--provider", "vllm",
        "--base-url", server.base_url, "--model", "q", "--output", "stream-json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [event["type"] for event in events][:2] == ["init", "notice"]
    assert "skipped an unreadable record" in events[1]["message"]
    assert events[-1]["type"] == "result"


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
@pytest.mark.parametrize(
    ("flags", "reason"),
    [(["--continue"], "no earlier session"), (["--resume", "nope"], "no session 'nope'")],
)
def test_a_missing_session_is_a_json_error_in_json_modes(
    tmp_path: Path, output_format: str, flags: list[str], reason: str
) -> None:
    done = nehanda("run", "hi", *flags, "--output", output_format, cwd=tmp_path)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    error = json.loads(line)
    assert error["type"] == "error" and reason in error["error"]
    assert reason in done.stderr


def test_sessions_is_aligned_hides_empty_sessions_and_takes_a_limit(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    first = result_of(server, tmp_path, "Short one")
    logs = log_path(first["session_id"]).parent
    real = logs / f"{first['session_id']}.jsonl"
    # More sessions as nehanda writes them: the same log under other ids, other prompts.
    for number, prompt in enumerate(["A much longer first prompt " * 4, "Third"], 2):
        text = real.read_text().replace("Short one", prompt.strip())
        (logs / f"20991231-00000{number}-abcdef.jsonl").write_text(text)
    header = real.read_text().splitlines()[0]
    (logs / "20991231-000009-empty0.jsonl").write_text(header + "\n")  # left before any reply

    listing = nehanda("sessions", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].split() == ["ID", "STARTED", "TURNS", "FOLDER", "FIRST", "PROMPT"]
    assert len(lines) == 4 and "empty0" not in listing.stdout
    # Every column starts at the same place on every line, whatever the ids' lengths.
    for heading in ("STARTED", "TURNS", "FOLDER", "FIRST PROMPT"):
        column = lines[0].index(heading)
        assert all(line[column - 2 : column] == "  " for line in lines[1:])
        assert all(line[column] != " " for line in lines[1:]) or heading == "TURNS"
    assert lines[1].endswith("  Third") and "…" in lines[2]
    assert all(len(line) <= len(lines[2]) for line in lines)

    limited = nehanda("sessions", "--limit", "2", cwd=tmp_path).stdout.splitlines()
    assert len(limited) == 4 and "--limit N shows more" in limited[-1]
    assert "Short one" not in "\n".join(limited)
    bad = nehanda("sessions", "--limit", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "--limit" in bad.stderr
