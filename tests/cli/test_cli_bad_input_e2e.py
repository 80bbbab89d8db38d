"""Bad input ends with one line saying what is wrong and exit code 1, never a traceback,
and the session log keeps every record written before it.

Each case runs the real ``nehanda run`` in a child process against a scripted server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripted_server import ScriptedServer


def run(
    server: ScriptedServer, cwd: Path, stdin: bytes, *extra: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "nehanda",
            "run",
            *extra,
            "--provider",
            "vllm",
            "--base-url",
            server.base_url,
            "--model",
            "q",
        ],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=60,
        env=dict(os.environ),
    )


def one_line_error(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 1, done.stderr
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_a_prompt_that_is_not_utf8_is_refused(server: ScriptedServer, tmp_path: Path) -> None:
    line = one_line_error(run(server, tmp_path, b"fix \xff\xfe this"))
    assert "not UTF-8" in line and "0xff" in line and "iconv" in line
    assert not server.requests


def test_a_prompt_that_is_not_utf8_is_refused_in_json_too(
    server: ScriptedServer, tmp_path: Path
) -> None:
    done = run(server, tmp_path, b"fix \xff this", "--output", "json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["type"] == "error"
    assert "not UTF-8" in json.loads(done.stdout)["error"]


@pytest.mark.parametrize("where", ["user", "project"])
@pytest.mark.parametrize(
    "nesting", ["x = " + "[" * 3000 + "]" * 3000, "x = " + "{a=" * 3000 + "}" * 3000]
)
def test_a_settings_file_nested_3000_deep_is_refused(
    server: ScriptedServer, tmp_path: Path, where: str, nesting: str
) -> None:
    folder = (
        Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda"
        if where == "user"
        else tmp_path / ".nehanda"
    )
    folder.mkdir(parents=True)
    (folder / "settings.toml").write_text(nesting + "\n")
    line = one_line_error(run(server, tmp_path, b"hi"))
    assert f"{folder / 'settings.toml'}: its values are nested too deeply" in line
    assert not server.requests


def test_a_state_folder_that_is_a_file_is_refused(server: ScriptedServer, tmp_path: Path) -> None:
    state = Path(os.environ["XDG_STATE_HOME"]) / "nehanda"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("not a folder")
    line = one_line_error(run(server, tmp_path, b"hi"))
    assert f"{state} is a file" in line and "XDG_STATE_HOME" in line
    assert state.read_text() == "not a folder"
    assert not server.requests


@pytest.fixture
def tiny_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """XDG_STATE_HOME on a 16 KiB tmpfs, three quarters full."""
    mount_point = tmp_path / "tiny"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(mount_point)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    try:
        (mount_point / "filler").write_bytes(b"\0" * 12288)
        monkeypatch.setenv("XDG_STATE_HOME", str(mount_point))
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)


def test_a_full_disk_under_the_session_log_ends_the_run_and_keeps_the_log(
    server: ScriptedServer, tmp_path: Path, tiny_state: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    line = one_line_error(run(server, tmp_path, b"x" * 10_000))
    assert "cannot write the session log" in line and "No space left on device" in line
    (log,) = (tiny_state / "nehanda" / "sessions").iterdir()
    data = log.read_bytes()
    assert data.endswith(b"\n")  # no torn record
    records = [json.loads(record) for record in data.splitlines()]
    assert records[0]["type"] == "session"
    assert str(log) in line
