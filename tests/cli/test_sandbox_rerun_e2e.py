"""A command the sandbox denied a write, in the REPL in a pseudo-terminal (pexpect) against
the real kernel: the note names what was denied, and nehanda offers to run that one
command again outside the sandbox, showing it; approved, it runs outside; refused, it does
not; under ``--yes`` the offer never comes, and the command stays denied."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from nehanda.sandbox.confine import probe_support
from repl_process import spawn_repl
from scripted_calls import calls_stream
from scripted_server import ScriptedServer
from seen_screen import seen

pytestmark = pytest.mark.skipif(probe_support().landlock_abi == 0, reason="needs Landlock")
PROMPT = "\x1b[?2004h"
OFFER = "runs it once more outside the sandbox"


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A workspace, a folder outside every writable root, and a private temp folder."""
    workspace, outside, tmp = (tmp_path / name for name in ("ws", "outside", "tmp"))
    for folder in (workspace, outside, tmp):
        folder.mkdir()
    return workspace, outside, {"TMPDIR": str(tmp)}


@pytest.fixture
def repl(server: ScriptedServer, place: tuple[Path, Path, dict[str, str]]) -> Iterator[Any]:
    children: list[pexpect.spawn] = []
    workspace, _, env = place

    def start(*extra: str) -> pexpect.spawn:
        child = spawn_repl(server.base_url, workspace, *extra, columns=200, env=env)
        children.append(child)
        return child

    yield start
    for child in children:
        child.close(force=True)


def write_outside(server: ScriptedServer, outside: Path) -> None:
    command = f"echo planted > {outside}/f.txt"
    server.stream(calls_stream([("Bash", {"command": command})])).stream("e2e_vllm_answer.sse")


def tool_result(server: ScriptedServer) -> str:
    messages = server.received("/v1/chat/completions")[-1].body["messages"]
    (content,) = [m["content"] for m in messages if m["role"] == "tool"]
    return str(content)


def noted(child: Any, outside: Path) -> None:
    """Waits for the prompt after the sandbox's note, and finds the note on the screen,
    broken between words at the terminal's width."""
    child.expect_exact(PROMPT)
    shown = " ".join(" ".join(seen(child.logfile_read.getvalue(), 200, 24)).split())
    assert f"note: nehanda: the sandbox denied a write to {outside}/f.txt;" in shown, shown


def run_until_offer(child: Any, outside: Path) -> None:
    child.expect_exact(PROMPT)
    child.send("plant it\r")
    child.expect_exact("Run it?")
    child.send("y")  # the command itself, in the sandbox
    child.expect_exact("nehanda wants to run Bash:")
    child.expect_exact(f"echo planted > {outside}/f.txt")  # the command, shown again
    child.expect_exact(f"It asks because the sandbox denied a write to {outside}/f.txt;")
    child.expect_exact(OFFER)
    child.expect_exact("Run it?")


def test_approved_the_command_runs_again_outside_the_sandbox(
    repl: Any, server: ScriptedServer, place: tuple[Path, Path, dict[str, str]]
) -> None:
    _, outside, _ = place
    write_outside(server, outside)
    child = repl()
    run_until_offer(child, outside)
    assert not (outside / "f.txt").exists()
    child.send("y")
    child.expect_exact(PROMPT)
    assert (outside / "f.txt").read_text() == "planted\n"
    result = tool_result(server)
    assert result.endswith("(run again outside the sandbox, as the user approved)")
    child.send("/exit\r")
    child.expect(pexpect.EOF)


def test_refused_the_command_is_not_run_again(
    repl: Any, server: ScriptedServer, place: tuple[Path, Path, dict[str, str]]
) -> None:
    _, outside, _ = place
    write_outside(server, outside)
    child = repl()
    run_until_offer(child, outside)
    child.send("n")
    noted(child, outside)
    assert not (outside / "f.txt").exists()
    result = tool_result(server)
    assert f"nehanda: the sandbox denied a write to {outside}/f.txt;" in result
    assert result.endswith("(the user chose not to run it outside the sandbox)")
    child.send("/exit\r")
    child.expect(pexpect.EOF)


def test_under_yes_the_note_shows_and_the_command_is_never_run_outside(
    repl: Any, server: ScriptedServer, place: tuple[Path, Path, dict[str, str]]
) -> None:
    _, outside, _ = place
    write_outside(server, outside)
    child = repl("--yes")
    child.expect_exact(PROMPT)
    child.send("plant it\r")
    noted(child, outside)
    assert not (outside / "f.txt").exists()
    assert OFFER not in child.logfile_read.getvalue()
    assert "outside the sandbox" not in tool_result(server)
    child.send("/exit\r")
    child.expect(pexpect.EOF)
