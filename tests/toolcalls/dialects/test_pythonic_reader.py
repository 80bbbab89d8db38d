"""The pythonic call reader on its own: literals to JSON, problems, hostile inputs.

Sources for the accepted literals: vllm-project/vllm
vllm/frontend/processing/tool_parsers/utils.py (``get_parameter_value``: constants, dicts
with literal keys, lists, tuples and sets as lists, placeholder-free f-strings, the JSON
names null/true/false, unary minus on numbers; non-finite floats rejected;
``normalize_leading_zero_ints``; ``rename_reserved_kwargs``), and
tests/tool_parsers/test_pythonic_tool_parser.py (the value table, escaped strings, a bad
sibling call not dropping good ones, ``1e999`` rejected).
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.pythonic import (
    MAX_DEPTH,
    decode_bare_list,
    decode_block,
    decode_message,
    read_calls,
    rest_is_blank,
)
from toolcalls.dialects.family_checks import found_calls, found_kinds
from toolcalls.linear import assert_linear
from toolcalls.toolcall_render import KNOWN


def args_of(text: str) -> dict[str, Any]:
    calls = read_calls(f"f({text})")
    assert calls is not None and len(calls.calls) == 1
    call = calls.calls[0]
    assert call.problem is None and not call.cut, call
    return call.args


def problem_of(text: str) -> tuple[str, str] | None:
    calls = read_calls(text)
    assert calls is not None
    return calls.calls[0].problem


# (id naming the source, arguments as written, arguments as JSON)
VALUES: list[tuple[str, str, dict[str, Any]]] = [
    (
        "more_types (vllm tests/tool_parsers/test_pythonic_tool_parser.py)",
        "name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, "
        "role=None, passed_test=True, aliases=['John', 'Johnny']",
        {
            "name": "John Doe",
            "age": 37,
            "address": {"city": "San Francisco", "state": "CA"},
            "role": None,
            "passed_test": True,
            "aliases": ["John", "Johnny"],
        },
    ),
    (
        "escaped strings (test_pythonic_tool_parser.py ESCAPED_STRING_FUNCTION_OUTPUT)",
        r"""city='Martha\'s Vineyard', metric='\"cool units\"'""",
        {"city": "Martha's Vineyard", "metric": '"cool units"'},
    ),
    ("empty dict and list (test_pythonic_tool_parser.py)", "a={}, b=[]", {"a": {}, "b": []}),
    (
        "JSON literals (vllm olmo3_tool_parser.py, utils.py _JSON_NAME_LITERALS)",
        "a=true, b=false, c=null",
        {"a": True, "b": False, "c": None},
    ),
    (
        "tuples and sets as lists (utils.py get_parameter_value)",
        "size=(800, 600), one=(1,), none=(), tags={'a', 'b'}, grouped=(5)",
        {"size": [800, 600], "one": [1], "none": [], "tags": ["a", "b"], "grouped": 5},
    ),
    (
        "signed numbers (utils.py UnaryOp)",
        "lon=-122.4, up=+3, neg=-7, exp=1.5e3, tiny=.5",
        {"lon": -122.4, "up": 3, "neg": -7, "exp": 1500.0, "tiny": 0.5},
    ),
    (
        "integer spellings, leading zeros (utils.py normalize_leading_zero_ints)",
        "month=07, hexa=0x1F, octal=0o17, binary=0b101, big=1_000_000",
        {"month": 7, "hexa": 31, "octal": 15, "binary": 5, "big": 1000000},
    ),
    (
        "placeholder-free f-string (utils.py JoinedStr)",
        "a=f'hello', b=f'{{braces}}'",
        {"a": "hello", "b": "{braces}"},
    ),
    (
        "Python string escapes",
        r"a='tab\tnew\nline', b='\x41\u00e9\U0001F600\N{BULLET}', c='\101', d='\q'",
        {"a": "tab\tnew\nline", "b": "Aé😀•", "c": "A", "d": "\\q"},
    ),
    (
        "JSON-style surrogate pair escapes joined, a lone one replaced",
        r"a='\ud83d\ude00', b='x\ud800y'",
        {"a": "😀", "b": "x\ufffdy"},
    ),
    (
        "raw, triple-quoted and adjacent strings",
        "a=r'\\d+\\n', b='''it's\n\"multi\"\nline''', c=\"\"\"x\"\"\", d='con' \"cat\"",
        {"a": "\\d+\\n", "b": 'it\'s\n"multi"\nline', "c": "x", "d": "concat"},
    ),
    (
        "raw newline inside a quoted string (utils.py escape_ctrl_chars_in_strings)",
        "command='line1\nline2'",
        {"command": "line1\nline2"},
    ),
    (
        "keyword parameter names (utils.py rename_reserved_kwargs)",
        "from=1, class='x', in=[]",
        {"from": 1, "class": "x", "in": []},
    ),
    (
        "dict keys: numbers and literals as JSON writes them",
        "d={1: 'a', 2.5: 'b', True: 'c', None: 'd', 'e': {'f': [1, {'g': null}]}}",
        {"d": {"1": "a", "2.5": "b", "true": "c", "null": "d", "e": {"f": [1, {"g": None}]}}},
    ),
    (
        "trailing commas and whitespace",
        " a = [1, 2,] ,\n b = {'k': 1,},\n",
        {"a": [1, 2], "b": {"k": 1}},
    ),
    ("no arguments (test_pythonic_tool_parser.py PARAMETERLESS)", "", {}),
]


@pytest.mark.parametrize(
    ("written", "expected"), [v[1:] for v in VALUES], ids=[v[0] for v in VALUES]
)
def test_literals_map_to_json(written: str, expected: dict[str, Any]) -> None:
    assert args_of(written) == expected


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("f('a')", "positional"),
        ("f(1, b=2)", "positional"),
        ("f(x=y)", "not a literal"),
        ("f(x=os.environ)", "not a literal"),
        ("f(x=g(1))", "not a literal"),
        ("f(x=1 + 2)", "unexpected"),
        ("f(x=b'z')", "bytes"),
        ("f(x=1e999)", "finite"),
        ("f(x=1j)", "complex"),
        ("f(x=f'{y}')", "f-string"),
        ("f(x=-'a')", "number"),
        ("f(x=[1 2])", "unexpected"),
        ("f(x={[1]: 2})", "key"),
        ("f(**kw)", "positional"),
        ("f(x=...)", "unexpected"),
        ("f(x=nan)", "not a literal"),
        ("f(x='\\xZZ')", "escape"),
        ("f(x=" + "9" * 5000 + ")", "malformed number"),
    ],
)
def test_what_is_not_a_literal_call_is_a_problem(text: str, detail: str) -> None:
    problem = problem_of(text)
    assert problem is not None and problem[0] == "invalid"
    assert detail in problem[1]


def test_a_repeated_argument_is_a_duplicate() -> None:
    assert problem_of("f(a=1, a=2)") == ("duplicate", "a")
    assert problem_of("f(a={'k': 1, 'k': 2})") == ("duplicate", "k")


def test_a_bad_call_does_not_hide_its_siblings() -> None:
    # vllm tests/tool_parsers/test_pythonic_tool_parser.py
    # test_bad_sibling_call_does_not_drop_good_calls / test_non_finite_argument_rejected
    text = "[Write(x=b'z'), Read(file_path='a'), Edit(x=1e999), Bash(command='ls')]"
    found = decode_block(text, KNOWN, closed=True)
    assert found_calls(found) == [("Read", {"file_path": "a"}), ("Bash", {"command": "ls"})]
    assert found_kinds(found) == ["invalid_json", "invalid_json"]
    assert [f.name for f in found or []] == ["Write", "Read", "Edit", "Bash"]


def test_a_malformed_call_to_no_tool_is_a_mention() -> None:
    # "<function_calls>NAME(...)</function_calls>" in prose: left out, not reported.
    found = decode_block("[bad(x=b'z'), Read(file_path='a'), NAME(...)]", KNOWN, closed=True)
    assert [f.name for f in found or []] == ["Read"] and found_kinds(found) == []
    assert decode_block("NAME(...)", KNOWN, closed=True) is None
    assert found_kinds(decode_block("NAME(...)", None, closed=True)) == ["invalid_json"]
    # Well formed, it is a call to a tool that does not exist.
    assert found_kinds(decode_block("NAME(a=1)", KNOWN, closed=True)) == ["unknown_tool"]


def test_the_call_forms() -> None:
    listed = read_calls("  [A(x=1), B()]  tail")
    assert listed is not None and listed.listed and listed.closed
    assert [c.name for c in listed.calls] == ["A", "B"]
    assert listed.end == len("  [A(x=1), B()]")
    lines = read_calls("A(x=1)\n\nB(y=2); C(); D()\nnot a call")
    assert lines is not None and not lines.listed
    assert [c.name for c in lines.calls] == ["A", "B", "C", "D"]
    assert rest_is_blank("[A()]<|python_end|><|eot|>\n", 5)
    assert not rest_is_blank("[A()] and then", 5)
    dotted = read_calls("[mcp__git.log-v2(n=1), default_api.Read()]")
    assert dotted is not None
    assert [c.name for c in dotted.calls] == ["mcp__git.log-v2", "default_api.Read"]


@pytest.mark.parametrize(
    "text",
    ["", "Read", "Read (", "[Read", "[Note] see below", "print x", "(A())", "1(x=1)", "[[A()]]"],
)
def test_text_that_does_not_open_a_call_is_none_or_cut(text: str) -> None:
    calls = read_calls(text)
    if calls is not None:  # "Read (" opens a call that the text cuts off
        assert all(c.cut for c in calls.calls)


def test_unwrapping_print() -> None:
    calls = read_calls("print(Read(file_path='a'))\nprint(Bash(command='ls'))", unwrap=("print",))
    assert calls is not None
    assert [(c.name, c.args) for c in calls.calls] == [
        ("Read", {"file_path": "a"}),
        ("Bash", {"command": "ls"}),
    ]
    plain = read_calls("print(Read(file_path='a'))")
    assert plain is not None and plain.calls[0].name == "print"
    # Unwrapped once only: a deep stack of wrappers is one unreadable call, not recursion.
    deep = read_calls("print(" * 100_000 + "Read()" + ")" * 100_000, unwrap=("print",))
    assert deep is not None and deep.calls[0].name == "print" and deep.calls[0].problem


@pytest.mark.parametrize(
    "text",
    [
        "[Read(file_path='/a",
        "[Read(file_path='/a'",
        "[Read(file_path=",
        "[Read(file_path",
        "[Read(",
        '[Read(file_path="""abc',
        "[Read(file_path='abc\\",
        "[Read(file_path='\\u00",
        "[Read(limit=12",
        "[Read(flag=Tr",
        "[Read(x=[1, {'a': ",
        "[Read(x=g(",
    ],
)
def test_text_ending_inside_a_call_is_truncated(text: str) -> None:
    found = decode_bare_list(text, KNOWN)
    assert found is not None and found_kinds(found) == ["truncated"]
    assert decode_block(text[1:], KNOWN, closed=False) is not None
    assert found_kinds(decode_block(text[1:], KNOWN, closed=False)) == ["truncated"]
    # Ended by a closer instead of the output: malformed, not cut off.
    assert found_kinds(decode_block(text[1:], KNOWN, closed=True)) == ["invalid_json"]


