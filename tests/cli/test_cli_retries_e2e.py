"""Retries as a user sees them: a real ``nehanda run`` against a real server on 127.0.0.1.

A server that answers 503 before it answers is retried, and each retry says so while
it waits; a server that is not running at all (a refused connection to this machine)
fails at once, on one line that says what to do.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_process import nehanda
from scripted_server import Reply, ScriptedServer, fixture_body

LOADING = '{"error": {"message": "model is loading"}}'


def args(base_url: str, *extra: str) -> list[str]:
    return ["run", "hi", "--provider", "vllm", "--base-url", base_url, "--model", "q", *extra]


def test_a_503_is_retried_and_the_retry_is_shown(server: ScriptedServer, tmp_path: Path) -> None:
    server.error(503, LOADING, **{"Retry-After": "0.2"})
    server.stream("e2e_vllm_answer.sse")
    done = nehanda(*args(server.base_url), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Install it with `pip install widget`.\n"
    assert "note: retrying in 0.2 s (HTTP 503, attempt 2 of 4)\n" in done.stderr
    assert len(server.received("/v1/chat/completions")) == 2


def test_stream_json_carries_the_retry_as_an_event(server: ScriptedServer, tmp_path: Path) -> None:
    server.error(429, LOADING, **{"Retry-After": "0.1"})
    server.stream("e2e_vllm_answer.sse")
    done = nehanda(*args(server.base_url, "--output", "stream-json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    retries = [event for event in events if event["type"] == "retry"]
    assert retries == [
        {"type": "retry", "delay": 0.1, "attempt": 2, "attempts": 4, "reason": "HTTP 429"}
    ]
    assert events.index(retries[0]) < [e["type"] for e in events].index("text")
    assert "note: retrying in 0.1 s (HTTP 429, attempt 2 of 4)" in done.stderr


def test_no_server_on_this_machine_fails_at_once_on_one_line(
    unused_port: int, tmp_path: Path
) -> None:
    base = f"http://127.0.0.1:{unused_port}/v1"
    done = nehanda(*args(base), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"error: vllm (model q): no server is running at {base}/chat/completions "
        "(connection refused); start it, or fix base_url"
    ]


def test_ollamas_questions_at_start_say_when_they_retry(
    server: ScriptedServer, tmp_path: Path
) -> None:
    """Before the chat, nehanda asks Ollama about the model (/api/show); a retry of that
    question is said while it waits, as a chat's is."""
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), json_type))
    server.error(503, LOADING, **{"Retry-After": "0.2"})  # the first /api/show
    server.json("ollama_show_gemma_no_tools.json")
    server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    ollama = ["--provider", "ollama", "--base-url", server.root_url, "--model", "gemma:2b"]
    done = nehanda("run", "hi", *ollama, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("note: retrying in 0.2 s (HTTP 503, attempt 2 of 4)\n")
    assert len(server.received("/api/show")) == 2

    server.error(503, LOADING, **{"Retry-After": "0.1"})
    server.json("ollama_show_gemma_no_tools.json")
    server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    (tmp_path / "fresh").mkdir()
    env = {"XDG_STATE_HOME": str(tmp_path / "fresh")}  # nothing remembered of the model
    done = nehanda("run", "hi", *ollama, "--output", "stream-json", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["type"] == "init"
    assert "note: retrying in 0.1 s (HTTP 503, attempt 2 of 4)" in done.stderr
