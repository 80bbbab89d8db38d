"""Workspace confinement: which paths the read-only tools accept."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.errors import ToolError
from nehanda.tools.paths import is_inside, place_in_workspace, resolve_in_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "x"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "file.txt").write_text("inside\n")
    (tmp_path / "x-evil").mkdir()
    (tmp_path / "x-evil" / "secret.txt").write_text("secret\n")
    return Path(os.path.realpath(ws))


def resolve(raw: str, workspace: Path) -> Path:
    return resolve_in_workspace(raw, workspace, tool="Read", action="read")


@pytest.mark.parametrize(
    ("path", "root", "inside"),
    [
        ("/proj", "/proj", True),
        ("/proj/a/b", "/proj", True),
        ("/proj-evil", "/proj", False),
        ("/proj-evil/a", "/proj", False),
        ("/pro", "/proj", False),
        ("/", "/proj", False),
        ("/anything", "/", True),
    ],
)
def test_inside_is_decided_by_components(path: str, root: str, inside: bool) -> None:
    assert is_inside(PurePosixPath(path), PurePosixPath(root)) is inside


@pytest.mark.parametrize(
    "raw",
    ["../../etc/passwd", "../x-evil/secret.txt", "sub/../../x-evil/secret.txt", "/etc/passwd"],
)
def test_paths_leaving_the_workspace_are_refused(workspace: Path, raw: str) -> None:
    with pytest.raises(ToolError, match=f"outside the workspace {workspace}; only files inside"):
        resolve(raw, workspace)


def test_absolute_sibling_with_the_workspace_as_prefix_is_refused(workspace: Path) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve(f"{workspace}-evil/secret.txt", workspace)


def test_symlink_pointing_outside_is_refused_naming_its_target(workspace: Path) -> None:
    (workspace / "link").symlink_to(workspace.parent / "x-evil" / "secret.txt")
    with pytest.raises(ToolError, match=r"it resolves to .*x-evil/secret\.txt"):
        resolve("link", workspace)


def test_home_directory_paths_are_expanded_then_refused(workspace: Path) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve("~/.ssh/id_rsa", workspace)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (".", ""),
        ("sub/file.txt", "sub/file.txt"),
        ("sub/../sub/./file.txt", "sub/file.txt"),
        ("inner-link/file.txt", "sub/file.txt"),
        ("{ws}/sub", "sub"),
    ],
)
def test_paths_inside_resolve_to_their_real_location(
    workspace: Path, raw: str, expected: str
) -> None:
    (workspace / "inner-link").symlink_to(workspace / "sub")
    assert resolve(raw.format(ws=workspace), workspace) == workspace / expected


def test_nul_in_a_path_is_a_tool_error(workspace: Path) -> None:
    with pytest.raises(ToolError, match="NUL"):
        resolve("a\0b", workspace)


@pytest.fixture(scope="module")
def plain_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(os.path.realpath(tmp_path_factory.mktemp("plain")))


SEGMENTS = st.sampled_from(["a", "b", "..", ".", "plain-evil", "x"])


@given(st.lists(SEGMENTS, max_size=8))
def test_refusal_agrees_with_a_lexical_reference(
    plain_workspace: Path, segments: list[str]
) -> None:
    # Without symlinks, resolving is normalising: the reference is a string comparison.
    raw = "/".join(segments) or "."
    normal = os.path.normpath(plain_workspace / raw)
    expected = normal == str(plain_workspace) or normal.startswith(f"{plain_workspace}/")
    try:
        resolve(raw, plain_workspace)
        accepted = True
    except ToolError:
        accepted = False
    assert accepted is expected


@given(
    st.lists(SEGMENTS.filter(lambda s: s not in (".", "..")), max_size=4),
    st.lists(SEGMENTS, max_size=4),
)
def test_is_inside_agrees_with_commonpath(root_parts: list[str], rest: list[str]) -> None:
    root = os.path.normpath("/" + "/".join(root_parts))
    path = os.path.normpath(PurePosixPath(root).joinpath(*rest))
    reference = os.path.commonpath([root, path]) == root
    assert is_inside(PurePosixPath(path), PurePosixPath(root)) is reference


@pytest.mark.parametrize(
    ("raw", "granted", "root"),
    [
        ("sub/file.txt", (), "{ws}"),
        ("inner-link/file.txt", (), "{ws}"),
        (".", (), "{parent}"),
        ("{parent}/x-evil/secret.txt", ("{parent}/x-evil",), "{parent}/x-evil"),
        ("{parent}/x-evil/secret.txt", ("{parent}/x-evil/secret.txt",), "{parent}/x-evil"),
    ],
)
def test_each_path_is_placed_beneath_the_root_that_holds_it(
    workspace: Path, raw: str, granted: tuple[str, ...], root: str
) -> None:
    # The file tools open the root and then the rest below its descriptor: a granted
    # file's root is its folder, and the workspace itself is opened from its parent.
    (workspace / "inner-link").symlink_to(workspace / "sub")
    names = {"ws": workspace, "parent": workspace.parent}
    placed = place_in_workspace(
        raw.format(**names),
        workspace,
        tool="Read",
        action="read",
        granted=tuple(Path(path.format(**names)) for path in granted),
    )
    assert placed.root == Path(root.format(**names))
    assert placed.root / placed.relative == placed.path
