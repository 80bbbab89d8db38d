"""`nehanda run` as a user runs it: a real process against a real HTTP server on 127.0.0.1.

The server replays recorded vLLM stream bytes; the tests check what the user sees and
what the server was sent.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from cli_process import nehanda
from scripted_server import STREAMS, ScriptedServer
from waiting import GUARD

README = "# widget\n\nInstall it with `pip install widget`.\n"


def sse(name: str) -> str:
    return (STREAMS / name).read_text()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(README)
    return tmp_path


@pytest.fixture
def vllm(httpserver: HTTPServer) -> HTTPServer:
    for name in ("e2e_vllm_read_readme.sse", "e2e_vllm_answer.sse"):
        httpserver.expect_oneshot_request("/v1/chat/completions", method="POST").respond_with_data(
            sse(name), content_type="text/event-stream"
        )
    return httpserver


def provider_args(server: HTTPServer, *extra: str) -> list[str]:
    return ["--provider", "vllm", "--base-url", server.url_for("/v1"), "--model", "qwen", *extra]


def sent_bodies(server: HTTPServer) -> list[dict[str, Any]]:
    return [json.loads(request.get_data()) for request, _ in server.log if request.method == "POST"]


def test_json_output_and_what_the_server_received(vllm: HTTPServer, workspace: Path) -> None:
    done = nehanda(
        "run", "How do I install it?", *provider_args(vllm, "--output", "json"), cwd=workspace
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "Install it with `pip install widget`."
    assert (result["mode"], result["provider"], result["model"]) == ("native", "vllm", "qwen")
    assert (result["turns"], result["stop_reason"]) == (2, "end_turn")
    assert result["tool_calls"] == [
        {
            "id": "chatcmpl-tool-4b2c",
            "name": "Read",
            "input": {"file_path": "README.md"},
            "is_error": False,
        }
    ]
    usage = result["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (812 + 870, 26 + 11)
    # The server reported no window: a local server's is assumed to be 8k.
    assert usage["context_window"] == 8192 and 0 < usage["context_tokens"] < 8192

    first, second = sent_bodies(vllm)
    assert first["stream"] is True and first["model"] == "qwen"
    assert {tool["function"]["name"] for tool in first["tools"]} >= {"Read", "LS", "Glob", "Grep"}
    assert first["tool_choice"] == "auto"
    assistant, tool_message = second["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "chatcmpl-tool-4b2c"
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == "chatcmpl-tool-4b2c"
    assert "pip install widget" in tool_message["content"]


def test_stream_json_ends_with_the_json_result(vllm: HTTPServer, workspace: Path) -> None:
    done = nehanda(
        "run", "install?", *provider_args(vllm, "--output", "stream-json"), cwd=workspace
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "init" and kinds[-1] == "result"
    assert kinds.index("tool_use") < kinds.index("tool_result") < kinds.index("text")
    assert "".join(line["text"] for line in lines if line["type"] == "text") == lines[-1]["result"]


def test_text_output_answer_on_stdout_activity_on_stderr(vllm: HTTPServer, workspace: Path) -> None:
    done = nehanda("run", *provider_args(vllm), cwd=workspace, stdin="How do I install it?\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Install it with `pip install widget`.\n"
    # The tool line and the preview of the file, as the REPL shows them, on stderr alone.
    lines = done.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("✓ Read README.md · 3 lines · "))
    assert lines[at + 1 : at + 4] == [
        "  │ # widget",
        "  │ ",
        "  │ Install it with `pip install widget`.",
    ]
    assert "\x1b[" not in done.stderr
    first_prompt = sent_bodies(vllm)[0]["messages"][-1]["content"]
    assert first_prompt == "How do I install it?\n"


def test_an_edit_run_with_yes_shows_its_diff(httpserver: HTTPServer, workspace: Path) -> None:
    """No approval prompt showed the change, so the tool line's preview does."""
    for name in ("e2e_vllm_edit_readme.sse", "e2e_vllm_answer.sse"):
        httpserver.expect_oneshot_request("/v1/chat/completions", method="POST").respond_with_data(
            sse(name), content_type="text/event-stream"
        )
    done = nehanda("run", "--yes", *provider_args(httpserver), cwd=workspace, stdin="Use uv\n")
    assert done.returncode == 0, done.stderr
    assert (workspace / "README.md").read_text() == README.replace("pip install", "uv add")
    lines = done.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("✓ Edit README.md"))
    diff = lines[at + 1 :]
    assert "-Install it with `pip install widget`." in diff
    assert "+Install it with `uv add widget`." in diff
    assert done.stdout == "Install it with `pip install widget`.\n"


