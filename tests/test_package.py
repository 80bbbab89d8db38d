"""The package's shape: its public surface, and which layers an import loads."""

from __future__ import annotations

import json
import subprocess
import sys
from types import ModuleType

import pytest

import nehanda

# Each import, in a fresh interpreter, and the packages it must not load.
LAYERS = {
    "nehanda.toolcalls": (
        "fs",
        "config",
        "providers",
        "tools",
        "permissions",
        "ui",
        "engine",
        "cli",
    ),
    "nehanda.providers.openai_compat": ("tools", "permissions", "ui", "engine", "cli"),
    "nehanda.providers.ollama": ("tools", "permissions", "ui", "engine", "cli"),
    "nehanda.providers.anthropic": ("tools", "permissions", "ui", "engine", "cli"),
    "nehanda.providers.rescue": ("tools", "permissions", "ui", "engine", "cli"),
    "nehanda.providers.calling": ("tools", "permissions", "ui", "engine", "cli"),
    "nehanda.sandbox.confine": ("toolcalls", "config", "providers", "tools", "permissions", "ui"),
    "nehanda.secret_env": ("sandbox", "toolcalls", "config", "providers", "tools", "engine"),
    "nehanda.config.settings": ("providers", "tools", "permissions", "ui", "engine", "cli"),
    "nehanda.tools.registry": ("permissions", "ui", "engine", "cli"),
    "nehanda.tools.mcp.toolset": ("permissions", "ui", "engine", "cli"),
    "nehanda.permissions.gate": ("ui", "engine", "cli"),
    "nehanda.engine.loop": ("tools", "permissions", "ui", "cli"),
    "nehanda.exam.report": ("permissions", "ui", "cli"),
    "nehanda.exam.save": ("tools", "permissions", "engine", "ui", "cli"),
    "nehanda.serve.app": ("tools", "permissions", "ui", "engine", "cli"),
    "nehanda": ("toolcalls", "config", "providers", "tools", "permissions", "engine", "ui"),
}


def loaded_by(module: str) -> list[str]:
    script = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return [name for name in json.loads(out) if name.startswith("nehanda")]


@pytest.mark.parametrize(("module", "above"), list(LAYERS.items()))
def test_an_import_loads_no_layer_above_it(module: str, above: tuple[str, ...]) -> None:
    loaded = loaded_by(module)
    assert module in loaded
    higher = [name for name in loaded if name.split(".")[1:2] and name.split(".")[1] in above]
    assert higher == []


def test_the_command_line_loads_neither_the_exam_nor_the_settings_writer() -> None:
    script = "import json, sys, nehanda.cli.main; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    loaded = json.loads(out)
    assert [name for name in loaded if name.startswith(("nehanda.exam", "tomlkit"))] == []
    assert "nehanda.config.writer" not in loaded


def test_a_run_loads_no_more_than_its_first_request_needs() -> None:
    """``nehanda run`` in native mode sends its first request without the rescue parser,
    discovery, the regex engine, httpx's own command line (rich, pygments), or the
    approval prompt and the settings writer it brings."""
    script = (
        "import json, sys\n"
        "from nehanda.cli import main\n"
        "try:\n    main.main(['--version'])\nexcept SystemExit:\n    pass\n"
        "import httpx, nehanda.cli.run, nehanda.cli.session\n"
        "print(json.dumps(sorted(k for k, v in sys.modules.items() if v is not None)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    loaded = json.loads(out.splitlines()[-1])
    unwanted = ("httpx._main", "rich", "pygments", "regex", "nehanda.toolcalls")
    assert [name for name in loaded if name.split(".")[0] in unwanted or name in unwanted] == []
    assert "nehanda.providers.discovery" not in loaded
    # Asking and saving rules matter only where someone can be asked.
    assert "nehanda.ui.approval" not in loaded and "nehanda.config.writer" not in loaded


def test_every_name_in_all_imports() -> None:
    for name in nehanda.__all__:
        assert getattr(nehanda, name) is not None, name


def test_all_lists_every_public_name_of_the_package_root() -> None:
    public = {
        name
        for name, value in vars(nehanda).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert public | {"__version__"} == set(nehanda.__all__)
