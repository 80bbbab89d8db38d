"""Every distribution nehanda's code imports is declared in pyproject.toml, and where."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import nehanda

PROJECT = Path(__file__).resolve().parents[1]
PACKAGE = Path(nehanda.__file__).parent
# The code only an extra's users load: what it imports may be declared in that extra.
EXTRAS = {"serve": "serve", "tools/mcp": "mcp", "images.py": "images", "acp": "acp"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(project: dict[str, object], extra: str | None) -> set[str]:
    """The distributions named by the core dependencies and by ``extra``'s."""
    table = project["project"]
    assert isinstance(table, dict)
    requirements = list(table["dependencies"])
    if extra is not None:
        requirements += table["optional-dependencies"][extra]
    return {canonical(re.split(r"[\s<>=!~;\[(]", line, maxsplit=1)[0]) for line in requirements}


def imported_names(source: Path) -> set[str]:
    """The top-level names of every absolute import in ``source``, at any depth."""
    names = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"nehanda"}


def extra_of(source: Path) -> str | None:
    where = source.relative_to(PACKAGE).as_posix()
    inside = (e for under, e in EXTRAS.items() if where == under or where.startswith(under + "/"))
    return next(inside, None)


def test_every_import_is_declared_where_its_code_is_installed() -> None:
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    providers = importlib.metadata.packages_distributions()
    undeclared = []
    for source in sorted(PACKAGE.rglob("*.py")):
        allowed = declared(project, extra_of(source))
        for name in sorted(imported_names(source)):
            if not {canonical(d) for d in providers.get(name, [name])} & allowed:
                undeclared.append(f"{source.relative_to(PACKAGE)}: {name}")
    assert undeclared == []
