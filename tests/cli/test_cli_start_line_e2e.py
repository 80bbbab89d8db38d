"""What was chosen, said at the start of ``nehanda run``: provider, model, tool mode and
why, permission mode; on stderr at a terminal, or always with ``--verbose``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_process import nehanda
from scripted_server import Reply, ScriptedServer, fixture_body


def vllm(server: ScriptedServer, *extra: str) -> list[str]:
    server.stream("e2e_vllm_answer.sse")
    return ["--provider", "vllm", "--base-url", server.base_url, "--model", "q", *extra]


@pytest.mark.parametrize("how", [("run", "hi"), ("-p", "hi")])
def test_verbose_names_what_was_chosen_on_stderr(
    how: tuple[str, str], server: ScriptedServer, tmp_path: Path
) -> None:
    done = nehanda(*how, *vllm(server, "--verbose"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Install it with `pip install widget`.\n"
    assert done.stderr.splitlines()[0] == (
        "nehanda: vllm · q · native tool calls (the vllm profile says so; a refusal would "
        f"switch to rescue) · permission mode default · {server.base_url}"
    )


def test_a_chosen_mode_says_who_chose_it(server: ScriptedServer, tmp_path: Path) -> None:
    args = vllm(server, "-v", "--mode", "rescue", "--permission-mode", "plan")
    done = nehanda("run", "hi", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert "· rescue tool calls (chosen with --mode) · permission mode plan ·" in first
    assert "[TOOL_CALL]" in json.dumps(server.requests[-1].body)  # rescue it was


def test_ollama_says_what_its_server_said(server: ScriptedServer, tmp_path: Path) -> None:
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), json_type))
    show = fixture_body("ollama_show_gemma_no_tools.json")
    server.route("POST", "/api/show", Reply(200, show, json_type))
    server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    done = nehanda(
        "run", "hi", "--provider", "ollama", "--base-url", server.root_url, "--model", "gemma:2b",
        "--verbose", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "· rescue tool calls (Ollama /api/show lists no tools capability) ·" in done.stderr


def test_without_verbose_a_pipe_gets_no_start_line(server: ScriptedServer, tmp_path: Path) -> None:
    done = nehanda("run", "hi", *vllm(server), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_verbose_goes_with_a_prompt(tmp_path: Path) -> None:
    done = nehanda("--verbose", cwd=tmp_path)
    assert done.returncode == 2
    assert "--verbose go with -p or nehanda run" in done.stderr


def test_mode_native_and_force_manual_tools_disagree(tmp_path: Path) -> None:
    done = nehanda("run", "hi", "--mode", "native", "--force-manual-tools", cwd=tmp_path)
    assert done.returncode == 2
    assert "--mode native and --force-manual-tools disagree" in done.stderr


def test_stream_json_init_says_why_and_the_permission_mode(
    server: ScriptedServer, tmp_path: Path
) -> None:
    args = vllm(server, "--output", "stream-json", "--mode", "native", "--permission-mode", "plan")
    done = nehanda("run", "hi", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert (init["type"], init["mode"], init["mode_reason"], init["permission_mode"]) == (
        "init", "native", "chosen with --mode", "plan"
    )  # fmt: skip
    assert done.stderr == ""  # no start line in the JSON formats: the init line says it
