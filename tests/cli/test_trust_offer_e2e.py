"""The question the REPL asks at start in a folder not trusted yet that holds what trust
would load (issue 29, item 8), in a pseudo-terminal against a scripted server: ``y``
trusts it for this very session, ``N``, Enter and Ctrl-D keep it untrusted, ``v`` shows
the files (hostile escapes escaped) and asks again; ``nehanda run`` never asks."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from cli_process import nehanda
from repl_process import spawn_repl
from scripted_server import ScriptedServer

PROMPT = "\x1b[?2004h"
QUESTION = "trust this folder? [y/N/v to view AGENTS.md and settings]"
COMPLETIONS = "/v1/chat/completions"
# The note breaks between words to fit the terminal, and the folder's path is long.
NOT_GIVEN = r"AGENTS\.md\s+was\s+not\s+given\s+to\s+the\s+model"
# A title that would set the terminal's window title and clear the screen if printed raw.
HOSTILE = "Always answer in French.\n\x1b]0;owned\x07\x1b[2J run `make lint` first\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "AGENTS.md").write_text(HOSTILE)
    return tmp_path


@pytest.fixture
def spawn(server: ScriptedServer, workspace: Path) -> Iterator[Any]:
    children: list[pexpect.spawn] = []

    def start(*extra: str) -> pexpect.spawn:
        child = spawn_repl(server.base_url, workspace, *extra)
        children.append(child)
        return child

    yield start
    for child in children:
        child.close(force=True)


def trusted() -> list[str]:
    store = Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "trusted_folders.json"
    return json.loads(store.read_text())["folders"] if store.exists() else []


def system_prompt(server: ScriptedServer) -> str:
    (request,) = server.received(COMPLETIONS)
    return str(request.body["messages"][0]["content"])


def ask_once(child: pexpect.spawn) -> None:
    child.send("Hello\r")
    child.expect("Install it with")
    child.expect_exact(PROMPT)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def test_yes_trusts_the_folder_as_nehanda_trust_does_and_this_session_reads_agents_md(
    spawn: Any, server: ScriptedServer, workspace: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect("is not trusted; it holds AGENTS.md")
    child.expect_exact(QUESTION)
    child.send("y")
    child.expect(f"trusted {workspace.resolve()}; its files apply from now on")
    child.expect_exact(PROMPT)
    assert "was not given to the model" not in child.logfile_read.getvalue()
    ask_once(child)
    assert "Always answer in French." in system_prompt(server)
    assert trusted() == [str(workspace.resolve())]
    assert nehanda("trust", "--list", cwd=workspace).stdout.rstrip().endswith("  trusted")

    again = spawn()  # asked once: a trusted folder is never asked again
    again.expect_exact(PROMPT)
    assert QUESTION not in again.logfile_read.getvalue()


@pytest.mark.parametrize("key", ["n", "\r", "\x04"], ids=["N", "Enter", "Ctrl-D"])
def test_no_enter_or_ctrl_d_keep_it_untrusted_and_say_how_to_trust_it_later(
    spawn: Any, server: ScriptedServer, key: str
) -> None:
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect_exact(QUESTION)
    child.send(key)
    child.expect_exact("not trusted; to trust it later, run `nehanda trust` here and start again")
    child.expect(NOT_GIVEN)
    child.expect_exact(PROMPT)
    ask_once(child)
    assert "French" not in system_prompt(server)
    assert trusted() == []


def test_v_shows_the_files_with_their_escapes_made_harmless_then_asks_again(
    spawn: Any, server: ScriptedServer, workspace: Path
) -> None:
    settings = workspace / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('[permissions]\nallow = ["Bash(make test)"]\n')
    (workspace / ".nehanda" / "commands").mkdir()
    (workspace / ".nehanda" / "commands" / "ship.md").write_text("Ship it.\n")
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect("its settings set permissions.allow")
    child.expect_exact(QUESTION)
    child.send("v")
    child.expect_exact("── AGENTS.md (2 lines)")
    child.expect_exact(r"\x1b]0;owned\x07\x1b[2J run `make lint` first")
    child.expect_exact("── .nehanda/settings.toml (2 lines)")
    child.expect_exact('allow = ["Bash(make test)"]')
    child.expect_exact("── .nehanda/commands/ (1 Markdown files)")
    child.expect_exact(QUESTION)
    child.send("y")
    child.expect("its files apply from now on")
    child.expect_exact(PROMPT)
    shown = child.logfile_read.getvalue()
    assert "\x1b]0;" not in shown and "\x1b[2J" not in shown
    ask_once(child)
    assert "Always answer in French." in system_prompt(server)
    assert trusted() == [str(workspace.resolve())]


def test_a_folder_with_nothing_trust_would_load_is_not_asked_about(
    spawn: Any, workspace: Path
) -> None:
    (workspace / "AGENTS.md").unlink()
    child = spawn()
    child.expect_exact(PROMPT)
    assert QUESTION not in child.logfile_read.getvalue()


def test_run_keeps_the_note_and_never_asks(server: ScriptedServer, workspace: Path) -> None:
    server.stream("e2e_vllm_answer.sse")
    args = ["--provider", "vllm", "--base-url", server.base_url, "--model", "q", "Hello"]
    done = nehanda("run", *args, cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "AGENTS.md was not given to the model" in done.stderr
    assert "trust this folder?" not in done.stderr + done.stdout
    assert trusted() == []
