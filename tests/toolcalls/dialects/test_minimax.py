"""MiniMax-M2: ``<minimax:tool_call>`` blocks of ``<invoke name="...">`` elements; M3's.

Sources: vllm-project/vllm vllm/tool_parsers/minimax_m2_tool_parser.py and
tests/tool_parsers/test_minimax_m2_tool_parser.py, sgl-project/sglang
python/sglang/srt/function_call/minimax_m2.py (its EBNF: a newline after each tag),
ggml-org/llama.cpp models/templates/unsloth-MiniMax-M2.jinja (the template: one block,
one invoke per call, strings raw and other values as JSON, ``<think>`` reasoning) and
common/chat.cpp common_chat_parse_minimax_m2 (the same tags). MiniMax-M3's namespaced
form: ml-explore/mlx-lm#1416 (the example output, ``to_xml``'s elements and ``<item>``
lists), ai-dynamo/frontend-crates#83 and ikawrakow/ik_llama.cpp#2008.
"""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.toolcalls.families import minimax
from nehanda.toolcalls.family import Body
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
from toolcalls.linear import assert_linear
from toolcalls.toolcall_render import calls_of, kinds

OPEN, CLOSE = "<minimax:tool_call>", "</minimax:tool_call>"


def invoke(name: str, *params: tuple[str, str], nl: str = "\n") -> str:
    inner = "".join(f'<parameter name="{k}">{v}</parameter>{nl}' for k, v in params)
    return f'<invoke name="{name}">{nl}{inner}</invoke>{nl}'


READ_INVOKE = invoke("Read", ("file_path", "/src/app.py"))
BASH_INVOKE = invoke("Bash", ("command", "ls"))
READ_BLOCK = f"{OPEN}\n{READ_INVOKE}{CLOSE}"

