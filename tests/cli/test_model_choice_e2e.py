"""Choosing a model the server does not have: ``/model NAME`` refuses it and lists what
the server has, a server that is down is not said to list no models, and ``nehanda run
--model nosuch`` names the models on offer. The REPL in a pty, ``run`` as a process,
against the scripted server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from cli_process import nehanda
from repl_process import spawn_repl
from scripted_server import Reply, ScriptedServer

PROMPT = "\x1b[?2004h"
JSON = {"Content-Type": "application/json"}
MODELS = {"object": "list", "data": [{"id": "q", "object": "model"}, {"id": "q2"}]}
NOT_FOUND = {"object": "error", "message": "The model `nosuch` does not exist.", "code": 404}


def test_model_refuses_a_name_the_server_does_not_list(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.route("GET", "/v1/models", Reply(200, json.dumps(MODELS).encode(), JSON))
    child = spawn_repl(server.base_url, tmp_path)
    child.expect_exact(PROMPT)
    child.send("/model nosuch\r")
    child.expect(r"vllm does not list the model 'nosuch'; it has: q, q2; the model stays q")
    child.expect_exact(PROMPT)
    child.send("/model q2\r")
    child.expect(r"vllm · q2 · ")
    child.expect_exact(PROMPT)
    child.send("/exit\r")
    child.expect(pexpect.EOF)


def test_a_server_that_is_down_is_not_said_to_list_no_models(
    tmp_path: Path, unused_port: int
) -> None:
    child = spawn_repl(f"http://127.0.0.1:{unused_port}/v1", tmp_path)
    child.expect_exact(PROMPT)
    child.send("/model\r")
    child.expect(r"its server did not answer \(connection refused\); /model NAME switches")
    child.expect_exact(PROMPT)
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    assert "lists no models" not in child.logfile_read.getvalue()


def test_run_with_a_model_the_server_lacks_lists_those_it_has(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.route("GET", "/v1/models", Reply(200, json.dumps(MODELS).encode(), JSON))
    server.reply(Reply(404, json.dumps(NOT_FOUND).encode(), JSON))
    given = ("--provider", "vllm", "--base-url", server.base_url, "--model", "nosuch")
    done = nehanda("run", "hi", *given, cwd=tmp_path)
    assert done.returncode == 1
    assert "does not exist" in done.stderr
    assert "vllm does not list the model 'nosuch'; it has: q, q2: pass --model NAME" in done.stderr
