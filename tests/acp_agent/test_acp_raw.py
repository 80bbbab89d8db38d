"""``nehanda acp`` spoken to in raw JSON-RPC lines, as an editor's own client would.

Every line on stdout is a JSON-RPC 2.0 message; ``initialize`` says what nehanda offers;
a session that cannot open answers with a JSON-RPC error whose message says what to do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scripted_calls import text_stream
from scripted_server import ScriptedServer


class Raw:
    """The child, written to and read from one JSON line at a time."""

    def __init__(self, cwd: Path, *flags: str) -> None:
        self.child = subprocess.Popen(
            [sys.executable, "-m", "nehanda", "acp", *flags],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        self.lines: list[dict[str, Any]] = []
        self.next_id = 0

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Sends a request; the answer to it, once every notification before it was read."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(json.dumps(message).encode() + b"\n")
        self.child.stdin.flush()
        while True:
            line = self.child.stdout.readline()
            assert line, f"nehanda acp ended: {self.stderr()}"
            received = json.loads(line)  # nothing but JSON on stdout
            assert received["jsonrpc"] == "2.0"
            self.lines.append(received)
            if received.get("id") == self.next_id and "method" not in received:
                return received

    def stderr(self) -> str:
        self.close()
        assert self.child.stderr is not None
        return self.child.stderr.read().decode()

    def close(self) -> None:
        if self.child.stdin is not None and not self.child.stdin.closed:
            self.child.stdin.close()
        self.child.wait(timeout=30)


@pytest.fixture
def raw(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Raw]:
    flags: tuple[str, ...] = getattr(request, "param", ())
    child = Raw(tmp_path, *flags)
    yield child
    child.close()
    if child.child.stdout is not None:
        child.child.stdout.close()
    if child.child.stderr is not None:
        child.child.stderr.close()


def initialize(raw: Raw) -> dict[str, Any]:
    return raw.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})


def test_initialize_says_what_nehanda_offers(raw: Raw) -> None:
    result = initialize(raw)["result"]
    assert result["protocolVersion"] == 1
    capabilities = result["agentCapabilities"]
    assert capabilities["loadSession"] is True
    assert capabilities["promptCapabilities"] == {"image": True, "embeddedContext": True}
    assert capabilities["mcpCapabilities"]["http"] is True
    assert result["agentInfo"]["name"] == "nehanda"


def test_a_turn_in_raw_lines_streams_updates_then_ends_the_turn(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.stream(text_stream("Plain answer."))
    raw = Raw(tmp_path, "--provider", "vllm", "--base-url", server.base_url, "--model", "q")
    try:
        initialize(raw)
        opened = raw.call("session/new", {"cwd": str(tmp_path), "mcpServers": []})["result"]
        assert opened["modes"]["currentModeId"] == "default"
        modes = [mode["id"] for mode in opened["modes"]["availableModes"]]
        assert sorted(modes) == ["accept-edits", "default", "plan", "yolo"]
        prompt = [{"type": "text", "text": "hello"}]
        params = {"sessionId": opened["sessionId"], "prompt": prompt}
        done = raw.call("session/prompt", params)
    finally:
        raw.close()
    assert done["result"]["stopReason"] == "end_turn"
    updates = [line["params"]["update"] for line in raw.lines if line.get("method")]
    assert updates[-1] == {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "Plain answer."},
    }


def test_no_provider_found_is_an_error_that_says_what_to_do(raw: Raw, tmp_path: Path) -> None:
    initialize(raw)
    error = raw.call("session/new", {"cwd": str(tmp_path), "mcpServers": []})["error"]
    assert error["code"] == -32603
    assert "provider" in error["message"].lower(), error


def test_a_bad_settings_file_is_an_error_naming_it(
    raw: Raw, tmp_path: Path, isolated_home: Path
) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("max_turns = [oops\n")
    initialize(raw)
    error = raw.call("session/new", {"cwd": str(tmp_path), "mcpServers": []})["error"]
    assert str(settings) in error["message"], error


def test_a_prompt_for_a_session_never_opened_is_an_error(raw: Raw) -> None:
    initialize(raw)
    params = {"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}
    error = raw.call("session/prompt", params)["error"]
    assert "no session 'nope'" in error["message"]