def test_complete_calls_before_the_cut_still_count() -> None:
    found = decode_bare_list("[Read(file_path='a'), Bash(command='l", KNOWN)
    assert found_calls(found) == [("Read", {"file_path": "a"})]
    assert found_kinds(found) == ["truncated"]
    found = decode_bare_list("[Read(file_path='a'),", KNOWN)
    assert found_calls(found) == [("Read", {"file_path": "a"})] and found_kinds(found) == []


def test_a_bare_list_must_be_the_whole_message() -> None:
    assert decode_bare_list("[Read(file_path='a')] is how you would call it", KNOWN) is None
    assert decode_bare_list("Read(file_path='a')", KNOWN) is None  # not a list
    assert decode_bare_list("[print(x)]", KNOWN) is None  # vLLM: not literal -> content
    assert decode_bare_list("[Note(see below)]", KNOWN) is None
    assert decode_bare_list("[Note(text='x')]", KNOWN) is not None  # well formed: unknown
    assert found_kinds(decode_bare_list("[Read(path)]", KNOWN)) == ["invalid_json"]
    found = decode_bare_list("[Read(file_path='a')]\n<|eot|>", KNOWN)
    assert found_calls(found) == [("Read", {"file_path": "a"})]


def test_decode_message_renames_and_unwraps() -> None:
    found = decode_message(
        "print(default_api.Read(file_path='a'))",
        KNOWN,
        require_list=False,
        unwrap=("print",),
        rename=lambda n: n.removeprefix("default_api."),
    )
    assert found_calls(found) == [("Read", {"file_path": "a"})]


