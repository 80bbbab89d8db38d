"""Reading a hook's answer as Claude Code reads it: exit codes, JSON, and several hooks
together (tables, and properties over any mix of answers)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.hooks.answers import HookAnswer, Outcome, combine, read_answer


def pre(
    code: int | None, stdout: str = "", stderr: str = "", event: str = "PreToolUse"
) -> HookAnswer:
    return read_answer(event, "the hook", Outcome(code, stdout, stderr))


def specific(**fields: object) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}})


FAILED = ("the hook failed (exit code 1): boom",)
UNREAD = ("the hook printed JSON that cannot be read; ignored",)
CANNOT = ("the hook answered a permissionDecision or updatedInput it cannot; ignored",)


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (Outcome(0), HookAnswer(ran=1)),
        (Outcome(2, "", "not here\n"), HookAnswer(blocked=True, reason="not here", ran=1)),
        (Outcome(1, "", "boom\nmore"), HookAnswer(shown=FAILED, ran=1)),
        (Outcome(None), HookAnswer(shown=("the hook timed out and was killed",), ran=1)),
        (Outcome(0, "{oops"), HookAnswer(shown=UNREAD, ran=1)),
        (Outcome(0, "plain words"), HookAnswer(ran=1)),  # not context for a tool event
        (Outcome(0, specific(permissionDecision="deny", permissionDecisionReason="no")),
         HookAnswer(permission="deny", permission_reason="no", ran=1)),
        (Outcome(0, specific(updatedInput={"command": "ls"})),
         HookAnswer(updated_input={"command": "ls"}, ran=1)),
        (Outcome(0, specific(permissionDecision="maybe")),
         HookAnswer(shown=CANNOT, ran=1)),
        (Outcome(0, '{"decision": "approve"}'), HookAnswer(permission="allow", ran=1)),
        (Outcome(0, '{"continue": false, "stopReason": "enough"}'),
         HookAnswer(proceed=False, stop_reason="enough", ran=1)),
        # JSON is read on exit 0 only
        (Outcome(2, specific(permissionDecision="allow"), "no"),
         HookAnswer(blocked=True, reason="no", ran=1)),
    ],
)  # fmt: skip
def test_a_pre_tool_use_answer(outcome: Outcome, expected: HookAnswer) -> None:
    assert read_answer("PreToolUse", "the hook", outcome) == expected


def test_plain_stdout_is_context_only_where_claude_code_makes_it_so() -> None:
    assert pre(0, "use tabs\n", event="UserPromptSubmit").context == "use tabs"
    assert pre(0, "use tabs\n", event="SessionStart").context == "use tabs"
    assert pre(0, "use tabs\n", event="Stop").context == ""
    json_context = json.dumps({"hookSpecificOutput": {"additionalContext": "from JSON"}})
    assert pre(0, json_context, event="UserPromptSubmit").context == "from JSON"


def test_exit_2_blocks_only_events_that_can_be_blocked() -> None:
    assert pre(2, stderr="x", event="Stop").blocked
    assert not pre(2, stderr="x", event="SessionStart").blocked
    assert pre(2, stderr="x", event="SessionStart").shown == ("the hook: x",)
    assert pre(0, '{"decision": "block", "reason": "go on"}', event="Stop") == HookAnswer(
        blocked=True, reason="go on", ran=1
    )


permissions = st.sampled_from([None, "allow", "ask", "deny"])
answers = st.builds(
    HookAnswer,
    blocked=st.booleans(),
    reason=st.text(max_size=5),
    proceed=st.booleans(),
    permission=permissions,
    updated_input=st.one_of(
        st.none(), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
    ),
    ran=st.just(1),
)


@given(st.lists(answers, min_size=1, max_size=6))
def test_together_a_deny_or_block_is_never_lost(many: list[HookAnswer]) -> None:
    joined = combine(many)
    assert joined.blocked == any(a.blocked for a in many)
    assert joined.proceed == all(a.proceed for a in many)
    if any(a.permission == "deny" for a in many):
        assert joined.permission == "deny"
    elif any(a.permission == "ask" for a in many):
        assert joined.permission == "ask"
    assert joined.ran == len(many)
