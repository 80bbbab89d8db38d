"""WebFetch through ``nehanda run``: a scripted model asks for a page that a second
server on 127.0.0.1 serves, in native and in rescue mode, under the rule the user wrote
(``WebFetch(domain:127.0.0.1)`` in the user settings); without that rule, even under
``--yes``, the local page is never reached."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda
from conversations import PARENT, Conversations, requests_from, text_stream
from scripted_calls import calls_stream, rescue_calls_stream
from scripted_server import Reply, ScriptedServer, fixture_body

READER = "You read a web page for a coding assistant"
PAGE = b"<html><body><h1>Changelog</h1><p>Version <b>3.1</b> fixes the parser.</p></body></html>"


@pytest.fixture
def pages() -> Iterator[ScriptedServer]:
    serving = ScriptedServer()
    serving.route("GET", "/changelog", Reply(200, PAGE, {"Content-Type": "text/html"}))
    yield serving
    serving.close()


def allow_local(isolated_home: Path) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('[permissions]\nallow = ["WebFetch(domain:127.0.0.1)"]\n')


def run(server: ScriptedServer, url: str, mode: str, cwd: Path, *extra: str) -> Any:
    call = [("WebFetch", {"url": url, "prompt": "What does the new version fix?"})]
    stream = calls_stream(call) if mode == "native" else rescue_calls_stream(call)
    server.report_window().stream(stream).stream(fixture_body("e2e_vllm_answer.sse"))
    done = nehanda(
        "run", "What changed?", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--mode", mode, "--output", "json", *extra, cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def last_message(server: ScriptedServer) -> dict[str, Any]:
    message: dict[str, Any] = server.received("/v1/chat/completions")[-1].body["messages"][-1]
    return message


@pytest.mark.parametrize("mode", ["native", "rescue"])
def test_a_page_a_rule_allows_reaches_the_model_as_markdown(
    server: ScriptedServer, pages: ScriptedServer, tmp_path: Path, isolated_home: Path, mode: str
) -> None:
    allow_local(isolated_home)
    result = run(server, f"{pages.root_url}/changelog", mode, tmp_path)
    (call,) = result["tool_calls"]
    assert result["mode"] == mode
    assert call["name"] == "WebFetch" and call["is_error"] is False
    sent = last_message(server)
    assert sent["role"] == ("tool" if mode == "native" else "user")
    assert "# Changelog\n\nVersion **3.1** fixes the parser." in sent["content"]
    assert [request.path for request in pages.requests] == ["/changelog"]


@pytest.mark.parametrize("mode", ["native", "rescue"])
def test_without_a_rule_a_local_page_is_never_reached_even_under_yes(
    server: ScriptedServer, pages: ScriptedServer, tmp_path: Path, mode: str
) -> None:
    result = run(server, f"{pages.root_url}/changelog", mode, tmp_path, "--yes")
    (call,) = result["tool_calls"]
    assert call["is_error"] is True
    assert "127.0.0.1 is a loopback address" in last_message(server)["content"]
    assert pages.requests == [] and pages.unrouted == []


@pytest.mark.parametrize("mode", ["native", "rescue"])
def test_a_long_page_is_read_by_the_sessions_model_and_its_answer_returned(
    server: ScriptedServer, pages: ScriptedServer, tmp_path: Path, isolated_home: Path, mode: str
) -> None:
    allow_local(isolated_home)
    lines = b"".join(b"line %d of the changelog\n" % n for n in range(10_000))
    pages.route("GET", "/long", Reply(200, lines, {"Content-Type": "text/plain"}))
    call = [("WebFetch", {"url": f"{pages.root_url}/long", "prompt": "How many lines?"})]
    Conversations(
        server,
        {
            PARENT: [
                calls_stream(call) if mode == "native" else rescue_calls_stream(call),
                text_stream("Ten thousand lines."),
            ],
            READER: [text_stream("The changelog has at least 2,800 lines.")],
        },
    )
    done = nehanda(
        "run", "How long is it?", "--provider", "vllm", "--base-url", server.base_url,
        "--model", "q", "--mode", mode, "--output", "json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (read,) = requests_from(server, READER)
    assert "tools" not in read  # the reader can act on nothing the page says
    asked = read["messages"][-1]["content"]
    assert asked.startswith("<page>\nline 0 of the changelog\n")
    assert asked.endswith("The question: How many lines?")
    assert "line 9999 of" not in asked  # the page is cut to what the window holds
    result = requests_from(server, PARENT)[-1]["messages"][-1]["content"]
    assert "The model read it for your prompt and answered:]" in result
    assert "The changelog has at least 2,800 lines." in result
    assert "characters of the page]" in result and "line 5 of" not in result
