"""ByteDance Seed-OSS: ``<seed:tool_call><function=NAME><parameter=k>v</parameter>...``.

Sources: vllm-project/vllm vllm/tool_parsers/seed_oss_tool_parser.py and
tests/tool_parsers/test_seed_oss_tool_parser.py (thinking-budget outputs, a call quoted
inside the thinking), ggml-org/llama.cpp models/templates/ByteDance-Seed-OSS.jinja (the
template: ``<seed:think>`` reasoning, values written right after their tag) and
common/chat.cpp common_chat_parse_seed_oss.
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import seed
from toolcalls.dialects.family_checks import (
    LS,
    READ,
    Calls,
    body,
    check,
    found_calls,
    found_kinds,
    no_call,
    outcomes,
)
from toolcalls.toolcall_render import calls_of, kinds

OPEN, CLOSE = "<seed:tool_call>", "</seed:tool_call>"


def function(name: str, *params: tuple[str, str]) -> str:
    inner = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in params)
    return f"<function={name}>\n{inner}</function>"


READ_FN = function("Read", ("file_path", "/src/app.py"))
BASH_FN = function("Bash", ("command", "ls"))
READ_CALL = f"{OPEN}\n{READ_FN}\n{CLOSE}"
BUDGET = (
    "<seed:cot_budget_reflect>I have used 131 tokens, and there are 381 tokens remaining for "
    "use.</seed:cot_budget_reflect>"
)

TABLE: list[tuple[str, str, Calls]] = [
    (
        "template layout (llama.cpp models/templates/ByteDance-Seed-OSS.jinja; vllm "
        "test_seed_oss_tool_parser.py tool_call_0_thinking_budget)",
        READ_CALL,
        [("Read", READ)],
    ),
    (
        "after thinking with budget reflections (vllm test_seed_oss_tool_parser.py "
        "tool_call_512_thinkg_budget)",
        "<seed:think>The user wants the file.\n"
        + BUDGET
        + "\n So I read it.</seed:think>\n"
        + READ_CALL,
        [("Read", READ)],
    ),
    (
        "the thinking quotes a draft call, the answer makes it (vllm test_seed_oss_tool_parser.py "
        "tool_call_unlimited_thinking_budget)",
        "<seed:think>\nThe format is "
        + READ_CALL
        + ". Let me go with that.</seed:think>"
        + f"{OPEN}\n{BASH_FN}\n{CLOSE}",
        [("Bash", LS)],
    ),
    (
        "two functions in one block (vllm seed_oss_tool_parser.py tool_call_function_regex "
        "findall)",
        f"{OPEN}\n{READ_FN}\n{BASH_FN}\n{CLOSE}",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "two blocks (vllm seed_oss_tool_parser.py tool_call_regex findall)",
        f"{READ_CALL}\n{OPEN}\n{BASH_FN}\n{CLOSE}",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "prose before the block (vllm seed_oss_tool_parser.py: content before the start token)",
        "Let me look.\n" + READ_CALL,
        [("Read", READ)],
    ),
    (
        "a multi-line value (ByteDance-Seed-OSS.jinja tool instructions)",
        f"{OPEN}\n<function=Bash>\n<parameter=command>cd src\nls -la</parameter>\n"
        f"</function>\n{CLOSE}",
        [("Bash", {"command": "cd src\nls -la"})],
    ),
    (
        "values typed by the schema (vllm seed_oss_tool_parser.py convert_param_value)",
        f"{OPEN}\n"
        + function(
            "Bash",
            ("command", "ls"),
            ("timeout", "30"),
            ("background", "True"),
            ("env", '{"A": "1"}'),
            ("args", "[1]"),
        )
        + f"\n{CLOSE}",
        [
            (
                "Bash",
                {
                    "command": "ls",
                    "timeout": 30,
                    "background": True,
                    "env": {"A": "1"},
                    "args": [1],
                },
            )
        ],
    ),
    (
        "the block closer lost with its special token (vllm seed_oss_tool_parser.py: "
        "tool_call_regex also takes an unclosed block)",
        f"{OPEN}\n{READ_FN}\n",
        [("Read", READ)],
    ),
    (
        "no parameters (ByteDance-Seed-OSS.jinja with empty arguments)",
        f"{OPEN}\n<function=Bash>\n</function>\n{CLOSE}",
        [("Bash", {})],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_seed_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected)


def test_seed_reasoning_and_budget_markup_are_not_visible() -> None:
    text = "<seed:think>Thinking.\n" + BUDGET + "\nDone.</seed:think>\nReading.\n" + READ_CALL
    check(
        text,
        [("Read", READ)],
        visible="Reading.",
        hidden=("seed:think", "cot_budget", "tokens remaining"),
    )


def test_seed_eos_token_is_markup() -> None:
    check("Done." + "<seed:eos>", [], visible="Done.", hidden=("<seed:eos>",))


def test_seed_value_runs_to_its_closing_tag() -> None:
    # A Write whose content documents the format: the tags inside it are content.
    content = "Call <seed:tool_call><function=Read><parameter=file_path>x"
    text = f"{OPEN}\n" + function("Write", ("content", content), ("file_path", "doc.md")) + CLOSE
    check(text, [("Write", {"content": content, "file_path": "doc.md"})])


def test_seed_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = f"{OPEN}\n" + function("Nope", ("a", "1")) + "\n" + READ_FN + f"\n{CLOSE}"
    check(text, [("Read", READ)], ["unknown_tool"])


def test_seed_duplicate_key_is_a_problem() -> None:
    text = f"{OPEN}\n" + function("Read", ("file_path", "a"), ("file_path", "b")) + CLOSE
    check(text, [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        f"{OPEN}\n<function=Read>\n<parameter=file_path>/src/ap",
        f"{OPEN}\n<function=Read>\n<parameter=file_path>/src/app.py</parameter>\n",
        f"{OPEN}\n<function=Re",
    ],
    ids=["inside a value", "before </function>", "inside the name"],
)
def test_seed_cut_off_call_is_truncated(text: str) -> None:
    for result in outcomes(text):
        assert calls_of(result) == []
        assert kinds(result) == ["truncated"]


@pytest.mark.parametrize(
    "text",
    [
        "Seed-OSS puts calls in <seed:tool_call> tags holding <function=...> elements.",
        "Write `<seed:tool_call><function=Read><parameter=file_path>a</parameter></function>"
        "</seed:tool_call>` to read.",
        "Like this:\n```text\n" + READ_CALL + "\n```\n",
        "```python\nFMT = '''" + READ_CALL + "'''\n```",
    ],
    ids=["prose", "inline code", "text fence", "python fence"],
)
def test_seed_look_alikes_are_not_calls(text: str) -> None:
    no_call(text)


def test_seed_schema_echo_names_no_known_tool() -> None:
    # ByteDance-Seed-OSS.jinja's own instructions, echoed.
    text = (
        "<seed:tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>"
        "value_1</parameter>\n</function>\n</seed:tool_call>"
    )
    check(text, [], ["unknown_tool"])


def test_seed_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    text = "<seed:think>I could " + READ_CALL + "</seed:think>\nNo need: it is empty."
    for result in outcomes(text):
        assert calls_of(result) == []
        assert result.text.strip() == "No need: it is empty."


def test_seed_call_in_reasoning_only_counts() -> None:
    check("<seed:think>I need it.\n" + READ_CALL + "</seed:think>", [("Read", READ)])


# -- the decoder on its own -------------------------------------------------------


def test_decode_seed_reads_functions_in_order() -> None:
    found = seed.decode_seed(body(f"\n{READ_FN}\n{BASH_FN}\n"))
    assert found_calls(found) == [("Read", READ), ("Bash", LS)]


def test_decode_seed_forgotten_function_closer() -> None:
    text = "\n<function=Read>\n<parameter=file_path>/src/app.py</parameter>\n" + BASH_FN
    assert found_calls(seed.decode_seed(body(text))) == [("Read", READ), ("Bash", LS)]


def test_decode_seed_unclosed_body() -> None:
    found = seed.decode_seed(body(f"\n{READ_FN}\n<function=Bash>\n", closed=False))
    assert found_calls(found) == [("Read", READ)]
    assert found_kinds(found) == ["truncated"]


def test_seed_head_and_refuse() -> None:
    assert seed.HEAD.match("\n<function=Read>")
    assert seed.REFUSE.match(" tags")
    assert not seed.REFUSE.match("\n<func") and not seed.HEAD.match("\n<func")
