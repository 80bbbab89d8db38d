"""MeetKai Functionary v3.2 ``>>>NAME\\n{json}`` recipients and v3.1 ``<function=NAME>``.

Sources: ggml-org/llama.cpp common/chat.cpp common_chat_parse_functionary_v3_2
(``(\\w+\\n\\{|python\\n|all\\n)`` at the start, ``>>>(\\w+\\n\\{|python\\n|all\\n)`` after,
``all`` at the start is content) and common_chat_parse_functionary_v3_1_llama_3_1,
common/parsers/functionary-v3-2.cpp (the generation prompt ends with ``>>>``; ``>>>all``
is a preserved token; content then calls), tests/test-chat.cpp (meetkai-functionary-medium
v3.1 and v3.2 cases).
"""

from __future__ import annotations

import pytest

from nehanda.toolcalls.families import functionary
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

R_JSON = '{"file_path": "/src/app.py"}'
B_JSON = '{"command": "ls"}'

TABLE: list[tuple[str, str, Calls]] = [
    (
        "v3.2 one call with the prompt's >>> (llama.cpp tests/test-chat.cpp "
        "'>>>special_function\\n{\"arg1\": 1}')",
        f">>>Read\n{R_JSON}",
        [("Read", READ)],
    ),
    (
        "v3.2 trailing space (llama.cpp tests/test-chat.cpp FunctionaryV3Llama3 "
        "'>>>special_function\\n{\"arg1\": 1}\\n ')",
        f">>>Read\n{R_JSON}\n ",
        [("Read", READ)],
    ),
    (
        "v3.2 content then a call (llama.cpp tests/test-chat.cpp 'all\\nHello, world!\\nnono\\n"
        "What\\'s up?>>>special_function\\n{...}')",
        f"all\nHello, world!\nnono\nWhat's up?>>>Read\n{R_JSON}\n",
        [("Read", READ)],
    ),
    (
        "v3.2 >>>all content then a call on its line (common/parsers/functionary-v3-2.cpp "
        "content_and_tools)",
        f">>>all\nLet me look.\n>>>Read\n{R_JSON}",
        [("Read", READ)],
    ),
    (
        "v3.2 two recipients in a row (common/parsers/functionary-v3-2.cpp one_or_more tool)",
        f">>>Read\n{R_JSON}>>>Bash\n{B_JSON}",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "v3.2 two recipients on lines (llama.cpp common/chat.cpp close_regex \\s*)",
        f">>>Read\n{R_JSON}\n>>>Bash\n{B_JSON}\n",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "v3.2 several keys and types (tests/test-chat.cpp arguments as JSON)",
        '>>>Bash\n{"command": "ls", "timeout": 5, "background": true}',
        [("Bash", {"command": "ls", "timeout": 5, "background": True})],
    ),
    (
        "v3.1 <function=NAME>{json}</function> (llama.cpp tests/test-chat.cpp "
        "meetkai-functionary-medium-v3.1)",
        f"<function=Read>{R_JSON}</function>",
        [("Read", READ)],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_functionary_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected)


def test_functionary_content_recipient_is_markup() -> None:
    # common/parsers/functionary-v3-2.cpp: ">>>all" is a preserved token, not text.
    check(f">>>all\nLet me look.\n>>>Read\n{R_JSON}", [("Read", READ)], visible="Let me look.")
    check(">>>all\nHello, world!", [], visible="Hello, world!")


def test_functionary_first_content_recipient_without_prompt_end_is_markup() -> None:
    check(f"all\nWhat's up?>>>Read\n{R_JSON}\n", [("Read", READ)], visible="What's up?")


def test_functionary_all_is_markup_only_as_the_very_first_text() -> None:
    # llama.cpp common/chat.cpp: "all\n" is consumed only at position 0.
    check("all\nHello, world!", [], visible="Hello, world!")
    for text in (" all\nHello", "Tell me all\nabout it", "allow\nme", "all", "all the files"):
        no_call(text)
        assert outcomes(text)[0].text == text


@pytest.mark.parametrize(
    "text",
    [
        # llama.cpp tests/test-chat.cpp: "special_function\n{\"arg1\": 1} \n" (prompt ends >>>)
        f"Read\n{R_JSON} \n",
        f"Read\n{R_JSON}>>>Bash\n{B_JSON}",
    ],
    ids=["one", "then a recipient"],
)
def test_functionary_first_recipient_without_prompt_end(text: str) -> None:
    expected = [("Read", READ)] if ">>>" not in text else [("Read", READ), ("Bash", LS)]
    check(text, expected)


def test_functionary_unknown_recipient_stays_text_and_known_ones_run() -> None:
    # Weak: ">>>" is also the Python prompt, so an unknown name is prose.
    text = f'>>>Nope\n{{"a": 1}}\n>>>Read\n{R_JSON}'
    for result in outcomes(text):
        assert calls_of(result) == [("Read", READ)]
        assert kinds(result) == []
        assert '>>>Nope\n{"a": 1}' in result.text


def test_functionary_names_match_exactly() -> None:
    no_call(f">>>read\n{R_JSON}")


def test_functionary_cut_off_call_is_truncated() -> None:
    for text in ('>>>Read\n{"file_path": "/src/a', f'>>>Bash\n{B_JSON}>>>Read\n{{"fi'):
        for result in outcomes(text):
            assert kinds(result) == ["truncated"]
            assert calls_of(result) == ([("Bash", LS)] if text.startswith(">>>Bash") else [])


@pytest.mark.parametrize(
    "text",
    [
        "Functionary addresses calls with >>>NAME on its own line, then JSON.",
        "In the REPL:\n>>> d = {'a': 1}\n>>> d\n{'a': 1}\n",
        ">>> print(1)\n1",
        ">>> quoted reply in a mail thread",
        "Write `>>>Read` and then the JSON.",
        f"Like so:\n```text\n>>>Read\n{R_JSON}\n```\n",
        "```python\n>>> import json\n>>> json.loads('{}')\n{}\n```",
        ">>>python\nprint('hey')",
    ],
    ids=["prose", "repl", "repl print", "quote", "inline", "text fence", "doctest", "python"],
)
def test_functionary_look_alikes_are_not_calls(text: str) -> None:
    no_call(text)


def test_functionary_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    text = f"<think>Then >>>Read\n{R_JSON}</think>\nNo need."
    for result in outcomes(text):
        assert calls_of(result) == []
        assert result.text.strip() == "No need."


def test_functionary_call_in_reasoning_only_counts() -> None:
    check(f"<think>I read it.\n>>>Read\n{R_JSON}\n</think>", [("Read", READ)])


# -- the message-start decoder on its own -----------------------------------------


def test_decode_recipients_reads_the_first_and_the_following() -> None:
    found = functionary.decode_recipients(body(f"Read\n{R_JSON}\n>>>Bash\n{B_JSON}\n"))
    assert found_calls(found) == [("Read", READ), ("Bash", LS)]


def test_decode_recipients_stops_at_content() -> None:
    found = functionary.decode_recipients(body(f"Read\n{R_JSON}>>>all\nDone>>>Bash\n{B_JSON}"))
    assert found_calls(found) == [("Read", READ)]


def test_decode_recipients_first_name_must_be_known() -> None:
    assert functionary.decode_recipients(body(f"Result\n{R_JSON}")) is None
    assert found_calls(functionary.decode_recipients(body("Result\n{}", known=None))) == [
        ("Result", {})
    ]
    found = functionary.decode_recipients(body(f"Read\n{R_JSON}>>>Nope\n{{}}"))
    assert found_calls(found) == [("Read", READ)]
    assert found_kinds(found) == ["unknown_tool"]


def test_decode_recipients_truncated_and_broken() -> None:
    found = functionary.decode_recipients(body('Read\n{"file_path": "/sr'))
    assert found_kinds(found) == ["truncated"]
    found = functionary.decode_recipients(body("Read\n{'file_path': '/src/app.py'}"))
    assert found_calls(found) == [("Read", READ)]
    assert functionary.decode_recipients(body("all\nHello")) is None


def test_start_pattern_and_refuse() -> None:
    for call in (f"Read\n{R_JSON}", "Bash \n  {", "mcp__git.log-v2\r\n{"):
        assert functionary.START_PATTERN.match(call), call
        assert not functionary.START_REFUSE.match(call), call
    for prose in ("all\n{", "Hello, world", "Hello world\n{", "Sure\nHere", "{", "Reading.\n"):
        assert not functionary.START_PATTERN.match(prose), prose
        assert functionary.START_REFUSE.match(prose), prose
    for partial in ("Rea", "Read", "Read\n", "Read \n "):
        assert not functionary.START_PATTERN.match(partial), partial
        assert not functionary.START_REFUSE.match(partial), partial


def test_decode_recipients_is_linear_on_hostile_bodies() -> None:
    hostile = "Read\n{" + "[" * 50000
    assert found_kinds(functionary.decode_recipients(body(hostile))) == ["truncated"]
    chain = f"Read\n{R_JSON}" + f">>>Read\n{R_JSON}" * 5000
    found = functionary.decode_recipients(body(chain))
    assert found is not None and len(found) == 5001
