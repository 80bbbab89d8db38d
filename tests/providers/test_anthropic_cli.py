"""``nehanda run`` with Claude as a user runs it: a real process against a real server on
127.0.0.1 replaying recorded Messages API bytes, checking what the server received.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from scripted_server import ScriptedServer

README = "# widget\n\nInstall it with `pip install widget`.\n"
KEY = "sk-ant-api03-cli-secret"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(README)
    return tmp_path


def run(server: ScriptedServer, workspace: Path, *args: str) -> tuple[dict[str, Any], str]:
    env = {"ANTHROPIC_BASE_URL": server.root_url, "ANTHROPIC_API_KEY": KEY}
    done = nehanda("run", "install?", *args, "--output", "json", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert KEY not in done.stdout + done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result, done.stderr


def test_tool_result_answers_the_right_tool_use(server: ScriptedServer, workspace: Path) -> None:
    server.stream("anthropic_tool_use.sse").stream("anthropic_answer.sse")
    result, _ = run(server, workspace, "--provider", "anthropic", "--model", "claude-sonnet-4-5")
    assert (result["mode"], result["provider"], result["turns"]) == ("native", "anthropic", 2)
    assert result["result"] == "Install it with `pip install widget`."
    call_id = "toolu_01T1x1fJ34qAmk2tNTrN7Up6"
    assert [(c["id"], c["input"]) for c in result["tool_calls"]] == [
        (call_id, {"file_path": "README.md"})
    ]
    usage = result["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (1532 + 1620, 89 + 14)
    assert usage["context_window"] == 200_000  # Claude's family window, from the profiles

    first, second = server.requests
    assert first.path == second.path == "/v1/messages"
    assert first.headers["x-api-key"] == KEY
    assert first.headers["anthropic-version"] == "2023-06-01"
    assert isinstance(first.body["system"], str) and first.body["system"].strip()
    assert all(m["role"] != "system" for m in first.body["messages"])
    assert {t["name"] for t in first.body["tools"]} >= {"Read", "LS", "Glob", "Grep"}
    assert all("input_schema" in t for t in first.body["tools"])
    assistant, user = second.body["messages"][-2:]
    assert assistant["role"] == "assistant"
    assert assistant["content"][-1] == {
        "type": "tool_use",
        "id": call_id,
        "name": "Read",
        "input": {"file_path": "README.md"},
    }
    (result_block,) = user["content"]
    assert (result_block["type"], result_block["tool_use_id"]) == ("tool_result", call_id)
    assert "pip install widget" in result_block["content"]
    assert "is_error" not in result_block


def test_thinking_goes_back_signed_and_the_key_alone_picks_claude(
    server: ScriptedServer, workspace: Path
) -> None:
    server.stream("anthropic_thinking_tool_use.sse").stream("anthropic_answer.sse")
    result, _ = run(server, workspace)  # no --provider: ANTHROPIC_API_KEY is found
    assert (result["provider"], result["model"]) == ("anthropic", "claude-sonnet-4-5")
    thinking = server.requests[1].body["messages"][-2]["content"][0]
    assert thinking["type"] == "thinking"
    assert thinking["thinking"] == "The user wants install steps. README.md should have them."
    assert thinking["signature"].startswith("EqQBCgIYAhIM1gbcDa9GJwZA2b3h")
