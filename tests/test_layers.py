"""The import rules (DESIGN.md §2): pyproject.toml's import-linter contracts, checked here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nehanda

PROJECT = Path(__file__).resolve().parents[1]
LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint_imports(project: Path, package: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's report on ``package`` (the folder holding ``nehanda``), read with
    the contracts in ``project``'s pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(package)}
    return subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache"],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
    )


def test_every_import_keeps_to_the_layers() -> None:
    done = lint_imports(PROJECT, Path(nehanda.__file__).parents[1])
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_import_inside_a_function_or_for_types_only_breaks_the_layers(tmp_path: Path) -> None:
    """What a hand-written list of modules loaded in a fresh interpreter never saw."""
    source = tmp_path / "src"
    shutil.copytree(
        Path(nehanda.__file__).parent,
        source / "nehanda",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(PROJECT / "pyproject.toml", tmp_path)
    with (source / "nehanda" / "fs.py").open("a") as fs:
        fs.write("\n\ndef _late() -> None:\n    from nehanda.cli import main  # noqa: F401\n")
    with (source / "nehanda" / "providers" / "base.py").open("a") as base:
        base.write(
            "\nfrom typing import TYPE_CHECKING\n\n"
            "if TYPE_CHECKING:\n    from nehanda.ui.live import LiveRenderer\n"
        )
    done = lint_imports(tmp_path, source)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "nehanda.fs -> nehanda.cli.main" in done.stdout
    assert "nehanda.providers.base -> nehanda.ui.live" in done.stdout
