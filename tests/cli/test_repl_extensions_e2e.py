"""Custom commands, ``@path``, ``!command`` and ``/init`` in the REPL, driven for real:
``python -m nehanda`` in a pseudo-terminal against a scripted vLLM server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from repl_process import spawn_repl
from scripted_server import ScriptedServer

PROMPT = "\x1b[?2004h"
COMPLETIONS = "/v1/chat/completions"
REVIEW = """\
---
description: Review a file
argument-hint: FILE
---
Review $1 closely. Context: @NOTES.md
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    commands = home / ".claude" / "commands" / "code"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW)
    skill = home / ".agents" / "skills" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidy imports.\n---\nSort them.\n"
    )
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "NOTES.md").write_text("NOTES-MARKER: keep it small\n")
    return folder


@pytest.fixture
def repl(server: ScriptedServer, workspace: Path, home: Path) -> Iterator[pexpect.spawn]:
    settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('[permissions]\nallow = ["Bash(echo:*)"]\n')
    child = spawn_repl(server.base_url, workspace, env={"HOME": str(home)}, columns=240)
    child.expect_exact(PROMPT)
    yield child
    child.close(force=True)


def exchange(child: pexpect.spawn, line: str, *shown: str) -> None:
    child.send(line + "\r")
    for pattern in shown:
        child.expect(pattern)
    child.expect_exact(PROMPT)


def users(server: ScriptedServer, index: int = -1) -> list[str]:
    body: dict[str, Any] = server.received(COMPLETIONS)[index].body
    return [str(m["content"]) for m in body["messages"] if m["role"] == "user"]


def test_a_custom_command_with_arguments_and_an_include_runs_and_help_lists_it(
    repl: pexpect.spawn, server: ScriptedServer
) -> None:
    exchange(repl, "/help", r"/review FILE", r"Review a file \(user:code\)")
    exchange(repl, "/skills", "Skills", "tidy", r"Tidy imports\. \(user: ", "agents/skills/tidy")
    repl.send("/rev\t")
    repl.expect_exact("iew")  # completed
    server.stream("e2e_vllm_answer.sse")
    exchange(repl, " src/app.py", "pip install widget")
    (sent,) = users(server)
    assert sent.startswith("Review src/app.py closely. Context: @NOTES.md")
    assert "NOTES-MARKER: keep it small" in sent
    exchange(repl, "/reveiw x", r"unknown command /reveiw \(did you mean /review\?\)")
    assert len(server.received(COMPLETIONS)) == 1


def test_a_mentioned_file_is_attached_and_a_mail_address_stays_as_typed(
    repl: pexpect.spawn, server: ScriptedServer
) -> None:
    server.stream("e2e_vllm_answer.sse")
    exchange(repl, "see @NOTES.md, and mail me at me@example.com", "pip install widget")
    (sent,) = users(server)
    assert sent.startswith("see @NOTES.md, and mail me at me@example.com\n\n")
    assert "The user attached @NOTES.md" in sent and "NOTES-MARKER" in sent


def test_a_bang_command_runs_through_the_gate_and_its_output_joins_the_conversation(
    repl: pexpect.spawn, server: ScriptedServer, workspace: Path
) -> None:
    exchange(repl, "!echo bang-output", "bang-output")
    repl.send("!touch made-by-bang\r")
    repl.expect_exact("a = always allow Bash(touch made-by-bang))")  # no rule allows it
    repl.send("n")
    repl.expect_exact("the user said no")
    repl.expect_exact(PROMPT)
    assert not (workspace / "made-by-bang").exists()
    assert server.received(COMPLETIONS) == []
    server.stream("e2e_vllm_answer.sse")
    exchange(repl, "what did it print?", "pip install widget")
    sent = users(server)
    assert "`echo bang-output`" in sent[0] and "bang-output" in sent[0]
    assert sent[-1] == "what did it print?"


def test_init_asks_before_it_overwrites_agents_md(
    repl: pexpect.spawn, server: ScriptedServer, workspace: Path
) -> None:
    agents = workspace / "AGENTS.md"
    agents.write_text("# mine\n")
    exchange(repl, "/init", "exists. Replace it with a new draft")
    exchange(repl, "n", "left as it was")
    assert agents.read_text() == "# mine\n" and server.received(COMPLETIONS) == []
    server.stream("e2e_vllm_answer.sse")
    exchange(repl, "/init", "exists. Replace it")
    exchange(repl, "y", "wrote .*AGENTS.md")
    assert "pip install widget" in agents.read_text()
    assert "AGENTS.md" in users(server)[0]
