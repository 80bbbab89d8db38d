"""Property: a denied command whose name is built so the text does not spell it is never
allowed: parameter expansion, command substitution, brace expansion, globs, ANSI-C
quoting and spliced quotes, alone or mixed, behind a wrapper or not, in every mode."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fakes import checked
from nehanda.config.permission_modes import Mode
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.types import ToolUse
from nehanda.verdicts import Allow

DENIED = ("rm", "git")


def _char(char: str) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            char,
            f"'{char}'",
            f'"{char}"',
            f"\\{char}",
            f"$'\\x{ord(char):02x}'",
            f"$'\\{ord(char):03o}'",
            f"[{char}]",
            "?",
            "*",
            f"{{{char},}}",
            f"${{x:-{char}}}",
            f"$(printf {char})",
        ]
    )


@st.composite
def spelled(draw: st.DrawFn, name: str) -> str:
    pieces = [draw(_char(char)) for char in name]
    return "".join(pieces)


@st.composite
def built(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(DENIED))
    whole = draw(
        st.sampled_from(
            [
                "{spelled}",
                "/bin/{spelled}",
                "$(echo {name})",
                "`echo {name}`",
                "${{x:-{name}}}",
                "x={name}; $x",
                "x={name}; ${{x}}",
                "{{{name},-f,X}}",
                "$'{name}'",
                '"$(echo {name})"',
            ]
        )
    ).format(spelled=draw(spelled(name)), name=name)
    wrapper = draw(st.sampled_from(["", "sudo ", "timeout 5 ", "taskset -c 0 ", "env A=1 "]))
    tail = " push" if name == "git" else " -f X"
    return wrapper + whole + tail


@given(command=built(), mode=st.sampled_from(["yolo", "default", "accept-edits"]))
def test_a_denied_name_built_any_way_is_never_allowed(command: str, mode: Mode) -> None:
    rules = PermissionRules.parse(mode, allow=["Bash(*)"], deny=["Bash(rm:*)", "Bash(git push:*)"])
    decided = decide(
        checked(ToolUse("1", "Bash", {"command": command})), rules, Path("/nonexistent-ws")
    )
    assert not isinstance(decided, Allow), (command, decided)
