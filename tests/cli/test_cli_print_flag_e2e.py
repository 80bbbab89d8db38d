"""``nehanda -p PROMPT`` is ``nehanda run PROMPT``, as in Claude Code."""

from __future__ import annotations

from pathlib import Path

from cli_process import nehanda
from scripted_server import ScriptedServer


def test_dash_p_is_nehanda_run(server: ScriptedServer, tmp_path: Path) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    flags = ("--provider", "vllm", "--base-url", server.base_url, "--model", "q")
    by_p = nehanda("-p", "How do I install it?", *flags, cwd=tmp_path)
    by_run = nehanda("run", "How do I install it?", *flags, cwd=tmp_path)
    assert (
        (by_p.returncode, by_p.stdout)
        == (by_run.returncode, by_run.stdout)
        == (
            0,
            "Install it with `pip install widget`.\n",
        )
    )
    first, second = (r.body for r in server.received("/v1/chat/completions"))
    assert first["messages"][-1] == second["messages"][-1]
    assert first["messages"][-1]["content"] == "How do I install it?"


def test_dash_p_takes_output_json(server: ScriptedServer, tmp_path: Path) -> None:
    server.stream("e2e_vllm_answer.sse")
    flags = ("--provider", "vllm", "--base-url", server.base_url, "--model", "q")
    done = nehanda("-p", "hi", "--output", "json", *flags, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"result": "Install it with `pip install widget`."' in done.stdout
