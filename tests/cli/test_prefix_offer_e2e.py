"""``python3 -m pytest`` at the approval prompt: "always" offers the prefix rule
``Bash(python3 -m pytest:*)``, which then runs the next such command unasked."""

from __future__ import annotations

from pathlib import Path

import pexpect

from cli.test_approval_e2e import COMPLETIONS, PROMPT, bash_call
from repl_process import spawn_repl
from scripted_server import ScriptedServer


def test_always_offers_the_python_m_pytest_prefix(server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert True\n")
    server.stream(bash_call("python3 -m pytest -q -p no:cacheprovider test_one.py"))
    server.stream("e2e_vllm_answer.sse")
    server.stream(bash_call("python3 -m pytest -p no:cacheprovider test_one.py"))
    server.stream("e2e_vllm_answer.sse")
    child = spawn_repl(server.base_url, tmp_path, columns=200)
    try:
        child.expect_exact(PROMPT)
        child.send("run the tests\r")
        child.expect_exact("a = always allow (pick the rule)")
        child.send("a")
        child.expect_exact("1 = Bash(python3 -m pytest:*)")
        child.send("1")
        child.expect_exact("Where? (s, u; Esc = back) ")
        child.send("s")
        child.expect_exact(PROMPT)
        child.send("again\r")
        child.expect_exact(PROMPT)
        assert child.logfile_read.getvalue().count("Run it?") == 1
        results = [
            m["content"]
            for m in server.received(COMPLETIONS)[-1].body["messages"]
            if m["role"] == "tool"
        ]
        assert "1 passed" in results[-1]
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
