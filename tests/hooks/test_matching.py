"""Which hooks run for a name, and Claude Code's ``hooks`` block in the flat form."""

from __future__ import annotations

import json

import pytest

from nehanda.config.hooks import DefinedHook, HookEntry, claude_hooks, matcher_matches


@pytest.mark.parametrize(
    ("matcher", "name", "runs"),
    [
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # the WHOLE name
        ("Bas", "Bash", False),
        ("", "anything", True),
        ("*", "mcp__git__log", True),
        ("Edit|Write", "Write", True),
        ("Edit|Write", "MultiEdit", False),
        ("mcp__git__.*", "mcp__git__log", True),
        ("Notebook.*", "NotebookEdit", True),
    ],
)
def test_a_matcher_matches_the_whole_name(matcher: str, name: str, runs: bool) -> None:
    assert matcher_matches(matcher, name) is runs


def test_claude_codes_nested_block_becomes_flat_hooks_with_their_lines() -> None:
    data = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": "a.sh", "timeout": 5}],
                },
                {
                    "hooks": [
                        {"type": "command", "command": "b.sh"},
                        {"type": "prompt", "prompt": "?"},
                    ]
                },
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "c.sh"}]}],
            "PermissionRequest": [{"hooks": [{"type": "command", "command": "d.sh"}]}],
        }
    }
    text = json.dumps(data, indent=2)
    found, notes = claude_hooks(data, "user", "/h/.claude/settings.json", text)
    flat = [(h.event, h.entry.matcher, h.entry.command, h.entry.timeout) for h in found]
    assert flat == [
        ("PreToolUse", "Bash", "a.sh", 5),
        ("PreToolUse", "", "b.sh", 60),
        ("Stop", "", "c.sh", 60),
    ]
    assert [h.line for h in found] == [
        next(i + 1 for i, line in enumerate(text.splitlines()) if f'"{cmd}"' in line)
        for cmd in ("a.sh", "b.sh", "c.sh")
    ]
    assert any("PermissionRequest" in note for note in notes)
    assert any("'prompt' was skipped" in note for note in notes)


def test_a_hooks_approval_is_asked_again_for_any_change() -> None:
    base = DefinedHook("PreToolUse", HookEntry(matcher="Bash", command="a.sh"), "project", "f")
    changes = [
        DefinedHook("PostToolUse", base.entry, "project", "f"),
        DefinedHook("PreToolUse", HookEntry(matcher="Bash|Edit", command="a.sh"), "project", "f"),
        DefinedHook("PreToolUse", HookEntry(matcher="Bash", command="a.sh "), "project", "f"),
        DefinedHook(
            "PreToolUse", HookEntry(matcher="Bash", command="a.sh", timeout=5), "project", "f"
        ),
    ]
    assert all(changed.fingerprint() != base.fingerprint() for changed in changes)
    assert all(changed.name == base.name for changed in changes[1:])
