"""``nehanda "PROMPT"`` at a terminal: the REPL starts with PROMPT sent as its first."""

from __future__ import annotations

from pathlib import Path

import pexpect

from repl_process import spawn_repl
from scripted_server import ScriptedServer

PROMPT = "\x1b[?2004h"


def test_a_prompt_word_starts_the_repl_with_it_sent_first(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    child = spawn_repl(server.base_url, tmp_path, "How do I install it?")
    try:
        child.expect("pip install widget")
        child.expect_exact(PROMPT)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    (request,) = server.received("/v1/chat/completions")
    assert request.body["messages"][-1]["content"] == "How do I install it?"
    assert child.exitstatus == 0
