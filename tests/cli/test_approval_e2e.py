"""The approval prompt driven for real: the REPL (``python -m nehanda``) in a pseudo-terminal
(pexpect), a scripted vLLM server on 127.0.0.1 asking for a Bash call, and a user who
says no with words for the model, or answers "always" with the prefix rule and keeps
it in their settings file; and ``nehanda run`` without a terminal, where a command that
only reads runs while the kernel sandbox is on, and is refused while it is off."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from cli_process import run_json
from nehanda.sandbox.confine import probe_support
from repl_process import spawn_repl
from scripted_server import ScriptedServer, fixture_body

PROMPT = "\x1b[?2004h"
COMPLETIONS = "/v1/chat/completions"


def bash_call(command: str) -> bytes:
    """The recorded vLLM Bash call, asking for ``command`` instead of ``touch marker.txt``."""
    recorded = fixture_body("e2e_vllm_bash_touch_marker.sse")
    return recorded.replace(b"touch", command.encode()).replace(b" marker.txt", b"")


@pytest.fixture
def spawn(server: ScriptedServer, tmp_path: Path) -> Iterator[Any]:
    children: list[pexpect.spawn] = []

    def start() -> pexpect.spawn:
        child = spawn_repl(server.base_url, tmp_path, columns=200)
        children.append(child)
        return child

    yield start
    for child in children:
        child.close(force=True)


def tool_results(server: ScriptedServer) -> list[str]:
    request = server.received(COMPLETIONS)[-1].body
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_no_with_words_sends_them_to_the_model_and_the_line_says_who_said_no(
    spawn: Any, server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(bash_call("npm run test -- --ci")).stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect_exact(PROMPT)
    child.send("run the tests\r")
    child.expect_exact("t = no, and tell the model what to do instead")
    child.send("t")
    child.expect_exact("tell the model (Enter sends, Esc for a plain no): ")
    child.send("use uv run pytest inst\x7f\x7f\x7f\x7finstead\r")
    child.expect_exact("you said no: use uv run pytest instead")
    child.expect_exact(PROMPT)
    (result,) = tool_results(server)
    assert result.startswith("Permission denied: Bash was not run because it needs the user's")
    assert 'The user\'s reply, in their own words: "use uv run pytest instead"' in result
    child.send("/exit\r")
    child.expect(pexpect.EOF)


def test_keys_typed_ahead_during_the_reply_never_answer_the_approval_prompt(
    spawn: Any, server: ScriptedServer, tmp_path: Path
) -> None:
    """A "y" typed while the model was still writing is the user's next prompt, not
    their answer to a question they have not seen yet."""
    server.stream(bash_call("touch marker.txt"), held=server.released)
    server.stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect_exact(PROMPT)
    child.send("make a marker\r")
    child.expect_exact("waiting for q")
    for key in "yay":
        child.send(key)
    child.expect_exact("yay")  # read while the model still writes
    server.released.set()
    child.expect_exact("t = no, and tell the model what to do instead")
    assert not (tmp_path / "marker.txt").exists()
    child.send("n")
    child.expect_exact("you said no")
    child.expect_exact(PROMPT)
    assert not (tmp_path / "marker.txt").exists()
    child.send("\x03/exit\r")  # Ctrl-C clears "yay", waiting in the prompt's input
    child.expect(pexpect.EOF)


def test_always_with_the_prefix_rule_kept_in_the_user_settings(
    spawn: Any, server: ScriptedServer, tmp_path: Path
) -> None:
    settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('# mine, by hand\n[permissions]\nallow = ["Bash(ls)"]  # listing\n')
    (tmp_path / "Makefile").write_text("check:\n\t@echo checked $(N)\n")
    server.stream(bash_call("make check")).stream("e2e_vllm_answer.sse")
    server.stream(bash_call("make check N=2")).stream("e2e_vllm_answer.sse")
    child = spawn()
    child.expect_exact(PROMPT)
    child.send("check it\r")
    child.expect_exact("a = always allow (pick the rule)")
    child.send("a")
    child.expect_exact("1 = Bash(make check:*)")
    child.expect_exact("2 = Bash(make check)")
    child.send("1")
    child.expect_exact(f"u = in your settings ({settings})")
    child.send("u")
    child.expect_exact(f"saved in {settings}")
    child.expect_exact(PROMPT)
    assert "checked" in tool_results(server)[0]
    assert settings.read_text() == (
        '# mine, by hand\n[permissions]\nallow = ["Bash(ls)", "Bash(make check:*)"]  # listing\n'
    )
    child.send("again\r")
    child.expect_exact(PROMPT)
    assert "checked 2" in tool_results(server)[-1]
    assert child.logfile_read.getvalue().count("Run it?") == 1
    child.send("/exit\r")
    child.expect(pexpect.EOF)


@pytest.mark.skipif(probe_support().landlock_abi == 0, reason="needs Landlock")
def test_nehanda_run_reads_unasked_only_while_the_sandbox_is_on(
    server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("# widget\n")
    for _ in range(2):
        server.stream(bash_call("cat README.md | wc -l")).stream("e2e_vllm_answer.sse")
    assert run_json(server.base_url, "how long is it?", cwd=tmp_path).returncode == 0
    (result,) = tool_results(server)
    assert result.startswith("1\n")

    settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("[sandbox]\nenabled = false\n")
    assert run_json(server.base_url, "how long is it?", cwd=tmp_path).returncode == 3
    (result,) = tool_results(server)
    assert result.startswith("Permission denied: Bash was not run because it needs the user's")

    settings.write_text("")
    (tmp_path / "up").symlink_to(tmp_path.parent)
    server.stream(bash_call("cat up/secret")).stream("e2e_vllm_answer.sse")
    done = run_json(server.base_url, "x", cwd=tmp_path)
    assert done.returncode == 3
    (result,) = tool_results(server)
    assert result.startswith("Permission denied") and "cat up/secret" in result
