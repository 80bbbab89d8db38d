"""``nehanda run --provider ollama`` as a user runs it: a real process against a real
server on 127.0.0.1 replaying recorded Ollama bytes, checking what the server received.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from nehanda.toolcalls.prompt import DIRECTIVE
from scripted_server import Reply, ScriptedServer, fixture_body

README = "# widget\n\nInstall it with `pip install widget`.\n"
NDJSON = "application/x-ndjson"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(README)
    return tmp_path


def serve(server: ScriptedServer, show: str) -> None:
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), json_type))
    server.route("POST", "/api/show", Reply(200, fixture_body(show), json_type))


def run(server: ScriptedServer, workspace: Path, model: str, prompt: str = "install?") -> Any:
    host = server.root_url.removeprefix("http://")  # OLLAMA_HOST without a scheme
    done = nehanda(
        "run", prompt, "--provider", "ollama", "--model", model, "--output", "json",
        cwd=workspace, env={"OLLAMA_HOST": host},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def chats(server: ScriptedServer) -> list[dict[str, Any]]:
    return [request.body for request in server.received("/api/chat")]


def test_native_tools_two_turns_one_show(server: ScriptedServer, workspace: Path) -> None:
    serve(server, "ollama_show_qwen3.json")
    server.stream("ollama_chat_tool_call.ndjson", NDJSON)
    server.stream("ollama_chat_answer.ndjson", NDJSON)
    result, _ = run(server, workspace, "qwen3:8b")
    assert (result["mode"], result["turns"], result["stop_reason"]) == ("native", 2, "end_turn")
    assert result["result"] == "Install it with `pip install widget`."
    assert [(c["name"], c["input"]) for c in result["tool_calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    usage = result["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (1043 + 1187, 87 + 12)
    assert usage["context_window"] == 32768  # qwen3's 40960, capped by context_cap

    assert len(server.received("/api/show")) == 1
    first, second = chats(server)
    assert [body["options"]["num_ctx"] for body in (first, second)] == [32768, 32768]
    assert {tool["function"]["name"] for tool in first["tools"]} >= {"Read", "LS", "Grep"}
    assistant, tool = second["messages"][-2:]
    assert assistant["tool_calls"] == [
        {"function": {"name": "Read", "arguments": {"file_path": "README.md"}}}
    ]
    assert tool["role"] == "tool" and tool["tool_name"] == "Read"
    assert "pip install widget" in tool["content"]

    server.stream("ollama_chat_answer.ndjson", NDJSON)
    again, _ = run(server, workspace, "qwen3:8b", "and again?")
    assert again["mode"] == "native"
    assert len(server.received("/api/show")) == 1  # remembered on disk across runs


def test_a_model_without_tools_starts_in_rescue(server: ScriptedServer, workspace: Path) -> None:
    serve(server, "ollama_show_gemma_no_tools.json")
    server.stream("ollama_chat_gemma_rescue_call.ndjson", NDJSON)
    server.stream("ollama_chat_gemma_answer.ndjson", NDJSON)
    result, stderr = run(server, workspace, "gemma:2b")
    assert result["mode"] == "rescue"
    assert result["result"] == "The README says: install it with `pip install widget`."
    assert [c["name"] for c in result["tool_calls"]] == ["Read"]
    assert "switched" not in stderr
    for body in chats(server):
        assert "tools" not in body
        assert body["options"]["num_ctx"] == 8192
        assert (
            body["messages"][0]["role"] == "system" and "## Read" in body["messages"][0]["content"]
        )
        assert body["messages"][-1]["content"].endswith(DIRECTIVE)


def test_a_refusal_falls_back_and_corrects_the_cache(
    server: ScriptedServer, workspace: Path
) -> None:
    serve(server, "ollama_show_llama31_no_capabilities.json")  # the template says .Tools
    server.error(400, "ollama_error_no_tools.json")
    server.stream("ollama_chat_gemma_rescue_call.ndjson", NDJSON)
    server.stream("ollama_chat_gemma_answer.ndjson", NDJSON)
    result, stderr = run(server, workspace, "gemma:2b")
    assert result["mode"] == "rescue"
    assert "switched to rescue mode" in stderr and "does not support tools" in stderr
    refused, retried, _ = chats(server)
    assert refused["tools"] and "tools" not in retried

    server.stream("ollama_chat_gemma_answer.ndjson", NDJSON)
    again, stderr = run(server, workspace, "gemma:2b", "again?")
    assert again["mode"] == "rescue" and "switched" not in stderr
    assert "tools" not in chats(server)[-1]
    assert len(server.received("/api/show")) == 1
    cache = json.loads(
        (Path(os.environ["XDG_STATE_HOME"]) / "nehanda/cache/tool_support.json").read_text()
    )
    (detected,) = cache["detected"].values()
    assert detected["native_tools"] is False


def test_a_prompt_too_large_for_num_ctx_stops_before_ollama_cuts_it(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / ".nehanda").mkdir()
    (workspace / ".nehanda/settings.toml").write_text(
        '[providers.ollama]\ntype = "ollama"\ncontext_cap = 1024\n'
    )
    serve(server, "ollama_show_qwen3.json")
    server.stream("ollama_chat_answer.ndjson", NDJSON)
    done = nehanda(
        "run", "install?", "--provider", "ollama", "--base-url", server.root_url,
        "--model", "qwen3:8b", "--output", "json", cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 1
    # Ollama would drop the start of the prompt, tools included; nothing is sent.
    assert chats(server) == []
    error = json.loads(done.stdout.splitlines()[-1])["error"]
    assert "the model's window is 1,024" in error and "context_window" in error
