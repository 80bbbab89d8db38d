"""Glob patterns and the .gitignore subset that Glob and Grep honour."""

from __future__ import annotations

import pytest

from nehanda.tools.ignore import IgnoreFile, is_ignored, parse_gitignore
from nehanda.tools.patterns import MAX_BRACE_EXPANSIONS, compile_glob, expand_braces


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "d/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "d/e/a.py", True),
        ("src/**/*.ts", "src/a.ts", True),
        ("src/**/*.ts", "src/x/y/a.ts", True),
        ("src/**/*.ts", "lib/a.ts", False),
        ("docs/**", "docs/a/b.md", True),
        ("*.{ts,tsx}", "a.tsx", True),
        ("*.{ts,tsx}", "a.js", False),
        ("{src,lib/sub}/*.py", "lib/sub/a.py", True),
        ("?.md", "a.md", True),
        ("?.md", "ab.md", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "c.txt", True),
        ("[!ab].txt", "a.txt", False),
        ("[]].txt", "].txt", True),
        ("\\*.txt", "*.txt", True),
        ("\\*.txt", "a.txt", False),
        ("a{b", "a{b", True),
        ("{x}", "{x}", True),
        ("[unclosed", "[unclosed", True),
        ("*", "a/b", False),
        ("a.b", "axb", False),
    ],
)
def test_glob_matching(pattern: str, path: str, matches: bool) -> None:
    assert bool(compile_glob(pattern).fullmatch(path)) is matches


@pytest.mark.parametrize(
    ("pattern", "expanded"),
    [
        ("plain", ["plain"]),
        ("a{b,c}d", ["abd", "acd"]),
        ("{a,{b,c}}d", ["ad", "bd", "cd"]),
        ("{a,b}{1,2}", ["a1", "a2", "b1", "b2"]),
        ("{,x}y", ["y", "xy"]),
        ("\\{a,b}", ["\\{a,b}"]),
    ],
)
def test_brace_expansion(pattern: str, expanded: list[str]) -> None:
    assert expand_braces(pattern) == expanded


def test_runaway_brace_expansion_is_refused() -> None:
    with pytest.raises(ValueError, match=str(MAX_BRACE_EXPANSIONS)):
        expand_braces("{a,b}" * 9)


@pytest.mark.parametrize(
    ("lines", "path", "is_dir", "ignored"),
    [
        ("build/", "build", True, True),
        ("build/", "build", False, False),
        ("build/", "src/build", True, True),
        ("*.log", "a/b/x.log", False, True),
        ("/root.txt", "root.txt", False, True),
        ("/root.txt", "sub/root.txt", False, False),
        ("doc/*.md", "doc/a.md", False, True),
        ("doc/*.md", "x/doc/a.md", False, False),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("*.log\n!keep.log", "x.log", False, True),
        ("!keep.log\n*.log", "keep.log", False, True),
        ("**/tmp", "a/b/tmp", True, True),
        ("a/**/b", "a/x/y/b", False, True),
        ("a/**/b", "a/b", False, True),
        ("# comment", "# comment", False, False),
        ("\\#hash", "#hash", False, True),
        ("\\!bang", "!bang", False, True),
        ("foo\\ ", "foo ", False, True),
        ("trail   ", "trail", False, True),
        ("\n\n", "anything", False, False),
    ],
)
def test_gitignore_lines(lines: str, path: str, is_dir: bool, ignored: bool) -> None:
    chain = (IgnoreFile("/ws", parse_gitignore(lines)),)
    assert is_ignored(chain, f"/ws/{path}", is_dir) is ignored


@pytest.mark.parametrize(
    ("path", "ignored"),
    [
        ("top.txt", True),
        ("sub/keep.txt", False),
        ("sub/other.txt", True),
        ("sub/local.tmp", True),
        ("local.tmp", False),
        ("subway/keep.txt", True),
        ("sub/dir/keep.txt", False),
    ],
)
def test_a_deeper_gitignore_takes_precedence(path: str, ignored: bool) -> None:
    chain = (
        IgnoreFile("/", parse_gitignore("*.txt")),
        IgnoreFile("/ws/sub", parse_gitignore("!keep.txt\n*.tmp")),
    )
    assert is_ignored(chain, f"/ws/{path}", is_dir=False) is ignored
