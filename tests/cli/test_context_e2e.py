"""Long tasks in small windows: `nehanda run` against servers that report their window.

The scripted model reads fifteen files, one per turn, whose contents add up to about
three times the window; nehanda must compact on the way and finish. Every request the
server receives is measured with this test's own fixed rule (characters / 4 of the JSON
of its messages and tools), never with nehanda's estimator.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from scripted_server import Received, Reply, ScriptedServer, fixture_body

WINDOW = 8192
FILES = 15
JSON = {"Content-Type": "application/json"}
SSE = {"Content-Type": "text/event-stream"}
NDJSON = {"Content-Type": "application/x-ndjson"}
SUMMARY = "## Goal\nRead the fifteen part files.\n## Outcome of the last tool calls\nAll read."


def fixed_rule_tokens(body: dict[str, Any]) -> int:
    return (len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("tools", [])))) // 4


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    line = "the quick brown fox jumps over the lazy dog, said the {}th line\n"
    for n in range(1, FILES + 1):
        (tmp_path / f"part{n:02}.txt").write_text("".join(line.format(i) for i in range(100)))
    return tmp_path


def vllm_call(n: int) -> bytes:
    """The recorded vLLM Read call, reading part N with a call id of its own."""
    body = fixture_body("e2e_vllm_read_readme.sse")
    body = body.replace(b"chatcmpl-tool-4b2c", b"chatcmpl-tool-%02d" % n)
    return body.replace(b'README.md\\"}', b'part%02d.txt\\"}' % n)


def vllm_text(text: str) -> bytes:
    body = fixture_body("e2e_vllm_answer.sse")
    start = body.index(b'"content":"Install')
    end = body.index(b'"finish_reason":"stop"')
    chunk = json.dumps({"content": text}).encode()[1:-1]
    head = body[:start] + chunk + b'},"logprobs":null,'
    return head + body[end:]


class Model:
    """Answers what a request asks for: the next file while tools are offered, a summary
    when nehanda asks for one (a request without tools), the final answer at the end."""

    def __init__(self, call: Any, text: Any, content: str) -> None:
        self.call, self.text, self.content = call, text, content
        self.calls = 0
        self.summaries = 0
        self.fail_summaries = False

    def __call__(self, received: Received) -> Reply | None:
        body = received.body
        if received.path not in ("/v1/chat/completions", "/api/chat"):
            return None
        asked_to_summarise = "compacting the transcript" in json.dumps(body["messages"][:1])
        if asked_to_summarise:
            self.summaries += 1
            if self.fail_summaries:
                return Reply(500, b'{"error": {"message": "summaries are broken today"}}', JSON)
            return Reply(200, self.text(SUMMARY), {"Content-Type": self.content})
        if self.calls < FILES:
            self.calls += 1
            return Reply(200, self.call(self.calls), {"Content-Type": self.content})
        return Reply(200, self.text("All fifteen parts read."), {"Content-Type": self.content})


def chat_bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.path in ("/v1/chat/completions", "/api/chat")]


def run(server: ScriptedServer, workspace: Path, *args: str, provider: str = "vllm") -> Any:
    base = server.base_url if provider == "vllm" else server.root_url
    return nehanda(
        "run", "Read part01.txt to part15.txt", "--provider", provider, "--base-url", base,
        "--model", "q", "--output", "json", "--max-turns", "40", *args, cwd=workspace,
    )  # fmt: skip


def vllm_server(server: ScriptedServer) -> Model:
    models = {"object": "list", "data": [{"id": "q", "object": "model", "max_model_len": WINDOW}]}
    server.route("GET", "/v1/models", Reply(200, json.dumps(models).encode(), JSON))
    model = Model(vllm_call, vllm_text, "text/event-stream")
    server.responder = model
    return model


def test_fifteen_reads_three_windows_long_fit_a_vllm_window(
    server: ScriptedServer, workspace: Path
) -> None:
    model = vllm_server(server)
    done = run(server, workspace)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "All fifteen parts read."
    assert len(result["tool_calls"]) == FILES and not any(
        call["is_error"] for call in result["tool_calls"]
    )
    bodies = chat_bodies(server)
    sizes = [fixed_rule_tokens(body) for body in bodies]
    results_total = sum(len((workspace / f"part{n:02}.txt").read_text()) for n in range(1, 16))
    assert results_total // 4 > 2.5 * WINDOW  # the task really is about three windows long
    assert max(sizes) <= WINDOW, sizes
    assert model.summaries >= 2
    assert "context compacted" in done.stderr
    assert done.stderr.count("context compacted") == model.summaries
    # An 8k window does not compact on every step.
    assert model.summaries <= FILES // 2
    assert result["usage"]["context_window"] == WINDOW
    assert 0 < result["usage"]["context_tokens"] <= WINDOW
