"""Shared fixtures: every test gets private XDG directories and a clean environment."""

from __future__ import annotations

import compileall
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

import nehanda
from scripted_server import ScriptedServer

# The suite starts nehanda some 600 times. An installed nehanda has its bytecode written
# by pip; an editable one, on a machine that exports PYTHONDONTWRITEBYTECODE (CI's does),
# would have each child compile every module again (a third of a short test's time).
# Written once here, it is read by every child whatever that variable says.
compileall.compile_dir(Path(nehanda.__file__).parent, quiet=1)

# A nehanda started by a test without its own stdin reads the runner's, which a CI runner
# may hold open with nothing in it: then a prompt would wait out the pipe's grace.
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)

# A runner started in the background by a shell without job control has SIGINT ignored,
# and an ignored signal stays ignored across exec: every nehanda a test then sends Ctrl-C
# would not see it. A handler, unlike SIG_IGN, is reset to the default in each child.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "NEHANDA_API_KEY",
    "NEHANDA_BASE_URL",
    "OLLAMA_HOST",
    "NEHANDA_PROVIDER",
    "NEHANDA_MODEL",
    "NEHANDA_MAX_TURNS",
)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    home = tmp_path_factory.mktemp("home")
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A scripted HTTP server on 127.0.0.1 replaying recorded bytes."""
    scripted = ScriptedServer()
    yield scripted
    scripted.close()


@pytest.fixture
def unused_port() -> int:
    """A port on 127.0.0.1 where nothing listens (free a moment ago)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
