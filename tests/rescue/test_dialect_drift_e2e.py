"""Calls printed in a model's own dialect run through the real CLI: leaked on the native
path by a server whose tool parser is not set up, and drifted into in rescue mode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_process import nehanda, run_json
from scripted_server import ScriptedServer
from stripping_proxy import StrippingProxy


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# widget\n\nInstall it with `pip install widget`.\n")
    return tmp_path


def test_a_glm_call_leaked_by_the_server_runs_natively(
    server: ScriptedServer, workspace: Path
) -> None:
    server.stream("e2e_vllm_glm_leaked_call.sse").stream("nehanda_cloud_answer.sse")
    done = run_json(server.base_url, "install?", cwd=workspace)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["mode"] == "native"
    assert [(c["name"], c["input"]) for c in result["tool_calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    assistant, tool = server.requests[1].body["messages"][-2:]
    assert assistant["tool_calls"][0]["function"]["name"] == "Read"
    assert tool["role"] == "tool" and "pip install widget" in tool["content"]


def test_a_kimi_call_drifted_into_in_rescue_mode_runs(
    server: ScriptedServer, workspace: Path
) -> None:
    proxy = StrippingProxy(server.base_url)
    try:
        server.stream("e2e_rescue_kimi_drift.sse").stream("nehanda_cloud_answer.sse")
        done = nehanda(
            "run", "install?", "--provider", "nehanda", "--model", "kimi", "--output",
            "stream-json", cwd=workspace,
            env={"NEHANDA_BASE_URL": proxy.base_url, "NEHANDA_API_KEY": "nk-secret"},
        )  # fmt: skip
    finally:
        proxy.close()
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    result = lines[-1]
    assert result["mode"] == "rescue"
    assert [(c["name"], c["input"]) for c in result["tool_calls"]] == [
        ("Read", {"file_path": "README.md"})
    ]
    shown = "".join(line["text"] for line in lines if line["type"] == "text")
    assert "Let me look at the file." in shown and "<|tool_call" not in shown
    results = server.requests[1].body["messages"][-1]["content"]
    assert "pip install widget" in results
