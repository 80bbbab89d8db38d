"""Dialect families and whole-text speed, the tables ``bench/toolcalls.py`` adds.

5. Whole text against ``str.find``: 1 MB of English-like prose ending in one
   ``[TOOL_CALL]`` block, the same on code-like text (where ``<``, ``{`` and ``[`` are
   frequent), and an output that starts with its call (the fast path), each as a
   multiple of ``text.find("[TOOL_CALL]", 1)`` on the same text.
6. One row per dialect family: a typical output in that family's syntax, parsed
   whole and streamed in 8-character deltas, and whether the expected call came out.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from nehanda.toolcalls.parse import collect, parse_tool_calls
from nehanda.toolcalls.scanner import ToolCallScanner

KNOWN = frozenset({"Read", "Write", "Bash", "Edit", "Grep"})
SCHEMAS = {"Read": {"type": "object", "properties": {"limit": {"type": "integer"}}}}
READ = ("Read", {"file_path": "src/app.py", "limit": 20})
ARGS = json.dumps(READ[1])
CALL = json.dumps({"name": "Read", "arguments": READ[1]})

SAMPLES: dict[str, str] = {
    "[TOOL_CALL] (nehanda)": f"Reading it.\n[TOOL_CALL]{CALL}[/TOOL_CALL]",
    "Hermes / Qwen2.5": f"<tool_call>\n{CALL}\n</tool_call>",
    "Qwen3-Coder XML": "<tool_call>\n<function=Read>\n<parameter=file_path>\nsrc/app.py\n"
    "</parameter>\n<parameter=limit>\n20\n</parameter>\n</function>\n</tool_call>",
    "Mistral": f"[TOOL_CALLS]Read[ARGS]{ARGS}",
    "Llama 3": '<|python_tag|>{"name": "Read", "parameters": ' + ARGS + "}<|eom_id|>",
    "DeepSeek V3.1": f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>Read<｜tool▁sep｜>{ARGS}"
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "DeepSeek V3.2 DSML": '<｜DSML｜function_calls>\n<｜DSML｜invoke name="Read">\n'
    '<｜DSML｜parameter name="file_path" string="true">src/app.py</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="limit" string="false">20</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "gpt-oss Harmony": "<|channel|>analysis<|message|>Need the file.<|end|><|start|>assistant"
    f"<|channel|>commentary to=functions.Read <|constrain|>json<|message|>{ARGS}<|call|>",
    "GLM-4.5": "<tool_call>Read\n<arg_key>file_path</arg_key>\n<arg_value>src/app.py"
    "</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>20</arg_value>\n</tool_call>",
    "Kimi K2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.Read:0"
    f"<|tool_call_argument_begin|>{ARGS}<|tool_call_end|><|tool_calls_section_end|>",
    "MiniMax-M2": '<minimax:tool_call>\n<invoke name="Read">\n<parameter name="file_path">'
    'src/app.py</parameter>\n<parameter name="limit">20</parameter>\n</invoke>\n'
    "</minimax:tool_call>",
    "Seed-OSS": "<seed:think>Read it.</seed:think><seed:tool_call>\n<function=Read>\n"
    "<parameter=file_path>src/app.py</parameter>\n<parameter=limit>20</parameter>\n"
    "</function>\n</seed:tool_call>",
    "Step-3": "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
    '<steptml:invoke name="Read"><steptml:parameter name="file_path">src/app.py'
    '</steptml:parameter><steptml:parameter name="limit">20</steptml:parameter>'
    "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    "pythonic (Llama 4)": '[Read(file_path="src/app.py", limit=20)]',
    "Olmo 3": '<function_calls>Read(file_path="src/app.py", limit=20)</function_calls>',
    "LFM2": '<|tool_call_start|>[Read(file_path="src/app.py", limit=20)]<|tool_call_end|>',
    "Gemma 3 tool_code": '```tool_code\nRead(file_path="src/app.py", limit=20)\n```',
    "Gemma 4": '<|tool_call>call:Read{file_path:<|"|>src/app.py<|"|>,limit:20}<tool_call|>',
    "FunctionGemma": "<start_function_call>call:Read{file_path:<escape>src/app.py<escape>,"
    "limit:20}<end_function_call>",
    "Granite 3": f"<|tool_call|>[{CALL}]",
    "Phi-4-mini": f"functools[{CALL}]",
    "Command-A": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "Read", "parameters": '
    + ARGS
    + "}]<|END_ACTION|>",
    "xLAM": f"I will read it.\n[{CALL}]",
    "Jamba": f"<tool_calls>[{CALL}]</tool_calls>",
    "InternLM": f"<|action_start|><|plugin|>\n{CALL}<|action_end|>",
    "Functionary v3.2": f"Read\n{ARGS}",
    "Hermes 2 Pro": "<tool_call>\n{'name': 'Read', 'arguments': {'file_path': 'src/app.py', "
    "'limit': 20}}\n</tool_call>",
    "Apertus": '<|tools_prefix|>[{"Read": ' + ARGS + "}]<|tools_suffix|>",
    "ERNIE 4.5": f"<think>Read it.</think>\n\n<tool_call>\n{CALL}\n</tool_call>",
}


def _whole(text: str) -> list[tuple[str, Any]]:
    return [(c.name, c.input) for c in parse_tool_calls(text, KNOWN, SCHEMAS).calls]


def _streamed(text: str) -> list[tuple[str, Any]]:
    scanner = ToolCallScanner(KNOWN, SCHEMAS)
    events = []
    for i in range(0, len(text), 8):
        events += scanner.feed(text[i : i + 8])
    events += scanner.finish()
    return [(c.name, c.input) for c in collect(events).calls]


PROSE = (
    "The scanner reads the text once, keeps only what might still be a delimiter, "
    "and hands prose to the user as it arrives.\n"
)
CODE = (
    "def fetch(items: list[int]) -> dict[str, int]:\n"
    "    if len(items) < 3 and items[0] > 1:\n"
    "        return {'total': sum(items), 'first': items[0]}\n"
    "    return {`x`: [i for i in items]}\n"
)
TAIL = f"[TOOL_CALL]{CALL}[/TOOL_CALL]"


def table_find_ratio(best_time: Callable[..., float], row: Callable[..., None]) -> None:
    print('\n5. Whole text, as a multiple of text.find("[TOOL_CALL]", 1) on the same text')
    row("", ["find", "parse", "ratio"])
    texts = {
        "1 MB prose, one call at the end": PROSE * (1_000_000 // len(PROSE)) + TAIL,
        "1 MB code-like, one call at the end": CODE * (1_000_000 // len(CODE)) + TAIL,
        "starts with its call, 1 MB after": TAIL + PROSE * (1_000_000 // len(PROSE)),
    }
    for label, text in texts.items():
        # From the second character: a call at the start must not be found at once.
        find = best_time(lambda t=text: t.find("[TOOL_CALL]", 1), budget=0.2, repeats=20)
        parse = best_time(lambda t=text: parse_tool_calls(t, KNOWN), budget=0.3, repeats=10)
        row(label, [f"{find * 1e3:.3f} ms", f"{parse * 1e3:.3f} ms", f"{parse / find:.1f}x"])


def table_families(best_time: Callable[..., float], row: Callable[..., None]) -> None:
    print("\n6. Dialect families: one typical output each")
    row("", ["whole", "8-char deltas", "found"])
    for label, text in SAMPLES.items():
        whole = best_time(lambda t=text: _whole(t), budget=0.05)
        streamed = best_time(lambda t=text: _streamed(t), budget=0.05)
        ok = _whole(text) == [READ] and _streamed(text) == [READ]
        row(label, [f"{whole * 1e6:.0f} us", f"{streamed * 1e6:.0f} us", "yes" if ok else "NO"])
