"""Property: decide() lets a file tool run unasked exactly when its path resolves inside.

Each example builds a fresh tree of directories and symlinks (links pointing up, across,
outside, at each other, in loops, at nothing) and a path made of its names, ``..``
and ``.``; the verdict must agree with ``realpath``, component by component.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes import checked
from nehanda.config.permission_modes import Mode
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.tools.paths import is_inside
from nehanda.types import ToolUse
from nehanda.verdicts import Allow, Ask

DIRECTORIES = ("ws", "ws/a", "ws/a/b", "ws-x", "out", "out/c")
NAMES = ("a", "b", "c", "l1", "l2", "l3", "ws", "ws-x", "out")
TARGETS = (
    "..",
    "../..",
    "../../..",
    ".",
    "a",
    "b",
    "l1",
    "l2/..",
    "../ws-x",
    "../out/c",
    "missing",
    "{root}/ws",
    "{root}/ws/a/b",
    "{root}/out",
    "{root}",
    "/",
)

links = st.lists(
    st.tuples(st.sampled_from(DIRECTORIES), st.sampled_from(NAMES[3:6]), st.sampled_from(TARGETS)),
    max_size=6,
)
paths = st.tuples(
    st.sampled_from(("", "{root}/ws/", "{root}/", "{root}/ws-x/", "~/")),
    st.lists(st.sampled_from((*NAMES, "..", ".")), max_size=6),
)


def build(root: Path, link_specs: list[tuple[str, str, str]]) -> None:
    for directory in DIRECTORIES:
        (root / directory).mkdir(exist_ok=True)
    for directory, name, target in link_specs:
        link = root / directory / name
        if not os.path.lexists(link):
            link.symlink_to(target.format(root=root))


@settings(max_examples=150, deadline=None)
@given(links, paths)
def test_allowed_exactly_when_the_resolved_path_is_inside(
    link_specs: list[tuple[str, str, str]], path: tuple[str, list[str]]
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(os.path.realpath(temporary))
        build(root, link_specs)
        workspace = root / "ws"
        prefix, parts = path
        raw = prefix.format(root=root) + "/".join(parts)
        resolved = Path(os.path.realpath(workspace / Path(raw or ".").expanduser()))
        inside = is_inside(resolved, workspace)
        tools: tuple[tuple[str, Mode], ...] = (("Read", "default"), ("Write", "accept-edits"))
        for name, mode in tools:
            tool_use = ToolUse("call_1", name, {"file_path": raw or ".", "content": ""})
            decision = decide(checked(tool_use), PermissionRules(mode=mode), workspace)
            assert isinstance(decision, Allow if inside else Ask), (raw, resolved, decision)
            assert decision.outside == (() if inside else (resolved,))
