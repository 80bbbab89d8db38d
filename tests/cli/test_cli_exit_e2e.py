"""What a ``nehanda run`` leaves at its exit is whole: every byte of the answer on stdout
and every record in the session log, however fast the process leaves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_process import nehanda
from scripted_calls import calls_stream, text_stream
from scripted_server import ScriptedServer

# Larger than a pipe's buffer many times over, in lines a reader can count.
ANSWER = "".join(f"line {n:06d} of the answer\n" for n in range(20_000))


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_the_whole_answer_and_the_whole_session_log_are_there_at_exit(
    server: ScriptedServer, tmp_path: Path, output_format: str
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    server.stream(calls_stream([("Read", {"file_path": str(tmp_path / "notes.txt")})]))
    server.stream(text_stream(ANSWER))
    done = nehanda(
        "run", "read notes.txt", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--output", output_format, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    if output_format == "json":
        assert json.loads(done.stdout)["result"] == ANSWER
    else:
        assert done.stdout.rstrip("\n") == ANSWER.rstrip("\n")
    sessions = Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "sessions"
    (log,) = sessions.glob("*.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    texts = json.dumps(records)
    assert "hello" in texts  # the tool's result
    assert json.dumps(ANSWER.rstrip("\n"))[1:-1] in texts  # the answer, whole
