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
                return Reply(400, b'{"error": {"message": "summaries are broken today"}}', JSON)
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


def test_the_log_keeps_every_result_and_resume_starts_from_the_summary(
    server: ScriptedServer, workspace: Path
) -> None:
    model = vllm_server(server)
    first = run(server, workspace)
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout)["session_id"]
    log = session_log(session_id)
    for n in range(1, FILES + 1):  # the full history stays in the log
        assert f"part{n:02}.txt" in log and log.count("said the 99th line") >= FILES
    assert log.count('"type": "compaction"') == model.summaries

    before = len(chat_bodies(server))
    model.calls = FILES  # the model answers at once now
    resumed = nehanda(
        "run", "What did you read?", "--resume", session_id, "--provider", "vllm",
        "--base-url", server.base_url, "--model", "q", "--output", "json", cwd=workspace,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    (sent,) = chat_bodies(server)[before:]
    text = json.dumps(sent["messages"])
    assert "Summary of the earlier conversation" in text and "Read the fifteen part files" in text
    assert "chatcmpl-tool-01" not in text  # compacted away, not sent again
    assert fixed_rule_tokens(sent) <= WINDOW
    assert sent["messages"][-1]["content"] == "What did you read?"


def session_log(session_id: str) -> str:
    from nehanda.engine.transcript import sessions_dir

    return (sessions_dir() / f"{session_id}.jsonl").read_text()


def test_a_result_larger_than_the_whole_window_is_cut_in_the_middle(
    server: ScriptedServer, workspace: Path
) -> None:
    lines = [f"line {i:05} of a log far larger than any context window\n" for i in range(1400)]
    (workspace / "part15.txt").write_text("".join(lines))
    model = vllm_server(server)
    model.calls = FILES - 1  # one read, then the answer
    done = nehanda(
        "run", "Read part15.txt", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--output", "json", cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "All fifteen parts read."
    bodies = chat_bodies(server)
    assert all(fixed_rule_tokens(body) <= WINDOW for body in bodies)
    result = bodies[-1]["messages"][-1]
    assert result["role"] == "tool"
    assert "line 00000" in result["content"] and "line 01399" in result["content"]
    assert "characters cut from the middle of this result" in result["content"]
    assert "line 00700" not in result["content"]


def test_a_failing_summary_request_leaves_a_list_of_the_calls_and_loses_nothing(
    server: ScriptedServer, workspace: Path
) -> None:
    model = vllm_server(server)
    model.fail_summaries = True
    done = run(server, workspace)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "All fifteen parts read."
    assert max(fixed_rule_tokens(body) for body in chat_bodies(server)) <= WINDOW
    assert "a list of the calls" in done.stderr and "summaries are broken today" in done.stderr
    sent = json.dumps(chat_bodies(server)[-1]["messages"])
    assert "The model's summary could not be had" in sent and "Read" in sent
    log = session_log(json.loads(done.stdout)["session_id"])
    assert log.count("said the 99th line") >= FILES


def test_a_window_learned_from_the_servers_error_is_kept(
    server: ScriptedServer, workspace: Path
) -> None:
    """A server that reports no window, then refuses a request as too long for 4096."""
    model = Model(vllm_call, vllm_text, "text/event-stream")
    refused: list[int] = []

    def strict(received: Received) -> Reply | None:
        if received.path == "/v1/chat/completions" and fixed_rule_tokens(received.body) > 4096:
            refused.append(fixed_rule_tokens(received.body))
            message = (
                "This model's maximum context length is 4096 tokens. However, you requested "
                f"{fixed_rule_tokens(received.body) + 500} tokens. Please reduce the length."
            )
            body = {"object": "error", "message": message, "type": "BadRequestError", "code": 400}
            return Reply(400, json.dumps(body).encode(), JSON)
        return model(received)

    server.responder = strict
    done = run(server, workspace)
    assert done.returncode == 0, done.stderr
    assert len(refused) == 1  # learned once, then every request fits
    assert json.loads(done.stdout)["usage"]["context_window"] == 4096
    doctor = nehanda(
        "doctor", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        cwd=workspace,
    )  # fmt: skip
    assert "4096 tokens (learned from the server's context-length error)" in doctor.stdout


def ollama_call(n: int) -> bytes:
    body = fixture_body("ollama_chat_tool_call.ndjson")
    return body.replace(b'"file_path":"README.md"', b'"file_path":"part%02d.txt"' % n)


def ollama_text(text: str) -> bytes:
    first, *_, last = fixture_body("ollama_chat_answer.ndjson").strip().split(b"\n")
    return first.replace(b'"Install"', json.dumps(text).encode()) + b"\n" + last + b"\n"


def test_ollama_is_asked_for_its_small_context_length_and_the_task_fits(
    server: ScriptedServer, workspace: Path
) -> None:
    show = fixture_body("ollama_show_qwen3.json").replace(
        b'"qwen3.context_length":40960', b'"qwen3.context_length":8192'
    )
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), JSON))
    server.route("POST", "/api/show", Reply(200, show, JSON))
    model = Model(ollama_call, ollama_text, "application/x-ndjson")
    server.responder = model
    done = nehanda(
        "run", "Read part01.txt to part15.txt", "--provider", "ollama", "--base-url",
        server.root_url, "--model", "qwen3:8b", "--output", "json", "--max-turns", "40",
        cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "All fifteen parts read."
    bodies = chat_bodies(server)
    assert {body["options"]["num_ctx"] for body in bodies} == {WINDOW}
    assert max(fixed_rule_tokens(body) for body in bodies) <= WINDOW
    assert model.calls == FILES and model.summaries >= 2
    assert "note: the prompt is about" not in done.stderr  # Ollama never had to cut it


def rescue_call(n: int) -> bytes:
    call = {"name": "Read", "arguments": {"file_path": f"part{n:02}.txt"}}
    return vllm_text(f"Reading the next part.\n[TOOL_CALL]{json.dumps(call)}[/TOOL_CALL]")


def test_in_rescue_mode_the_rescue_prompt_is_counted_and_the_task_fits(
    server: ScriptedServer, workspace: Path
) -> None:
    models = {"object": "list", "data": [{"id": "q", "object": "model", "max_model_len": WINDOW}]}
    server.route("GET", "/v1/models", Reply(200, json.dumps(models).encode(), JSON))
    model = Model(rescue_call, vllm_text, "text/event-stream")
    server.responder = model
    done = run(server, workspace, "--force-manual-tools")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["mode"], result["result"]) == ("rescue", "All fifteen parts read.")
    assert len(result["tool_calls"]) == FILES
    bodies = chat_bodies(server)
    assert all("tools" not in body for body in bodies)
    assert max(fixed_rule_tokens(body) for body in bodies) <= WINDOW
    assert model.summaries >= 2
    system = bodies[0]["messages"][0]["content"]
    # The compact tier: the format once, and one example call for all seven tools.
    assert system.count("[TOOL_CALL]") == 2 and "## Grep" in system