def test_unknown_names_are_dropped_exactly() -> None:
    found = decode_block("[read(file_path='a'), Read(file_path='a')]", KNOWN, closed=True)
    assert found_calls(found) == [("Read", {"file_path": "a"})]
    assert found_kinds(found) == ["unknown_tool"]
    assert found_calls(decode_block("[read(file_path='a')]", None, closed=True)) == [
        ("read", {"file_path": "a"})
    ]


# -- hostile inputs ------------------------------------------------------------


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    text = "[Read(x=" + "[" * 100_000 + "]" * 100_000 + ")]"
    found = decode_bare_list(text, KNOWN)
    assert found_kinds(found) == ["invalid_json"]
    deep_dict = "Read(x=" + "{'a': " * (MAX_DEPTH + 5) + "1" + "}" * (MAX_DEPTH + 5) + ")"
    assert found_kinds(decode_block(deep_dict, KNOWN, closed=True)) == ["invalid_json"]
    ok = "Read(x=" + "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2) + ")"
    assert found_kinds(decode_block(ok, KNOWN, closed=True)) == []
    unclosed = "[Read(x=" + "(" * 200_000
    assert found_kinds(decode_bare_list(unclosed, KNOWN)) == ["truncated"]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "[Read(file_path='" + "a" * n + "')]",
        lambda n: "[Read(file_path='" + "\\n" * n + "')]",
        lambda n: "[Read(file_path='" + "\\" * n,
        lambda n: '[Read(file_path="' + "'" * n + '")]',
        lambda n: "[Read(file_path='''" + "'" * (n // 3) + "a" * n,
        lambda n: "[" + "Read(a=1), " * (n // 11) + "]",
        lambda n: "A(x=1)\n" * (n // 7),
        lambda n: "[Read(x=" + "[1, " * (n // 4),
        lambda n: "[Read(x=y, " + "'\\'" * (n // 3),
        lambda n: "[Read(x=" + "9" * n + ")]",
        lambda n: "[" + "A" * n + "(",
        lambda n: "[Read(x={" + "'k': 1, " * (n // 8) + "})]",
        lambda n: "[Read(x=" + "'a' " * (n // 4) + ")]",
        lambda n: "[Read(x=y), Write(x=" + "'a', " * (n // 5),
        lambda n: "[Read()]" + "<|eot|>" * (n // 7),
        lambda n: "[Read(x=" + "'\\\\'" * (n // 4) + ")]",
    ],
)
def test_huge_inputs_take_linear_time(make: Any) -> None:
    # Both sizes past int()'s 4,300-digit limit, where a long number takes another path.
    assert_linear(lambda text: decode_bare_list(text, KNOWN), make, 5_000)


def test_unterminated_strings_and_odd_characters_never_raise() -> None:
    for text in [
        "[Read(file_path='",
        '[Read(file_path="',
        "[Read(file_path='''",
        "[Read(file_path=r'\\",
        "[Read(x='\x00', y='\ud800')]",
        "[Read(x='\\N{NO SUCH NAME}')]",
        "[Read(x='\\N{" + "A" * 500,
        "[Read(x=rb'a', y=ub'c', z=ff'x')]",
        "[Read(x=0x)]",
        "[Read(x=1__0)]",
        "[Read(x=--1, y=-+-2)]",
        "[Read(x=1.2.3)]",
        "[Read(x='a' 'b' r'c' f'd')]",
        "[Read(x={1, 2: 3})]",
        "[Read(x={'a' 1})]",
        "[Read(x=(1 2))]",
        "[\u00e9t\u00e9(x=1)]",
        "[R" + "e" * 300 + "(x=1)]",
    ]:
        decode_bare_list(text, KNOWN)
        decode_block(text[1:], KNOWN, closed=True)
        decode_block(text[1:], KNOWN, closed=False)


def test_null_characters_and_control_text_are_kept() -> None:
    assert args_of("x='a\x00b', y='\\x00'") == {"x": "a\x00b", "y": "\x00"}
