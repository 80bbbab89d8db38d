"""The files that say what a build tool or test runner runs, and the commands that read them.

``package.json``'s scripts are what ``npm run test`` runs, a Makefile's recipes what
``make`` runs, ``conftest.py`` and ``pyproject.toml``'s ``[tool.pytest…]`` what pytest
loads: a rule allowing the command (``Bash(npm run test:*)``) allows whatever they say.
``READ_BY`` lists, per program, the files it reads so, by name in whatever folder (npm
takes the nearest package.json, pytest every conftest.py on its way). A command reads
them when one of its words names the program, run, wrapped (``timeout 60 pytest``) or
started by a runner (``uv run pytest``, ``python -m pytest``, ``npx jest``): a word
that only looks like one (``echo make``) makes it ask, never run unasked. A script the
command names itself (``./test.sh``) is the command's own text, as a test file is
pytest's: not listed. ``read_by`` pairs each of the files given that a command's
programs read with the part that reads it. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from nehanda.permissions.shell import ShellCommand

_NODE = ("package.json", ".npmrc")
_YARN = (*_NODE, ".yarnrc", ".yarnrc.yml")
_PNPM = (*_NODE, ".pnpmfile.cjs")
_BUN = (*_NODE, "bunfig.toml")
_MAKE = ("Makefile", "makefile", "GNUmakefile")
_PYTEST = ("pyproject.toml", "pytest.ini", "tox.ini", "setup.cfg", "conftest.py")
_PIP = ("pyproject.toml", "setup.py", "setup.cfg")
_CARGO = (
    *("Cargo.toml", "build.rs", ".cargo/config.toml", ".cargo/config"),
    *("rust-toolchain.toml", "rust-toolchain"),
)
_JUST = ("justfile", "Justfile", ".justfile")

READ_BY: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("npm", "npx"), _NODE),
    "yarn": _YARN,
    **dict.fromkeys(("pnpm", "pnpx"), _PNPM),
    **dict.fromkeys(("bun", "bunx"), _BUN),
    **dict.fromkeys(("make", "gmake"), _MAKE),
    **dict.fromkeys(("pytest", "py.test"), _PYTEST),
    "tox": ("tox.ini", *_PIP),
    "nox": ("noxfile.py",),
    "uv": ("uv.toml", *_PIP),
    "poetry": ("pyproject.toml",),
    "hatch": ("hatch.toml", "pyproject.toml"),
    "pdm": ("pyproject.toml",),
    **dict.fromkeys(("pip", "pip3"), _PIP),
    "cargo": _CARGO,
    "go": ("go.mod", "go.work"),
    "just": _JUST,
    "rake": ("Rakefile",),
    "bundle": ("Gemfile",),
}
NAMES = frozenset(name for names in READ_BY.values() for name in names)


def is_build_file(path: str) -> bool:
    """Whether ``path`` (relative or absolute) ends in a name ``READ_BY`` lists."""
    return any(_ends_in(path, name) for name in NAMES)


def read_by(shell: ShellCommand, files: Iterable[str]) -> list[tuple[str, str]]:
    """Each of ``files`` that a program of ``shell`` reads, with the part that runs it."""
    found = []
    for file in sorted(files):
        part = next(
            (
                part.text
                for part in shell.everywhere()
                if any(_reads(PurePosixPath(word).name, file) for word in part.words)
            ),
            None,
        )
        if part is not None:
            found.append((file, part))
    return found


def _reads(program: str, file: str) -> bool:
    return any(_ends_in(file, name) for name in READ_BY.get(program, ()))


def _ends_in(path: str, name: str) -> bool:
    """Casefolded, as a file system that ignores case would open it."""
    tail = PurePosixPath(name).parts
    return tuple(p.casefold() for p in PurePosixPath(path).parts[-len(tail) :]) == tuple(
        p.casefold() for p in tail
    )
