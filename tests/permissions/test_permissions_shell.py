"""Shell splitting: the parts of a command, what runs inside them, and what no rule may judge."""

from __future__ import annotations

import pytest

from nehanda.permissions.shell import analyse


def words(command: str) -> list[tuple[str, ...]]:
    return [part.words for part in analyse(command).parts]


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("git status", [("git", "status")]),
        ("git status && rm -rf build", [("git", "status"), ("rm", "-rf", "build")]),
        ("a || b; c | d & e |& f", [("a",), ("b",), ("c",), ("d",), ("e",), ("f",)]),
        ("npm test\nrm x", [("npm", "test"), ("rm", "x")]),
        ("echo 'a;b' \"c|d\" e\\;f", [("echo", "a;b", "c|d", "e;f")]),
        ("git log --format='%H %s'", [("git", "log", "--format=%H %s")]),
        ("make \\\n  all", [("make", "all")]),
        ("echo hi # ; rm -rf /", [("echo", "hi")]),
        ("ls 2>&1 >/dev/null 2>/dev/null", [("ls",)]),
        ("   ", []),
    ],
)
def test_commands_split_into_their_parts(command: str, parts: list[tuple[str, ...]]) -> None:
    assert words(command) == parts
    assert analyse(command).risks == ()


@pytest.mark.parametrize(
    ("command", "risk", "inner"),
    [
        ("echo $(touch m)", "command substitution", ("touch", "m")),
        ('echo "x$(touch m)"', "command substitution", ("touch", "m")),
        ("echo `touch m`", "command substitution", ("touch", "m")),
        ("echo ${x:-$(touch m)}", "command substitution", ("touch", "m")),
        ("cat <(touch m)", "process substitution", ("touch", "m")),
        ("echo hi > m", "redirects output to a file (> m)", None),
        ("echo hi >> m", "redirects output to a file (>> m)", None),
        ("echo hi &> m", "redirects output to a file (&> m)", None),
        ("echo hi 2>m", "redirects output to a file (> m)", None),
        ("echo hi >&m", "redirects output to a file (>& m)", None),
        ("eval 'touch m'", "eval runs a string", ("touch", "m")),
        ("bash -c 'touch m'", "bash -c runs a string", ("touch", "m")),
        ("sh -ec 'touch m'", "sh -c runs a string", ("touch", "m")),
        ("/bin/bash -o pipefail -c 'touch m'", "bash -c runs a string", ("touch", "m")),
        ("env touch m", "env runs another command", ("touch", "m")),
        ("timeout 5 touch m", "timeout runs another command", ("touch", "m")),
        ("sudo -u root touch m", "sudo runs another command", ("touch", "m")),
        ("nohup touch m", "nohup runs another command", ("touch", "m")),
        ("xargs touch", "xargs runs another command", ("touch",)),
        ("find . -exec touch m \\;", "find -exec", ("touch", "m", ";")),
        ("FOO=1 touch m", "sets environment variables", ("touch", "m")),
        ("$CMD m", "the command name comes from an expansion", None),
        ("for f in a; do touch $f; done", "uses shell syntax (for)", None),
        ("(touch m)", "subshell", None),
        ("cat <<EOF\nhi\nEOF", "here-document", None),
        ("echo 'unclosed", "never closed", None),
    ],
)
def test_risky_constructs_are_found(command: str, risk: str, inner: tuple[str, ...] | None) -> None:
    found = analyse(command)
    assert any(risk in reason for reason in found.risks), found.risks
    if inner is not None:
        assert inner in [part.words for part in found.everywhere()]


def test_assignments_alone_and_harmless_redirections_are_not_risks() -> None:
    assert analyse("x=$HOME; echo $x 2>/dev/null < input.txt").risks == ()


def test_deep_nesting_is_a_risk_not_a_crash() -> None:
    found = analyse("echo " + "$(" * 5000 + "x" + ")" * 5000)
    assert "commands nested too deeply to check" in found.risks
    eval_chain = analyse("eval " + "'eval " * 50 + "x" + "'" * 50)
    assert eval_chain.risks
