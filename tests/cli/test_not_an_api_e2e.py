"""Answers that are not an API, as ``nehanda run`` names them: a web page where the API
was expected, a host name that does not resolve (not retried), an error page quoted by
one line. A real process against the scripted server on 127.0.0.1.
"""

from __future__ import annotations

import os
from pathlib import Path

from cli_process import nehanda
from scripted_server import Reply, ScriptedServer

HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>\n"
    b"<body><h1>Welcome</h1>\n<p>If you see this page, the web server works.</p></body></html>"
)
NOT_AN_API = "an HTML page, not an OpenAI-compatible API: is base_url right? it usually ends in /v1"


def test_a_web_site_at_base_url_is_named_as_one(server: ScriptedServer, tmp_path: Path) -> None:
    server.route("GET", "/models", Reply(200, PAGE, HTML))
    server.route("GET", "/api/tags", Reply(404, PAGE, HTML))
    done = nehanda("run", "hi", "--base-url", server.root_url, cwd=tmp_path)
    assert done.returncode == 1
    assert NOT_AN_API in done.stderr
    assert "pass --model" not in done.stderr and "If you see" not in done.stderr


def test_a_page_answering_the_chat_request_is_not_a_cut_stream(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.reply(Reply(200, PAGE, HTML))
    done = nehanda(
        "run", "hi", "--provider", "vllm", "--base-url", server.root_url, "--model", "q",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    assert "with an HTML page (Welcome to nginx!), not an OpenAI-compatible API" in done.stderr
    assert "finish_reason" not in done.stderr


def test_an_error_page_is_quoted_by_its_title_alone(server: ScriptedServer, tmp_path: Path) -> None:
    page = b"<html><head><title>502 Bad Gateway</title></head>\n<body>\n" + b"<p>x</p>\n" * 50
    settings = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('[providers.vllm]\ntype = "vllm"\nmax_retries = 0\n')
    server.reply(Reply(502, page, HTML))
    done = nehanda(
        "run", "hi", "--provider", "vllm", "--base-url", server.base_url, "--model", "q",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    (line,) = [line for line in done.stderr.splitlines() if "HTTP 502" in line]
    assert line.endswith("HTTP 502 from " + server.base_url + "/chat/completions: 502 Bad Gateway")
    assert "<" not in done.stderr


def test_a_host_that_does_not_exist_is_not_retried_nor_called_refused(tmp_path: Path) -> None:
    url = "http://no-such-host.invalid/v1"
    done = nehanda(
        "run", "hi", "--provider", "vllm", "--base-url", url, "--model", "q", cwd=tmp_path
    )
    assert done.returncode == 1
    assert "host not found" in done.stderr
    assert "retrying" not in done.stderr and "refused" not in done.stderr
    found = nehanda("run", "hi", "--base-url", url, cwd=tmp_path)
    assert found.returncode == 1
    assert "host not found" in found.stderr and "refused" not in found.stderr