def test_model_is_taken_from_the_server_list(httpserver: HTTPServer, workspace: Path) -> None:
    httpserver.expect_request("/v1/models").respond_with_json(
        {"object": "list", "data": [{"id": "local-qwen", "object": "model"}]}
    )
    httpserver.expect_request("/v1/chat/completions").respond_with_data(
        sse("e2e_vllm_answer.sse"), content_type="text/event-stream"
    )
    done = nehanda(
        "run",
        "hi",
        "--provider",
        "lmstudio",
        "--base-url",
        httpserver.url_for("/v1"),
        "--output",
        "json",
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["model"] == "local-qwen"
    assert sent_bodies(httpserver)[-1]["model"] == "local-qwen"


def test_server_error_is_one_line_and_never_shows_the_key(
    httpserver: HTTPServer, workspace: Path
) -> None:
    httpserver.expect_request("/v1/chat/completions").respond_with_json(
        {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}},
        status=401,
    )
    done = nehanda(
        "run",
        "hi",
        "--provider",
        "openai",
        "--base-url",
        httpserver.url_for("/v1"),
        "--model",
        "gpt",
        cwd=workspace,
        env={"OPENAI_API_KEY": "sk-very-secret-123"},
    )
    assert done.returncode == 1
    assert "Incorrect API key provided" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "sk-very-secret-123" not in done.stderr + done.stdout
    auth = httpserver.log[0][0].headers["Authorization"]
    assert auth == "Bearer sk-very-secret-123"


def test_json_mode_errors_are_json(httpserver: HTTPServer, workspace: Path) -> None:
    httpserver.expect_request("/v1/chat/completions").respond_with_json(
        {"object": "error", "message": "The model `nope` does not exist.", "code": 404}, status=404
    )
    done = nehanda("run", "hi", *provider_args(httpserver, "--output", "json"), cwd=workspace)
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["type"] == "error" and "does not exist" in error["error"]


def start_run(server: ScriptedServer, workspace: Path, *args: str) -> subprocess.Popen[str]:
    """``nehanda run`` left running, for a test to signal."""
    command = [sys.executable, "-m", "nehanda", "run", *args, "--provider", "vllm"]
    return subprocess.Popen(
        [*command, "--base-url", server.base_url, "--model", "q"],
        cwd=workspace,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell without job control starts background jobs with SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
def test_ctrl_c_ends_a_json_run_with_a_json_line_saying_so(
    server: ScriptedServer, workspace: Path, output_format: str
) -> None:
    server.stream("e2e_vllm_answer.sse", piece=64, stall_after=0, held=server.released)
    child = start_run(server, workspace, "install?", "--output", output_format)
    try:
        server.wait_for("/v1/chat/completions")
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=GUARD)
    finally:
        child.kill()
    assert child.returncode == 130, err
    lines = [json.loads(line) for line in out.splitlines()]
    kinds = ["init", "error"] if output_format == "stream-json" else ["error"]
    assert [line["type"] for line in lines] == kinds
    assert lines[-1]["error"] == "interrupted" and lines[-1]["provider"] == "vllm"
    sessions = Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "sessions"
    log = (sessions / f"{lines[-1]['session_id']}.jsonl").read_text().splitlines()
    assert json.loads(log[-1])["type"] == "interrupted"


def _ports_free(*ports: int) -> bool:
    for port in ports:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return False
    return True


@pytest.mark.skipif(
    not _ports_free(11434, 1234, 8000, 8080), reason="a local model server is running"
)
def test_nothing_to_talk_to_explains_what_was_tried(workspace: Path) -> None:
    done = nehanda("run", "hi", cwd=workspace)
    assert done.returncode == 1
    for expected in (
        "no model provider found",
        "Ollama",
        "127.0.0.1:1234",
        "vLLM",
        "llama.cpp",
        "--provider",
        str(Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"),
    ):
        assert expected in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["run", "hi", "--output", "xml"], "Invalid value for '--output'"),
        (["run", "hi", "--max-turns", "0"], "--max-turns"),
        (["run", "   "], "the prompt is empty"),
    ],
)
def test_usage_errors_exit_2(workspace: Path, args: list[str], says: str) -> None:
    done = nehanda(*args, cwd=workspace)
    assert done.returncode == 2
    assert says in done.stderr


def test_version_and_help(workspace: Path) -> None:
    assert nehanda("--version", cwd=workspace).stdout.strip() == "nehanda, version 0.1.0"
    assert "run" in nehanda("--help", cwd=workspace).stdout
