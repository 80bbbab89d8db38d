"""Agents that speak only the Responses API, through ``nehanda serve``: the OpenAI Agents
SDK's default model (``OpenAIResponsesModel``) and, when it is installed, Codex CLI."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import openai
import pytest

from serve.conftest import TOKEN, Served
from serve.test_serve_openai import CALL_BODY, PROSE_BODY

agents = pytest.importorskip("agents")


@pytest.mark.parametrize("streamed", [False, True])
def test_the_agents_sdk_default_model_runs_its_tool_through_serve(
    serve: Served, streamed: bool
) -> None:
    serve.native.stream(CALL_BODY)
    serve.native.stream(PROSE_BODY)
    agents.set_tracing_disabled(True)  # its traces would go to api.openai.com
    read: list[str] = []

    @agents.function_tool
    def Read(file_path: str) -> str:
        """Read a file."""
        read.append(file_path)
        return "# Marker 42"

    async def run() -> Any:
        client = openai.AsyncOpenAI(base_url=serve.url + "/v1", api_key=TOKEN, max_retries=0)
        model = agents.OpenAIResponsesModel(model="native-model", openai_client=client)
        agent = agents.Agent(name="reader", instructions="Answer.", model=model, tools=[Read])
        if not streamed:
            return await agents.Runner.run(agent, "What is in README.md?")
        result = agents.Runner.run_streamed(agent, "What is in README.md?")
        async for _ in result.stream_events():
            pass
        return result

    result = asyncio.run(run())
    assert read == ["README.md"]
    assert result.final_output == "Install it with `pip install widget`."
    second = serve.native.requests[1].body["messages"]
    assert second[0] == {"role": "system", "content": "Answer."}
    assert second[-1]["role"] == "tool" and second[-1]["content"] == "# Marker 42"
    assert second[-2]["tool_calls"][0]["id"] == second[-1]["tool_call_id"]


@pytest.mark.skipif(
    shutil.which("codex") is None, reason="codex (npm @openai/codex) is not on PATH"
)
@pytest.mark.skipif(
    shutil.which("unshare") is None or shutil.which("ip") is None, reason="no unshare"
)
def test_codex_exec_runs_its_own_tool_through_serve_with_only_loopback(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("NOTE-MARKER-77\n")
    helper = Path(__file__).with_name("codex_through_serve.py")
    tests = str(Path(__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])}
    inner = f'ip link set lo up && exec "$0" {helper} {tmp_path} "What is in notes.txt?"'
    command = ["unshare", "-rn", "sh", "-c", inner, sys.executable]
    subprocess.run(command, env=env, check=True, timeout=240)
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["returncode"] == 0, result["stderr"][-2000:]
    assert "Install it with `pip install widget`." in result["stdout"]
    first, second = result["requests"]
    assert any(tool["function"]["name"] == "exec_command" for tool in first["tools"])
    assert first["model"] == "qwen"
    ran = second["messages"][-1]
    assert ran["role"] == "tool" and "NOTE-MARKER-77" in ran["content"]
    assert second["messages"][-2]["tool_calls"][0]["id"] == ran["tool_call_id"]
