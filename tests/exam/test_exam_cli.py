"""``nehanda doctor --exam`` against scripted models on 127.0.0.1.

Four models (``exam_models``): one perfect in native mode, one whose server lets its
native calls through as text, one that calls tools only in rescue mode, one that fails
everything. For each, the table, the recommendation, ``--save`` and the JSON (checked
against ``docs/exam-output.schema.json``) must come out right. The command runs
in-process through click, except where a real process is the point (Ctrl-C).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pexpect
import pytest
from click.testing import CliRunner, Result

from cli_process import nehanda
from exam import exam_models
from nehanda.cli.main import cli
from nehanda.config.settings import load_settings, resolve_named_provider, user_settings_path
from nehanda.exam.tasks import TASKS
from scripted_server import Received, Reply, ScriptedServer, fixture_body
from waiting import GUARD

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "docs" / "exam-output.schema.json").read_text(encoding="utf-8")
)
CALLS = sum(len(turn.calls) for task in TASKS for turn in task.turns)
REQUESTS = sum(len(task.turns) for task in TASKS)


@pytest.fixture(autouse=True)
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def doctor(*args: str, code: int = 0) -> Result:
    """``nehanda doctor ARGS`` in-process; ``code`` is the exit code it must return."""
    result = CliRunner().invoke(cli, ["doctor", *args], standalone_mode=False)
    assert result.exception is None, result.output
    assert result.return_value == code, result.output
    return result


def exam(server: ScriptedServer, *args: str, code: int = 0) -> Result:
    target = ("--provider", "vllm", "--base-url", server.base_url, "--model", "q")
    return doctor("--exam", *target, *args, code=code)


def exam_json(server: ScriptedServer, *args: str) -> dict[str, Any]:
    done = exam(server, "--output", "json", *args)
    found: dict[str, Any] = json.loads(done.stdout)
    jsonschema.validate(found, SCHEMA)
    return found


def row(found: dict[str, Any], mode: str) -> dict[str, Any]:
    summary = next(m for m in found["modes"] if m["mode"] == mode)
    counts = ("status", "task_runs", "passed", "leaked", "malformed", "false_calls")
    return {key: summary[key] for key in counts}


def table_line(output: str, mode: str) -> list[str]:
    return next(line.split() for line in output.splitlines() if line.startswith(mode + " "))


def user_file(text: str) -> Path:
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def done(status: str = "done", runs: int = 12, passed: int = 12, **counts: int) -> dict[str, Any]:
    base = {"leaked": 0, "malformed": 0, "false_calls": 0}
    return {"status": status, "task_runs": runs, "passed": passed, **base, **counts}


def test_a_perfect_native_model_keeps_native(server: ScriptedServer) -> None:
    server.responder = exam_models.PERFECT_NATIVE
    result = exam(server, "--save")
    shown = table_line(result.stdout, "native")
    assert shown[:5] + shown[6:] == ["native", "12/12", "0", "0", "0", "s", "930"]
    assert re.fullmatch(r"\d+\.\d", shown[5])  # the median time, whatever the load
    assert table_line(result.stdout, "rescue")[:5] == ["rescue", "12/12", "-", "0", "0"]
    assert "recommended: native (native passed 12 of 12, rescue 12 of 12;" in result.stdout
    assert "leaked:" not in result.stdout and "failed:" not in result.stdout
    assert "not saved: native mode is already what nehanda uses" in result.stdout
    assert not user_settings_path().exists()
    native = [r.body for r in server.requests if "tools" in r.body]
    rescue = [r.body for r in server.requests if "tools" not in r.body]
    assert len(native) == len(rescue) == REQUESTS
    assert all(body["temperature"] == 0 for body in native + rescue)
    assert [t["function"]["name"] for t in native[0]["tools"]] == [
        "Read", "Write", "Edit", "Bash", "LS", "Glob", "Grep",
        "BashOutput", "KillShell", "WebFetch", "TodoWrite",
    ]  # fmt: skip
    assert "[TOOL_CALL]" in rescue[0]["messages"][0]["content"]


def test_the_estimate_comes_first_and_progress_goes_to_stderr(server: ScriptedServer) -> None:
    server.responder = exam_models.PERFECT_NATIVE
    result = exam(server, "--mode", "rescue")
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"{len(TASKS)} tasks in rescue: {REQUESTS} requests, about ")
    assert "Ctrl-C stops and keeps the table so far" in first
    progress = [line for line in result.stderr.splitlines() if " rescue  " in line]
    assert len(progress) == len(TASKS)
    for done_count, line in enumerate(progress, 1):  # place, task, seconds, tokens, result
        place = rf"^  {done_count:>2}/{len(TASKS)}  rescue  [a-z_]+ +\d+\.\d s +\S+ tokens  "
        assert re.match(place + "pass$", line), line
    assert "paid endpoint" not in result.stdout + result.stderr  # this machine, no key
    assert "no mode recommended: only rescue was examined; --mode both compares" in result.stdout
    assert all("tools" not in r.body for r in server.requests)


PAID = "EXAM_TEST_KEY"


def paid_provider(server: ScriptedServer) -> None:
    """An OpenAI-type provider on the scripted server, sent a key: what a paid one is."""
    user_file(
        f'[providers.paid]\ntype = "openai"\nbase_url = "{server.base_url}"\n'
        f'model = "q"\napi_key_env = "{PAID}"\n'
    )


def test_a_paid_endpoint_without_a_terminal_is_refused_unless_yes(
    server: ScriptedServer, workspace: Path
) -> None:
    server.responder = exam_models.PERFECT_NATIVE
    paid_provider(server)
    args = ("doctor", "--exam", "--provider", "paid", "--mode", "rescue")
    refused = nehanda(*args, cwd=workspace, env={PAID: "sk-test-1234"})
    assert refused.returncode == 2, refused.stderr
    (line,) = refused.stderr.splitlines()[-1:]
    assert line.startswith("error: the exam would send about ") and "tokens to paid" in line
    assert "a paid endpoint" in line and "pass --yes to send them" in line
    assert not server.received("/v1/chat/completions")

    sent = nehanda(*args, "--yes", cwd=workspace, env={PAID: "sk-test-1234"})
    assert sent.returncode == 0, sent.stderr
    assert "paid endpoint" not in sent.stderr
    assert len(server.received("/v1/chat/completions")) == REQUESTS
    assert f"{len(TASKS)}/{len(TASKS)}  rescue" in sent.stderr


@pytest.mark.parametrize("key", ["n", "y"])
def test_a_paid_endpoint_at_a_terminal_is_asked_about_with_the_tokens(
    server: ScriptedServer, workspace: Path, key: str
) -> None:
    server.responder = exam_models.PERFECT_NATIVE
    paid_provider(server)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "nehanda", "doctor", "--exam", "--provider", "paid", "--mode", "rescue"],
        cwd=str(workspace),
        env={**os.environ, PAID: "sk-test-1234"},
        encoding="utf-8",
        timeout=GUARD,
    )
    try:
        child.expect(r"send about [\d.]+k tokens to paid \(openai\) at http://127\.0\.0\.1")
        child.expect_exact("a paid endpoint? [y/N]: ")
        child.sendline(key)
        if key == "n":
            child.expect_exact("not sent; nothing was spent (--yes sends without asking)")
        else:
            child.expect(f"{len(TASKS)}/{len(TASKS)}  rescue")
            child.expect("only rescue was examined")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == (1 if key == "n" else 0)
    sent = server.received("/v1/chat/completions")
    assert len(sent) == (0 if key == "n" else REQUESTS)


def test_leaked_native_calls_are_counted_with_the_servers_fix_and_rescue_saved(
    server: ScriptedServer, workspace: Path
) -> None:
    server.responder = exam_models.LEAKS_INTO_CONTENT
    found = exam_json(server, "--save")
    assert row(found, "native") == done(leaked=CALLS)
    assert row(found, "rescue") == done()
    assert found["recommended"] == "rescue"
    assert found["reason"].endswith(
        f"native worked only by recovering {CALLS} calls leaked as text"
    )
    hint = found["parser_hint"]
    assert hint.startswith(f"leaked: the server's parser missed {CALLS} native calls")
    assert "--enable-auto-tool-choice" in hint and "--tool-call-parser" in hint
    assert "--jinja" in hint
    saved = found["saved"]
    assert saved["written"] and saved["provider"] == "127.0.0.1"
    assert saved["path"] == str(user_settings_path())
    config = resolve_named_provider(load_settings(workspace), "127.0.0.1", environ={})
    assert (config.type, config.base_url, config.model) == ("vllm", server.base_url, "q")
    assert config.force_manual_tools is True


def test_a_model_good_only_in_rescue_gets_rescue_saved_in_its_own_entry(
    server: ScriptedServer, workspace: Path
) -> None:
    server.responder = exam_models.RESCUE_ONLY
    before = f'# my box\n[providers.box]\ntype = "vllm"  # GPU\nbase_url = "{server.base_url}"\n'
    path = user_file(before)
    result = CliRunner().invoke(
        cli, ["doctor", "--exam", "--provider", "box", "--model", "q", "--save"]
    )
    assert result.exit_code == 0, result.output
    assert table_line(result.stdout, "native")[:5] == ["native", "2/12", "0", "0", "0"]
    assert table_line(result.stdout, "rescue")[:2] == ["rescue", "12/12"]
    assert "  native string_argument: no call (expected Read)" in result.stdout
    assert "recommended: rescue (rescue passed 12 of 12, native 2 of 12)" in result.stdout
    assert f"saved: force_manual_tools = true for 'box' in {path}" in result.stdout
    assert path.read_text() == before + "force_manual_tools = true\n"


def test_a_model_that_fails_everything_gets_no_mode_and_nothing_saved(
    server: ScriptedServer,
) -> None:
    server.responder = exam_models.FAILS_EVERYTHING
    found = exam_json(server, "--save")
    assert row(found, "native") == done(passed=0, false_calls=len(TASKS))
    assert row(found, "rescue") == done(passed=0, malformed=len(TASKS))
    assert found["recommended"] is None
    assert "passed no task in either mode" in found["reason"]
    assert found["saved"]["written"] is False
    assert found["saved"]["message"] == "no mode was recommended"
    assert not user_settings_path().exists()
    failures = {t["name"]: t["failures"] for t in found["modes"][0]["tasks"]}
    assert failures["no_call"] == ["called Bash(command='cat notes.txt') but no call was needed"]
    assert failures["string_argument"] == ["called Bash where Read was expected"]


def test_the_text_table_of_a_failing_model(server: ScriptedServer) -> None:
    server.responder = exam_models.FAILS_EVERYTHING
    result = exam(server)
    assert table_line(result.stdout, "native")[:5] == ["native", "0/12", "0", "0", "12"]
    assert table_line(result.stdout, "rescue")[:5] == ["rescue", "0/12", "-", "12", "0"]
    assert "  rescue string_argument: malformed call:" in result.stdout
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("mode "))
    native = next(line for line in lines if line.startswith("native "))
    assert header.index("false") == native.index(" 12 ") + 1  # the columns line up
    assert result.stdout.splitlines()[-1].startswith("no mode recommended: the model passed no")


def test_a_server_refusing_native_tools_is_examined_in_rescue(server: ScriptedServer) -> None:
    refusal = fixture_body("openai_error_vllm_auto_tool_choice.json")

    def model(request: Received) -> Reply:
        if "tools" in request.body:
            return Reply(400, refusal, {"Content-Type": "application/json"})
        return exam_models.PERFECT_NATIVE(request)

    server.responder = model
    found = exam_json(server, "--save")
    native = found["modes"][0]
    assert (native["status"], native["task_runs"]) == ("refused", 0)
    assert "auto" in native["reason"]
    assert row(found, "rescue") == done()
    assert found["recommended"] == "rescue"
    assert found["reason"].startswith("native tools are not available here (")
    assert sum("tools" in r.body for r in server.requests) == 1  # no retry per task


def test_temperature_is_dropped_once_when_the_server_refuses_it(server: ScriptedServer) -> None:
    refusal = fixture_body("openai_error_bad_temperature.json")

    def model(request: Received) -> Reply:
        if "temperature" in request.body:
            return Reply(400, refusal, {"Content-Type": "application/json"})
        return exam_models.PERFECT_NATIVE(request)

    server.responder = model
    found = exam_json(server)
    assert row(found, "native") == done() and row(found, "rescue") == done()
    assert sum("temperature" in r.body for r in server.requests) == 1


def test_runs_show_a_flaky_task(server: ScriptedServer) -> None:
    seen: list[str] = []

    def model(request: Received) -> Reply:
        name, _ = exam_models.task_and_turn(request.body)
        seen.append(name)
        if name == "two_calls" and seen.count(name) == 2:  # the second native run
            return exam_models.stream(calls=[("Read", {"file_path": "README.md"})])
        return exam_models.PERFECT_NATIVE(request)

    server.responder = model
    found = exam_json(server, "--runs", "2", "--mode", "native")
    assert row(found, "native") == done(runs=24, passed=23)
    native = found["modes"][0]
    assert native["flaky"] == ["two_calls"]
    two = next(t for t in native["tasks"] if t["name"] == "two_calls")
    assert (two["runs"], two["passed"]) == (2, 1)
    assert two["failures"] == ["made 1 of the 2 calls asked for in one reply"]


def test_with_only_a_base_url_the_server_is_found_and_saved_by_host(
    server: ScriptedServer, workspace: Path
) -> None:
    json_type = {"Content-Type": "application/json"}
    server.route(
        "GET", "/v1/models", Reply(200, fixture_body("openai_llamacpp_models.json"), json_type)
    )
    server.responder = exam_models.RESCUE_ONLY
    result = doctor("--exam", "--base-url", server.base_url, "--model", "q", "--save")
    assert "exam of q on llama.cpp (vllm)" in result.stdout  # the server says what it is
    assert "use it with --provider 127.0.0.1" in result.stdout
    settings = load_settings(workspace)
    config = resolve_named_provider(settings, "127.0.0.1", environ={})
    assert (config.base_url, config.force_manual_tools) == (server.base_url, True)


def test_no_provider_is_one_line_and_exit_1(unused_port: int) -> None:
    url = f"http://127.0.0.1:{unused_port}/v1"
    result = doctor("--exam", "--base-url", url, "--model", "q", code=1)
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: no model provider answered at --base-url")
    as_json = doctor("--exam", "--base-url", url, "--model", "q", "--output", "json", code=1)
    found = json.loads(as_json.stdout)
    jsonschema.validate(found, SCHEMA)
    assert found["error"].startswith("no model provider answered") and found["modes"] == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--exam", "--mode", "native", "--save"], "--save compares both modes"),
        (["--runs", "2"], "--mode, --runs, --save, --output and --yes go with --exam"),
        (["--exam", "--runs", "0"], "0 is not in the range"),
    ],
)
def test_options_that_do_not_fit(args: list[str], says: str) -> None:
    result = CliRunner().invoke(cli, ["doctor", *args])
    assert result.exit_code == 2
    assert says in result.output


def interrupted_exam(server: ScriptedServer, workspace: Path, *args: str) -> tuple[str, str]:
    """The real command, sent SIGINT while the fourth request hangs; its stdout, stderr."""

    def model(request: Received) -> Reply:
        if len(server.requests) == 4:
            return Reply(200, b"", held=server.released)  # until the test is over
        return exam_models.PERFECT_NATIVE(request)

    server.responder = model
    command = [sys.executable, "-m", "nehanda", "doctor", "--exam", "--provider", "vllm",
               "--base-url", server.base_url, "--model", "q", "--save", *args]  # fmt: skip
    child = subprocess.Popen(
        command, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    server.wait_for("/v1/chat/completions", 4)
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=GUARD)
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert not user_settings_path().exists()
    return stdout, stderr


def test_ctrl_c_stops_cleanly_and_keeps_the_partial_table(
    server: ScriptedServer, workspace: Path
) -> None:
    stdout, _ = interrupted_exam(server, workspace)
    assert table_line(stdout, "native")[:2] == ["native", "3/3"]
    assert table_line(stdout, "rescue")[:3] == ["rescue", "not", "run:"]
    assert "interrupted: the table holds the tasks finished before Ctrl-C" in stdout
    assert "no mode recommended: the exam was stopped before it finished" in stdout
    assert "not saved: the exam did not finish" in stdout


def test_ctrl_c_with_json_output_still_prints_the_object(
    server: ScriptedServer, workspace: Path
) -> None:
    stdout, _ = interrupted_exam(server, workspace, "--output", "json")
    found = json.loads(stdout)
    jsonschema.validate(found, SCHEMA)
    assert found["interrupted"] is True and found["recommended"] is None
    assert row(found, "native") == done("stopped", runs=3, passed=3)
    assert found["modes"][1]["status"] == "not run"
    assert found["saved"]["written"] is False


def test_no_call_the_model_makes_ever_runs(server: ScriptedServer, workspace: Path) -> None:
    """Attack: a model calling Bash and Write in every reply, natively and as text, with
    the calls the tasks expect among them; the exam runs none of them."""
    marker, written = workspace / "pwned", workspace / "docs" / "fox.txt"
    hostile = [
        ("Bash", {"command": f"touch {marker}"}),
        ("Write", {"file_path": str(written), "content": "x"}),
    ]

    def model(request: Received) -> Reply:
        if "tools" in request.body:
            return exam_models.stream(calls=hostile)
        return exam_models.stream(exam_models.rescue_blocks(hostile))

    server.responder = model
    found = exam_json(server, "--runs", "2")
    assert row(found, "native")["false_calls"] == row(found, "rescue")["false_calls"] == 48
    assert not marker.exists() and not written.exists()
    assert sorted(p.name for p in workspace.iterdir()) == []


def test_a_model_the_server_says_has_no_tools_is_examined_in_rescue_only(
    server: ScriptedServer,
) -> None:
    json_type = {"Content-Type": "application/json"}
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), json_type))
    show = fixture_body("ollama_show_gemma_no_tools.json")
    server.route("POST", "/api/show", Reply(200, show, json_type))
    result = doctor(
        "--exam", "--provider", "ollama", "--base-url", server.root_url, "--model", "gemma:2b",
        "--mode", "native", "--output", "json",
    )  # fmt: skip
    found = json.loads(result.stdout)
    jsonschema.validate(found, SCHEMA)
    (native,) = found["modes"]
    assert (native["status"], native["task_runs"]) == ("skipped", 0)
    assert native["reason"] == "Ollama /api/show lists no tools capability"
    assert server.received("/api/chat") == []


def test_every_task_has_a_scripted_answer_for_each_turn() -> None:
    assert {name: len(turns) for name, turns in exam_models.ANSWERS.items()} == {
        task.name: len(task.turns) for task in TASKS
    }


def test_native_call_text_the_server_passed_on_cut_short_is_malformed(
    server: ScriptedServer,
) -> None:
    def model(request: Received) -> Reply:
        name, turn = exam_models.task_and_turn(request.body)
        answer = exam_models.ANSWERS[name][turn]
        if isinstance(answer, str):
            return exam_models.stream(answer)
        unclosed = exam_models.hermes_blocks(answer[:1]).removesuffix("</tool_call>\n")
        return exam_models.stream(unclosed)

    server.responder = model
    found = exam_json(server, "--mode", "native")
    assert row(found, "native") == done(passed=2, malformed=10)
    failures = {t["name"]: t["failures"] for t in found["modes"][0]["tasks"]}
    assert failures["string_argument"] == [
        "malformed call: the Read call printed as text never closed"
    ]


def test_a_key_the_server_refuses_stops_the_exam_with_the_table_so_far(
    server: ScriptedServer,
) -> None:
    refusal = fixture_body("openai_error_invalid_key.json")

    def model(request: Received) -> Reply:
        if len(server.requests) >= 3:
            return Reply(401, refusal, {"Content-Type": "application/json"})
        return exam_models.PERFECT_NATIVE(request)

    server.responder = model
    result = exam(server, "--save", code=1)
    assert table_line(result.stdout, "native")[:2] == ["native", "2/2"]
    assert table_line(result.stdout, "rescue")[:3] == ["rescue", "not", "run:"]
    assert "no mode recommended: the exam was stopped before it finished" in result.stdout
    assert "not saved: the exam did not finish" in result.stdout
    (error,) = result.stderr.splitlines()[-1:]
    assert (error.startswith("error: ") and "401" in error) or "key" in error
    assert len(server.requests) == 3
