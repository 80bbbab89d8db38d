"""Hermes 2 Pro / Hermes 3: ``<tool_call>`` JSON (or a Python dict), ``<scratch_pad>``, ChatML.

Sources: vllm-project/vllm vllm/tool_parsers/hermes_tool_parser.py and
tests/tool_parsers/test_hermes_tool_parser.py; NousResearch/Hermes-Function-Calling
README.md (``<tool_call>\\n{'arguments': {...}, 'name': ...}\\n</tool_call><|im_end|>``, and
the Hermes 3 prompt: "You must use <scratch_pad> </scratch_pad> XML tags to record your
reasoning and planning before you call the functions") and prompt_assets/sys_prompt.yml
(``{'arguments': <args-dict>, 'name': <function-name>}``).
"""

from __future__ import annotations

import json

import pytest

from nehanda.toolcalls.families import hermes
from toolcalls.dialects.family_checks import LS, READ, Calls, check, no_call, outcomes
from toolcalls.toolcall_render import calls_of

R = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
B = '{"name": "Bash", "arguments": {"command": "ls"}}'
SCRATCH = (
    "<scratch_pad>\nGoal: read the app\nActions:\n"
    "- result = functions.Read(file_path='/src/app.py')\n"
    "Observation: None\nReflection: Read is relevant and file_path is given.\n</scratch_pad>\n"
)

TABLE: list[tuple[str, str, Calls, list[str]]] = [
    (
        "between tags (vllm tests/tool_parsers/test_hermes_tool_parser.py "
        "test_hermes_parser_non_streaming_tool_call_between_tags)",
        f"<tool_call>\n{R}\n</tool_call>",
        [("Read", READ)],
        [],
    ),
    (
        "until the end, no closer (test_hermes_tool_parser.py "
        "test_hermes_parser_non_streaming_tool_call_until_eos)",
        f"<tool_call>\n{R}",
        [("Read", READ)],
        [],
    ),
    (
        "arguments already serialized (test_hermes_tool_parser.py "
        "test_hermes_parser_non_streaming_serialized_arguments)",
        "<tool_call>\n"
        + json.dumps({"name": "Read", "arguments": json.dumps(READ)})
        + "\n</tool_call>",
        [("Read", READ)],
        [],
    ),
    (
        "two blocks (test_hermes_tool_parser.py "
        "test_hermes_streaming_multiple_tool_calls_with_stream_interval)",
        f"<tool_call>{R}</tool_call><tool_call>{B}</tool_call>",
        [("Read", READ), ("Bash", LS)],
        [],
    ),
    (
        "Python dict body (NousResearch/Hermes-Function-Calling README.md)",
        "<tool_call>\n{'arguments': {'file_path': '/src/app.py'}, 'name': 'Read'}\n</tool_call>",
        [("Read", READ)],
        ["repaired"],
    ),
    (
        "Python dict body with True/None (Hermes-Function-Calling README.md style)",
        "<tool_call>\n{'name': 'Bash', 'arguments': {'command': 'ls', 'background': True, "
        "'env': None}}\n</tool_call>",
        [("Bash", {"command": "ls", "background": True, "env": None})],
        ["repaired"],
    ),
    (
        "ChatML end token after the block (Hermes-Function-Calling README.md)",
        f"<tool_call>\n{R}\n</tool_call><|im_end|>",
        [("Read", READ)],
        [],
    ),
    (
        "Hermes 3 scratch pad then the call (Hermes-Function-Calling README.md)",
        f"{SCRATCH}<tool_call>\n{R}\n</tool_call>",
        [("Read", READ)],
        [],
    ),
]


@pytest.mark.parametrize(
    ("label", "text", "expected", "problems"), TABLE, ids=[row[0] for row in TABLE]
)
def test_hermes_table(label: str, text: str, expected: Calls, problems: list[str]) -> None:
    check(text, expected, problems, visible="", hidden=("<|im_end|>", "scratch_pad"))


def test_hermes_content_then_call() -> None:
    # test_hermes_tool_parser.py test_hermes_streaming_content_then_tool_call_with_stream_interval
    text = f"Sure, let me check the file.<tool_call>{R}</tool_call>"
    check(text, [("Read", READ)], visible="Sure, let me check the file.")


def test_hermes_im_end_is_markup_in_prose() -> None:
    check("The answer is 4.<|im_end|>", [], visible="The answer is 4.")


@pytest.mark.parametrize(
    "text",
    [
        "This is not a tool call.",
        "Wrap each call in <tool_call></tool_call> XML tags.",
        f"Use `<tool_call>{R}</tool_call>` to call.",
        f"```text\n<tool_call>\n{R}\n</tool_call>\n```",
        "<scratch_pad>\nGoal: answer\nActions: None\n</scratch_pad>\nIt is 4.",
    ],
    ids=[
        "prose (vllm no_tool_call)",
        "prose naming tags",
        "inline code",
        "text fence",
        "plan only",
    ],
)
def test_hermes_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


def test_hermes_prompt_placeholder_echo_is_not_a_call() -> None:
    # sys_prompt.yml's own example, echoed: placeholders, not JSON.
    text = "<tool_call>\n{'arguments': <args-dict>, 'name': <function-name>}\n</tool_call>"
    for result in outcomes(text):
        assert calls_of(result) == []


def test_hermes_unknown_tool_is_dropped_others_kept() -> None:
    text = f'<tool_call>{{"name": "Nope", "arguments": {{}}}}</tool_call><tool_call>{R}</tool_call>'
    check(text, [("Read", READ)], ["unknown_tool"])


def test_hermes_truncated_call_never_runs() -> None:
    # test_hermes_tool_parser.py test_hermes_parser_non_streaming_tool_call_invalid_json.
    check(
        '<tool_call>\n{"name": "Read", "arguments": {"file_path": "/src/app.py"}', [], ["truncated"]
    )


def test_hermes_scratch_pad_draft_does_not_run() -> None:
    text = f"<scratch_pad>Maybe <tool_call>{R}</tool_call></scratch_pad>No tool is needed."
    check(text, [], visible="No tool is needed.")


def test_hermes_call_in_scratch_pad_only_counts() -> None:
    check(f"<scratch_pad><tool_call>{R}</tool_call></scratch_pad>", [("Read", READ)])


def test_hermes_family_rows() -> None:
    assert hermes.FAMILY.reasoning == (("<scratch_pad>", "</scratch_pad>"),)
    assert hermes.FAMILY.markup == ("<|im_end|>",)
    openers = {d.opener for d in hermes.FAMILY.dialects}
    assert openers == {"<tool_call>", "<tools>", "<function_call>", "<json>"}
    assert hermes.TOOLS_TAG.weak and hermes.JSON_TAG.weak and not hermes.FUNCTION_CALL_TAG.weak


def test_hermes_prelude_is_decided_within_its_limit() -> None:
    """A name then a long run of blanks: the prelude is a mention once LIMIT characters
    have come, not re-matched to the end of the buffer on every chunk (quadratic)."""
    from nehanda.toolcalls.dialects import Dialect
    from nehanda.toolcalls.prelude import LIMIT, REJECT, read_prelude
    from nehanda.toolcalls.registry import FULL, grammar

    dialect = grammar(FULL).blocks["<tool_call>"]
    assert isinstance(dialect, Dialect)
    buf = "<tool_call>Read" + " " * (4 * LIMIT)
    assert read_prelude(buf, len("<tool_call>"), False, dialect, None) == REJECT