TABLE: list[tuple[str, str, Calls]] = [
    (
        "template layout (llama.cpp models/templates/unsloth-MiniMax-M2.jinja)",
        READ_BLOCK,
        [("Read", READ)],
    ),
    (
        "all on one line (vllm test_minimax_m2_tool_parser.py test_single_chunk_complete)",
        f"{OPEN}{invoke('Read', ('file_path', '/src/app.py'), nl='')}{CLOSE}",
        [("Read", READ)],
    ),
    (
        "two invokes in one block (vllm test_minimax_m2_tool_parser.py "
        "test_two_invokes_in_single_delta)",
        f"{OPEN}\n{READ_INVOKE}{BASH_INVOKE}{CLOSE}",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "two blocks (sglang minimax_m2.py _extract: every block in turn)",
        f"{READ_BLOCK}\n{OPEN}\n{BASH_INVOKE}{CLOSE}",
        [("Read", READ), ("Bash", LS)],
    ),
    (
        "prose before (vllm test_minimax_m2_tool_parser.py test_content_before_tool_call)",
        "Let me check. " + READ_BLOCK,
        [("Read", READ)],
    ),
    (
        "values framed by newlines (sglang minimax_m2.py build_ebnf)",
        f'{OPEN}\n<invoke name="Read">\n<parameter name="file_path">\n/src/app.py\n'
        f"</parameter>\n</invoke>\n{CLOSE}",
        [("Read", READ)],
    ),
    (
        "single-quoted names (vllm minimax_m2_tool_parser.py _parse_partial_invoke)",
        f"{OPEN}<invoke name='Read'><parameter name='file_path'>/src/app.py</parameter>"
        f"</invoke>{CLOSE}",
        [("Read", READ)],
    ),
    (
        "several parameters, typed by the schema (vllm minimax_m2_tool_parser.py "
        "_convert_param_value_with_types)",
        f"{OPEN}\n"
        + invoke(
            "Bash",
            ("command", "ls -la"),
            ("timeout", "5"),
            ("background", "false"),
            ("env", '{"A": "1"}'),
            ("args", '["-l"]'),
        )
        + CLOSE,
        [
            (
                "Bash",
                {
                    "command": "ls -la",
                    "timeout": 5,
                    "background": False,
                    "env": {"A": "1"},
                    "args": ["-l"],
                },
            )
        ],
    ),
    (
        "a number-looking string stays a string (vllm test_minimax_m2_tool_parser.py: "
        "days stays '5' without a schema type)",
        f"{OPEN}{invoke('Read', ('file_path', '5'), ('limit', '5'), nl='')}{CLOSE}",
        [("Read", {"file_path": "5", "limit": 5})],
    ),
    (
        "no parameters (the template with empty arguments)",
        f'{OPEN}\n<invoke name="Bash">\n</invoke>\n{CLOSE}',
        [("Bash", {})],
    ),
    (
        "the block closer dropped with its special token (vllm test_minimax_m2_tool_parser.py "
        "test_end_token_ignored)",
        f"{OPEN}\n{READ_INVOKE}",
        [("Read", READ)],
    ),
    (
        "after reasoning opened by the generation prompt (unsloth-MiniMax-M2.jinja ends the "
        "prompt with <think>)",
        "I should read the file.\n</think>\n\n" + READ_BLOCK,
        [("Read", READ)],
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_minimax_table(label: str, text: str, expected: Calls) -> None:
    check(text, expected)


def test_minimax_prose_around_the_block_stays_visible() -> None:
    text = "Reading now.\n" + READ_BLOCK + "\nDone."
    check(text, [("Read", READ)], hidden=("<invoke", "minimax:tool_call"))
    for result in outcomes(text):
        assert result.text.replace("\n", "") == "Reading now.Done."


def test_minimax_value_is_raw_text_and_keeps_inner_markup() -> None:
    content = 'x = "</minimax:tool_call></invoke><parameter name=\\"y\\">"'
    text = f"{OPEN}\n" + invoke("Write", ("content", content), ("file_path", "f.py")) + CLOSE
    check(text, [("Write", {"content": content, "file_path": "f.py"})])


def test_minimax_html_entities_are_not_decoded() -> None:
    text = f"{OPEN}{invoke('Bash', ('command', 'a &amp;&amp; b'), nl='')}{CLOSE}"
    check(text, [("Bash", {"command": "a &amp;&amp; b"})])


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        (f"{OPEN}\n{READ_INVOKE}\nThen I fix it.", "Then I fix it."),
        (f"Reading.\n{OPEN}\n{READ_INVOKE}\n\nIt is short.\n", "Reading.\n\n\n\nIt is short."),
    ],
)
def test_a_block_whose_closer_was_dropped_leaves_the_prose_after_it(
    text: str, visible: str
) -> None:
    """Its closer never written, the block ends at its last invoke: the rest is shown."""
    check(text, [("Read", READ)], visible=visible)


