"""Exit codes and key errors as a user meets them: a real ``nehanda`` process.

An unknown provider is a usage error (exit 2); an official endpoint without its key
fails before sending anything, naming the variable; a server at the user's own address
is sent no key, and its 401 names the variable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_process import nehanda
from scripted_server import ScriptedServer


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.strip().splitlines() if line]


@pytest.mark.parametrize("how", [("run", "hi"), ("-p", "hi")])
def test_unknown_provider_is_a_usage_error_naming_what_exists(
    how: tuple[str, str], tmp_path: Path
) -> None:
    done = nehanda(*how, "--provider", "no-such", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith("error: unknown provider 'no-such'")
    assert "vllm" in line and "ollama" in line and "anthropic" in line
    assert done.stdout == ""


def test_unknown_provider_in_json_output_exits_2_with_an_error_object(tmp_path: Path) -> None:
    done = nehanda("run", "hi", "--provider", "no-such", "--output", "json", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown provider 'no-such'" in json.loads(done.stdout)["error"]


@pytest.mark.parametrize(
    ("provider", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_official_endpoint_without_its_key_names_the_variable(
    provider: str, variable: str, tmp_path: Path
) -> None:
    done = nehanda("run", "hi", "--provider", provider, cwd=tmp_path)
    assert done.returncode == 1
    (line,) = error_lines(done.stderr)
    assert line.startswith(f"error: {variable} is not set") and "--base-url" in line


@pytest.mark.parametrize(
    ("provider", "path", "error", "variable"),
    [
        ("openai", "/v1/chat/completions", "openai_error_invalid_key.json", "OPENAI_API_KEY"),
        ("anthropic", "/v1/messages", "anthropic_error_authentication.json", "ANTHROPIC_API_KEY"),
    ],
)
def test_own_base_url_is_sent_without_a_key_and_a_401_names_the_variable(
    server: ScriptedServer, provider: str, path: str, error: str, variable: str, tmp_path: Path
) -> None:
    server.error(401, error)
    base_url = server.base_url if provider == "openai" else server.root_url
    done = nehanda(
        "run", "hi", "--provider", provider, "--base-url", base_url, "--model", "q", cwd=tmp_path
    )
    assert done.returncode == 1
    (sent,) = server.received(path)
    assert "authorization" not in {name.lower() for name in sent.headers}
    assert "x-api-key" not in {name.lower() for name in sent.headers}
    (line,) = error_lines(done.stderr)
    assert "401" in line and f"set {variable}" in line


def test_own_base_url_without_a_key_works_when_the_server_needs_none(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    done = nehanda(
        "run", "hi", "--provider", "openai", "--base-url", server.base_url, "--model", "q",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Install it with `pip install widget`.\n"


def test_a_401_from_a_base_url_server_offers_api_key_env(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.error(401, "openai_error_invalid_key.json")
    done = nehanda("run", "hi", "--base-url", server.base_url, "--model", "q", cwd=tmp_path)
    assert done.returncode == 1
    (line,) = error_lines(done.stderr)
    assert "401" in line and "--api-key-env NAME" in line


def test_api_key_env_sends_that_variables_key_for_one_run(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    given = ("--base-url", server.base_url, "--model", "q", "--api-key-env", "MY_SERVER_KEY")
    done = nehanda("run", "hi", *given, cwd=tmp_path, env={"MY_SERVER_KEY": "sk-for-this-run"})
    assert done.returncode == 0, done.stderr
    (sent,) = server.received("/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer sk-for-this-run"

    unset = nehanda("run", "hi", *given, cwd=tmp_path)
    assert unset.returncode == 2
    assert "--api-key-env MY_SERVER_KEY: MY_SERVER_KEY is not set" in unset.stderr


@pytest.mark.parametrize("url", ["not-a-url", "gpu-box:8000/v1", "user:sk-secret@gpu-box/v1"])
def test_a_base_url_that_is_no_address_is_a_usage_error(url: str, tmp_path: Path) -> None:
    done = nehanda("run", "hi", "--base-url", url, cwd=tmp_path)
    assert done.returncode == 2
    assert "--base-url" in done.stderr and "http:// or https://" in done.stderr
    assert "no model provider answered" not in done.stderr and "sk-secret" not in done.stderr


@pytest.mark.parametrize(
    "args", [("run", "hi", "--output", "xml"), ("--nosuch",), ("run", "hi", "--base-url", "x")]
)
def test_usage_errors_take_nehandas_one_error_form(args: tuple[str, ...], tmp_path: Path) -> None:
    done = nehanda(*args, cwd=tmp_path)
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert line.startswith("error: ") and line.endswith("--help)")
    assert "Error:" not in done.stderr and "Usage:" not in done.stderr