def vllm_write(path: str, content: str) -> bytes:
    """The recorded vLLM call turned into a Write of ``content`` (ASCII, no escapes)."""
    body = fixture_body("e2e_vllm_read_readme.sse").replace(b'"name":"Read"', b'"name":"Write"')
    tail = f'{path}\\", \\"content\\": \\"{content}\\"}}'.encode()
    return body.replace(b'README.md\\"}', tail)


def test_a_two_megabyte_write_in_the_history_is_sent_as_a_note_and_the_next_request_fits(
    server: ScriptedServer, workspace: Path
) -> None:
    """The model's own Write of a 2 MB file once made every later request overflow: the
    call stayed whole in the history, and compaction (which keeps the last turn) claimed
    a conversation that grew. Its content goes to the server as a note instead."""
    content = "0123456789abcdef" * (2 * 1024 * 1024 // 16)
    models = {"object": "list", "data": [{"id": "q", "object": "model", "max_model_len": 32768}]}
    server.route("GET", "/v1/models", Reply(200, json.dumps(models).encode(), JSON))
    replies = iter([vllm_write("data.txt", content), vllm_text("Wrote data.txt.")])
    server.responder = lambda received: (
        Reply(200, next(replies), SSE) if received.path == "/v1/chat/completions" else None
    )
    done = nehanda(
        "run", "Write 2 MB of hex digits to data.txt", "--provider", "vllm", "--base-url",
        server.base_url, "--model", "q", "--output", "json", "--yes", cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Wrote data.txt."
    assert (workspace / "data.txt").read_text() == content
    _, second = chat_bodies(server)
    (call,) = second["messages"][-2]["tool_calls"]
    arguments = json.loads(call["function"]["arguments"])
    assert arguments == {
        "file_path": "data.txt",
        "content": "[content of 2.0 MB written to data.txt]",
    }
    assert fixed_rule_tokens(second) <= 32768
    assert "context compacted" not in done.stderr