@pytest.mark.parametrize(
    "unit",
    [f"{OPEN}\n{READ_INVOKE}prose ", f"prose {OPEN}\n", f"{OPEN}\n{READ_INVOKE}{OPEN}x"],
    ids=["blocks and prose", "openers alone", "an invoke, then an empty block"],
)
def test_blocks_without_closers_read_the_text_after_them_once(unit: str) -> None:
    """What such a block hands back holds no closed invoke: re-read once, not again."""
    assert_linear(lambda text: outcomes(text), lambda n: unit * (n // len(unit) + 1), 2_000)


def test_minimax_unknown_tool_is_dropped_and_the_others_kept() -> None:
    text = f"{OPEN}\n" + invoke("Nope", ("a", "1")) + READ_INVOKE + CLOSE
    check(text, [("Read", READ)], ["unknown_tool"])


def test_minimax_duplicate_key_is_a_problem() -> None:
    text = f"{OPEN}" + invoke("Read", ("file_path", "a"), ("file_path", "b"), nl="") + CLOSE
    check(text, [], ["duplicate_key"])


@pytest.mark.parametrize(
    "text",
    [
        f'{OPEN}\n<invoke name="Read">\n<parameter name="file_path">/src/ap',
        f'{OPEN}\n<invoke name="Read">\n<parameter name="file_path">/src/app.py</parameter>\n',
        f'{OPEN}\n<invoke name="Rea',
        f"{OPEN}\n<invoke ",
    ],
    ids=["inside a value", "before </invoke>", "inside the name", "before the name"],
)
def test_minimax_cut_off_call_is_truncated(text: str) -> None:
    for result in outcomes(text):
        assert calls_of(result) == []
        assert kinds(result) == ["truncated"]


def test_minimax_complete_invoke_runs_and_the_cut_one_is_truncated() -> None:
    text = f'{OPEN}\n{READ_INVOKE}<invoke name="Bash">\n<parameter name="command">l'
    check(text, [("Read", READ)], ["truncated"])


@pytest.mark.parametrize(
    "text",
    [
        "MiniMax wraps calls in <minimax:tool_call> tags with <invoke> inside.",
        "Write `" + READ_BLOCK + "` to call a tool.",
        "Example:\n```text\n" + READ_BLOCK + "\n```\n",
        "```python\nPROMPT = '''" + READ_BLOCK + "'''\n```",
        # The template's own instructions (unsloth-MiniMax-M2.jinja).
        '<minimax:tool_call>\n<invoke name="tool-name-1">\n<parameter name="param-key-1">'
        "param-value-1</parameter>\n...\n</invoke>\n</minimax:tool_call>",
    ],
    ids=["prose", "inline code", "text fence", "python fence", "schema echo"],
)
def test_minimax_look_alikes_are_not_calls(text: str) -> None:
    for result in outcomes(text):
        assert calls_of(result) == []
        assert kinds(result) in ([], ["unknown_tool"])


def test_minimax_schema_echo_names_no_known_tool() -> None:
    text = '<minimax:tool_call>\n<invoke name="tool-name-1">\n</invoke>\n</minimax:tool_call>'
    check(text, [], ["unknown_tool"])


def test_minimax_prose_mention_is_plain_text() -> None:
    no_call("MiniMax wraps calls in <minimax:tool_call> tags with <invoke> inside.")


def test_minimax_call_drafted_in_reasoning_does_not_run_when_an_answer_follows() -> None:
    text = "<think>Maybe " + READ_BLOCK + " later.</think>\nIt is fine as is."
    for result in outcomes(text):
        assert calls_of(result) == []
        assert result.text.strip() == "It is fine as is."


def test_minimax_call_in_reasoning_only_counts() -> None:
    check("<think>\nI need it.\n" + READ_BLOCK + "\n</think>", [("Read", READ)])


# -- the decoder on its own -------------------------------------------------------


def test_decode_minimax_reads_invokes_in_order() -> None:
    found = minimax.decode_minimax(body("\n" + READ_INVOKE + BASH_INVOKE))
    assert found_calls(found) == [("Read", READ), ("Bash", LS)]


def test_decode_minimax_bare_name_and_stray_text() -> None:
    text = "<invoke name=Bash>junk<parameter name=command>ls</parameter></invoke>"
    assert found_calls(minimax.decode_minimax(body(text))) == [("Bash", LS)]


def test_decode_minimax_forgotten_closers() -> None:
    text = '<invoke name="Read"><parameter name="file_path">a<parameter name="limit">3</invoke>'
    assert found_calls(minimax.decode_minimax(body(text))) == [
        ("Read", {"file_path": "a", "limit": 3})
    ]
    text = '<invoke name="Read"><parameter name="file_path">a</parameter>\n<invoke name="Bash">'
    assert found_calls(minimax.decode_minimax(body(text))) == [
        ("Read", {"file_path": "a"}),
        ("Bash", {}),
    ]


def test_decode_minimax_unclosed_body() -> None:
    assert found_calls(minimax.decode_minimax(body(READ_INVOKE, closed=False))) == [("Read", READ)]
    assert found_kinds(minimax.decode_minimax(body('<invoke name="Read">', closed=False))) == [
        "truncated"
    ]
    assert found_kinds(minimax.decode_minimax(body("<invo", closed=False))) == ["truncated"]
    assert minimax.decode_minimax(body("nothing here")) is None


def test_minimax_head_and_refuse() -> None:
    assert minimax.HEAD.match('\n<invoke name="Read">')
    assert minimax.REFUSE.match(" tags with")
    assert not minimax.REFUSE.match("\n<inv") and not minimax.HEAD.match("\n<inv")


def test_decode_minimax_is_linear_on_hostile_bodies() -> None:
    hostile = '<invoke name="Read">' + '<parameter name="k">' * 20000
    assert minimax.decode_minimax(body(hostile)) is not None
    assert minimax.decode_minimax(body('<invoke name="a">' * 20000)) is not None


# ---------------------------------------------------------------- MiniMax-M3

NS = minimax.NAMESPACE


def m3(*invokes: str) -> str:
    return f"{NS}<tool_call>\n" + "".join(invokes) + f"{NS}</tool_call>"


def m3_invoke(name: str, *params: tuple[str, str]) -> str:
    inner = "".join(f"{NS}<{k}>{v}{NS}</{k}>\n" for k, v in params)
    return f'{NS}<invoke name="{name}">\n{inner}{NS}</invoke>\n'


M3_READ = m3_invoke("Read", ("file_path", "/src/app.py"))


@pytest.mark.parametrize(
    ("text", "expected", "visible"),
    [
        # The PR's example, text first (ml-explore/mlx-lm#1416); the token's first "]"
        # stays in the text: the scanner's words start with "<".
        (f"I'll read it.{m3(M3_READ)}", [("Read", READ)], "I'll read it.]"),
        (m3(M3_READ, m3_invoke("Bash", ("command", "ls"))), [("Read", READ), ("Bash", LS)], "]"),
        (
            m3(m3_invoke("Read", ("file_path", "/src/app.py"), ("limit", "5"))),
            [("Read", {**READ, "limit": 5})],
            "]",
        ),
        (
            m3(m3_invoke("Bash", ("command", "a < b && c"))),
            [("Bash", {"command": "a < b && c"})],
            "]",
        ),
        (m3(M3_READ)[: -len(f"{NS}</tool_call>")], [("Read", READ)], "]"),
    ],
    ids=["after text", "two invokes", "typed by the schema", "a bare < is text", "no block end"],
)
def test_minimax_m3_namespaced_blocks(text: str, expected: Calls, visible: str) -> None:
    check(text, expected, visible=visible, hidden=("<tool_call>", "<invoke", "minimax[>["))


def test_minimax_m3_nested_values() -> None:
    env = f"{NS}<env>\n{NS}<HOME>/root{NS}</HOME>\n{NS}</env>\n"
    args = f"{NS}<args>{NS}<item>-l{NS}</item>{NS}<item>-a{NS}</item>{NS}</args>\n"
    text = m3(
        f'{NS}<invoke name="Bash">\n{NS}<command>ls{NS}</command>\n{env}{args}{NS}</invoke>\n'
    )
    check(text, [("Bash", {"command": "ls", "env": {"HOME": "/root"}, "args": ["-l", "-a"]})])


@pytest.mark.parametrize(
    "text",
    [
        f"Use `{m3(M3_READ).replace(chr(10), '')}` to read.",
        f"```xml\n{m3(M3_READ)}\n```",
        # The PR's own prose (ml-explore/mlx-lm#1416).
        f"the token `{NS}` is prepended to every tag start/end inside a `<tool_call>` wrapper.",
        f"M3 puts {NS} before <tool_call> and every tag.",
        f"M3 writes {NS}<tool_call> and then its invokes.",
        f"M3 writes {NS}<tool_call>{NS}<invo",
        # Without the token <tool_call> is Hermes', which reads no invoke.
        m3(M3_READ).replace(NS, ""),
    ],
    ids=[
        "inline code",
        "xml fence",
        "the PR's prose",
        "mid-sentence",
        "opener in prose",
        "cut before the name",
        "no token",
    ],
)
def test_minimax_m3_lookalikes_yield_nothing(text: str) -> None:
    no_call(text)


@pytest.mark.parametrize(
    "text",
    [
        f'{NS}<tool_call>\n{NS}<invoke name="Read">\n{NS}<file_path>/src/ap',
        f'{NS}<tool_call>\n{NS}<invoke name="Read">\n{NS}<file_path>/src/app.py{NS}</file_path>\n',
        f'{NS}<tool_call>\n{NS}<invoke name="Rea',
    ],
    ids=["inside a value", "before </invoke>", "inside the name"],
)
def test_minimax_m3_cut_off_is_truncated(text: str) -> None:
    check(text, [], ["truncated"])


def test_minimax_m3_problems() -> None:
    twice = m3_invoke("Read", ("file_path", "a"), ("file_path", "b"))
    check(m3(twice), [], ["duplicate_key"])
    check(m3(m3_invoke("Nope", ("a", "1")), M3_READ), [("Read", READ)], ["unknown_tool"])
    misplaced = f'{NS}<invoke name="Read">\n{NS}<file_path>a{NS}</limit>\n{NS}</invoke>\n'
    check(m3(misplaced, M3_READ), [("Read", READ)], ["invalid_json"])
    unended = f'{NS}<invoke name="Bash">\n{NS}<command>ls{NS}</command>\n'
    check(m3(unended, M3_READ), [("Read", READ)], ["invalid_json"])


def test_decode_minimax_m3_types_nested_values_by_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ops": {
                "type": "array",
                "items": {"type": "object", "properties": {"line": {"type": "integer"}}},
            },
            "opts": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
    }
    item = f"{NS}<item>{NS}<line>3{NS}</line>{NS}<text>x{NS}</text>{NS}</item>"
    opts = f"{NS}<opts>{NS}<n>2{NS}</n>{NS}</opts>"
    text = f'\n{NS}<invoke name="edit">{NS}<ops>{item}{NS}</ops>{opts}{NS}</invoke>'
    found = minimax.decode_minimax_m3(Body(text, True, None, {"edit": schema}))
    assert found_calls(found) == [("edit", {"ops": [{"line": 3, "text": "x"}], "opts": {"n": 2}})]
    deep = f'{NS}<invoke name="Read">' + f"{NS}<a>" * 100 + f"{NS}</invoke>"
    assert found_kinds(minimax.decode_minimax_m3(body(deep))) == ["invalid_json"]
    assert found_kinds(minimax.decode_minimax_m3(body("", closed=False))) == ["truncated"]
    assert minimax.decode_minimax_m3(body("junk")) is None


