"""Hooks as a user meets them: the real ``nehanda run`` process, real hook processes (small
Python scripts the test writes), and a scripted model server on 127.0.0.1 whose model
asks Bash to create a marker file, then answers."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from hook_scripts import hook, hooks_toml, seen, user_settings
from nehanda.config.trust import trust_folder
from processes import gone
from scripted_calls import calls_stream
from scripted_server import ScriptedServer

COMPLETIONS = "/v1/chat/completions"
TOUCH = [("Bash", {"command": "touch marker.txt"})]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    return tmp_path / "hooks"


def run(server: ScriptedServer, workspace: Path, *extra: str, prompt: str = "Make it.") -> Any:
    """``nehanda run --output json`` with a fake HOME (no ~/.claude of the machine's)."""
    return nehanda(
        "run", prompt, "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        "--output", "json", *extra, cwd=workspace, env={"HOME": str(workspace.parent)},
    )  # fmt: skip


def call_then_answer(server: ScriptedServer, calls: list[tuple[str, dict[str, Any]]]) -> None:
    server.stream(calls_stream(calls)).stream("e2e_vllm_answer.sse")


def tool_content(server: ScriptedServer) -> str:
    message = server.received(COMPLETIONS)[-1].body["messages"][-1]
    assert message["role"] == "tool"
    content: str = message["content"]
    return content


def first_call(done: Any) -> dict[str, Any]:
    call: dict[str, Any] = json.loads(done.stdout)["tool_calls"][0]
    return call


def test_exit_2_blocks_the_call_under_yes_and_its_stderr_is_the_reason(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "block", 'sys.stderr.write("markers are not made here"); sys.exit(2)')
    user_settings(hooks_toml(("PreToolUse", "Bash", command)))
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert done.returncode == 3, done.stderr
    assert not (workspace / "marker.txt").exists()
    assert "markers are not made here" in tool_content(server)
    assert first_call(done)["refused"]["by"] == "rules"


def test_a_matcher_names_the_whole_tool(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "block", "sys.exit(2)")
    user_settings(hooks_toml(("PreToolUse", "Bas", command), ("PreToolUse", "Read|LS", command)))
    call_then_answer(server, TOUCH)
    run(server, workspace, "--yes")
    assert (workspace / "marker.txt").exists()
    assert seen(scripts, "block") == []


def test_allow_runs_a_call_that_would_ask_and_the_hook_is_told_everything(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    command = hook(scripts, "allow", f"print({json.dumps(json.dumps(answer))})")
    user_settings(hooks_toml(("PreToolUse", "*", command)))
    call_then_answer(server, TOUCH)
    done = run(server, workspace)  # no terminal and no --yes: it would be refused
    assert done.returncode == 0, done.stderr
    assert (workspace / "marker.txt").exists()
    (record,) = seen(scripts, "allow")
    given = record["input"]
    assert given["hook_event_name"] == "PreToolUse" and given["tool_name"] == "Bash"
    assert given["tool_input"] == {"command": "touch marker.txt"}
    assert given["tool_use_id"] == "call-0" and given["cwd"] == str(workspace)
    assert given["permission_mode"] == "default"
    session_id = json.loads(done.stdout)["session_id"]
    assert given["session_id"] == session_id
    assert given["transcript_path"].endswith(f"{session_id}.jsonl")
    assert record["env"] == {"NEHANDA_PROJECT_DIR": str(workspace)} | {
        "CLAUDE_PROJECT_DIR": str(workspace)
    }


@pytest.mark.parametrize("decision", ["deny", "ask"])
def test_deny_and_ask_hold_under_yes(
    server: ScriptedServer, workspace: Path, scripts: Path, decision: str
) -> None:
    specific = {"permissionDecision": decision, "permissionDecisionReason": "not on Fridays"}
    command = hook(scripts, "d", f"print(json.dumps({{'hookSpecificOutput': {specific!r}}}))")
    user_settings(hooks_toml(("PreToolUse", "Bash", command)))
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert not (workspace / "marker.txt").exists()
    refused = first_call(done)["refused"]
    # ask: the call asks, and nobody can be asked here
    assert refused["by"] == ("rules" if decision == "deny" else "nobody")
    assert "not on Fridays" in refused["reason"]


def updating(scripts: Path, tool_input: object, allow: bool = False) -> str:
    specific: dict[str, object] = {"hookEventName": "PreToolUse", "updatedInput": tool_input}
    if allow:
        specific["permissionDecision"] = "allow"
    return hook(
        scripts, "update", f"print({json.dumps(json.dumps({'hookSpecificOutput': specific}))})"
    )


def test_updated_input_is_what_runs(server: ScriptedServer, workspace: Path, scripts: Path) -> None:
    user_settings(hooks_toml(("PreToolUse", "Bash", updating(scripts, {"command": "touch b.txt"}))))
    call_then_answer(server, TOUCH)
    run(server, workspace, "--yes")
    assert (workspace / "b.txt").exists() and not (workspace / "marker.txt").exists()


def test_updated_input_the_tool_does_not_take_is_refused(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    user_settings(hooks_toml(("PreToolUse", "Bash", updating(scripts, {"cmd": "touch b.txt"}))))
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert not list(workspace.iterdir())
    assert "does not take" in first_call(done)["refused"]["reason"]


def test_an_allowed_updated_input_does_not_get_past_a_deny_rule(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = updating(scripts, {"command": "touch secret.txt"}, allow=True)
    settings = hooks_toml(("PreToolUse", "Bash", command))
    user_settings(f'[permissions]\ndeny = ["Bash(touch secret.txt)"]\n\n{settings}')
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert not list(workspace.iterdir())
    refused = first_call(done)["refused"]
    assert refused["by"] == "rules" and "Bash(touch secret.txt)" in refused["reason"]


def test_json_that_cannot_be_read_is_a_warning_and_allows_nothing(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "bad", 'print("{permissionDecision: allow")')
    user_settings(hooks_toml(("PreToolUse", "Bash", command)))
    call_then_answer(server, TOUCH)
    done = run(server, workspace)
    assert "printed JSON that cannot be read" in done.stderr
    assert not (workspace / "marker.txt").exists()
    assert first_call(done)["refused"]["by"] == "nobody"


def test_a_hung_hook_is_killed_at_its_timeout_with_its_children(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    pids = scripts / "pids"
    body = f"""
    import subprocess, time
    child = subprocess.Popen(["sleep", "300"])
    open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
    time.sleep(300)
    """
    user_settings(hooks_toml(("PreToolUse", "Bash", hook(scripts, "hang", body), 1)))
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert "timed out and was killed" in done.stderr
    assert (workspace / "marker.txt").exists()  # a hook that said nothing stops nothing
    assert all(gone(int(pid)) for pid in pids.read_text().split())


def test_a_user_prompt_hook_adds_context(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "ctx", 'print("The word of the day is plum.")')
    user_settings(hooks_toml(("UserPromptSubmit", "", command)))
    server.stream("e2e_vllm_answer.sse")
    run(server, workspace, prompt="What is the word?")
    sent = server.received(COMPLETIONS)[0].body["messages"][-1]["content"]
    assert sent.startswith("What is the word?") and "plum" in sent
    assert seen(scripts, "ctx")[0]["input"]["prompt"] == "What is the word?"


def test_a_user_prompt_hook_drops_the_prompt(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "no", 'sys.stderr.write("no secrets in prompts"); sys.exit(2)')
    user_settings(hooks_toml(("UserPromptSubmit", "", command)))
    done = run(server, workspace, prompt="my key is sk-123")
    assert done.returncode == 1
    assert "no secrets in prompts" in done.stderr
    assert server.received(COMPLETIONS) == []


def test_a_stop_hook_makes_the_model_go_on_at_most_three_times(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "stop", 'sys.stderr.write("run the tests first"); sys.exit(2)')
    user_settings(hooks_toml(("Stop", "", command)))
    for _ in range(4):
        server.stream("e2e_vllm_answer.sse")
    done = run(server, workspace)
    assert done.returncode == 0, done.stderr
    requests = server.received(COMPLETIONS)
    assert len(requests) == 4
    assert "run the tests first" in requests[1].body["messages"][-1]["content"]
    assert [r["input"]["stop_hook_active"] for r in seen(scripts, "stop")] == [
        False, True, True, True,
    ]  # fmt: skip
    assert "3 times in a row" in done.stderr
    assert json.loads(done.stdout)["turns"] == 4


def test_session_start_context_goes_with_the_first_prompt(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "start", 'print("This project uses tabs.")')
    user_settings(hooks_toml(("SessionStart", "startup", command)))
    server.stream("e2e_vllm_answer.sse")
    run(server, workspace)
    assert (
        "This project uses tabs." in server.received(COMPLETIONS)[0].body["messages"][-1]["content"]
    )
    assert seen(scripts, "start")[0]["input"]["source"] == "startup"


def test_a_project_hook_runs_only_once_approved_and_asks_again_after_a_change(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    settings = workspace / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    command = hook(scripts, "proj", "sys.exit(2)")
    settings.write_text(hooks_toml(("PreToolUse", "Bash", command)))
    trust_folder(workspace)
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert "is new, so it does not run" in done.stderr and (workspace / "marker.txt").exists()
    assert seen(scripts, "proj") == []

    listed = nehanda("hooks", cwd=workspace, env={"HOME": str(workspace.parent)})
    assert f"{settings}:3" in listed.stdout and "not approved yet" in listed.stdout
    approved = nehanda("hooks", "approve", "--yes", cwd=workspace)
    assert approved.returncode == 0, approved.stderr
    (workspace / "marker.txt").unlink()
    call_then_answer(server, TOUCH)
    run(server, workspace, "--yes")
    assert len(seen(scripts, "proj")) == 1 and not (workspace / "marker.txt").exists()

    changed = hook(scripts, "proj2", "sys.exit(2)")
    settings.write_text(hooks_toml(("PreToolUse", "Bash", changed)))
    trust_folder(workspace)  # the folder's trust is bound to the file too
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert "changed since you approved it" in done.stderr
    assert seen(scripts, "proj2") == [] and (workspace / "marker.txt").exists()


def test_an_untrusted_project_hook_never_runs_even_if_approved_elsewhere(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    settings = workspace / ".nehanda" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text(hooks_toml(("PreToolUse", "Bash", hook(scripts, "p", "sys.exit(2)"))))
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert "hooks" in done.stderr and "trust" in done.stderr
    assert seen(scripts, "p") == [] and (workspace / "marker.txt").exists()


def test_claude_code_hooks_are_read_and_said_so(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "claude", 'sys.stderr.write("blocked by a Claude hook"); sys.exit(2)')
    claude = workspace.parent / ".claude" / "settings.json"
    claude.parent.mkdir()
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 30}]}
    claude.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}, indent=2))
    call_then_answer(server, TOUCH)
    done = run(server, workspace, "--yes")
    assert f"hooks read from {claude} (Claude Code's format)" in done.stderr
    assert "blocked by a Claude hook" in tool_content(server)
    assert not (workspace / "marker.txt").exists()


def test_post_tool_use_sees_the_result_and_its_block_reason_reaches_the_model(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "post", 'sys.stderr.write("now run the linter"); sys.exit(2)')
    user_settings(hooks_toml(("PostToolUse", "Bash", command)))
    call_then_answer(server, TOUCH)
    run(server, workspace, "--yes")
    assert (workspace / "marker.txt").exists()
    assert "now run the linter" in tool_content(server)
    given = seen(scripts, "post")[0]["input"]
    assert (
        given["tool_response"]["is_error"] is False
        and "exit code 0" in given["tool_response"]["content"]
    )


def test_no_hooks_means_no_hook_module_is_loaded(workspace: Path) -> None:
    script = (
        "import sys, asyncio\n"
        "from nehanda.cli.session import ChatSession\n"
        "print(sorted(m for m in sys.modules if m.startswith('nehanda.hooks')))"
    )
    done = nehanda_python(script, workspace)
    assert done == "[]"


def nehanda_python(script: str, cwd: Path) -> str:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True,
        env={**os.environ}, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def test_run_notifies_only_with_notify(
    server: ScriptedServer, workspace: Path, scripts: Path
) -> None:
    command = hook(scripts, "notify", "")
    user_settings(f"[notify]\nafter = 0\ncommand = {json.dumps(command)}\n")
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    run(server, workspace)
    assert seen(scripts, "notify") == []
    run(server, workspace, "--notify")
    (record,) = seen(scripts, "notify")
    assert record["input"]["notification_type"] == "idle_prompt"
    assert record["input"]["hook_event_name"] == "Notification"