def test_minimax_m3_head_and_refuse() -> None:
    assert minimax.M3_HEAD.match(f'\n{NS}<invoke name="Read">')
    for undecided in ("", "\n", "\n]<]mini", f"{NS}<inv"):
        assert not minimax.M3_REFUSE.match(undecided), undecided
    for refused in (" and then", "\n<invoke", f"{NS}<item>"):
        assert minimax.M3_REFUSE.match(refused), refused


@pytest.mark.parametrize(
    "make",
    [
        lambda n: f'{NS}<invoke name="Read">' + f"{NS}<a>" * (n // 16),
        lambda n: f'{NS}<invoke name="Read">' + f"{NS}<a>x{NS}</a>" * (n // 30),
        lambda n: NS * (n // 13),
        lambda n: f'{NS}<invoke name="a">' * (n // 30),
    ],
)
def test_minimax_m3_decoder_takes_linear_time(make: Any) -> None:
    assert_linear(lambda text: minimax.decode_minimax_m3(body(text, closed=False)), make, 4_000)


HERMES_READ = '{"name": "Read", "arguments": {"file_path": "/src/app.py"}}'
GLM_ARGS = "<arg_key>file_path</arg_key><arg_value>/src/app.py</arg_value>"


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        (f"{NS}<tool_call>{HERMES_READ}</tool_call>", NS),
        (f"{NS}<tool_call>\n{HERMES_READ}\n</tool_call>", NS),
        (f"{NS}<tool_call>Read{GLM_ARGS}</tool_call>", NS),
    ],
    ids=["hermes", "hermes on lines", "glm"],
)
def test_minimax_m3_token_before_another_family_s_tool_call(text: str, visible: str) -> None:
    """With no namespaced invoke after it, the token's <tool_call> is Hermes' or GLM's
    opener as it was before M3: the word that holds it must not hide it."""
    check(text, [("Read", READ)], visible=visible, hidden=("<tool_call>",))
