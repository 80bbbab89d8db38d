"""Scripted models for the exam: each answers the exam's prompts the way one kind of
real model on one kind of server does, as the bytes vLLM streams.

The chunks have the shape of the recorded vLLM streams in ``tests/fixtures/streams/``
(``e2e_vllm_read_readme.sse``: role chunk, ``tool_calls`` deltas with the id and name
first and the arguments in fragments, a ``finish_reason`` chunk, a usage-only chunk,
``[DONE]``; ``e2e_llamacpp_leaked_call.sse``: the call printed as content). A model
tells the two modes apart as a server would: native requests carry ``tools``.

The answers are written out per task (``ANSWERS``), as a model that understood each
prompt would give them, not derived from the exam's checks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from nehanda.exam.tasks import LONG_TEXT
from scripted_server import Received, Reply

Call = tuple[str, dict[str, Any]]
# Per task, per turn: the calls a good model makes, or the text it answers with.
ANSWERS: dict[str, list[list[Call] | str]] = {
    "string_argument": [[("Read", {"file_path": "notes/todo.txt"})]],
    "integer_arguments": [[("Read", {"file_path": "src/app.py", "offset": 120, "limit": 40})]],
    "boolean_argument": [
        [
            (
                "Edit",
                {
                    "file_path": "config.ini",
                    "old_string": "debug = false",
                    "new_string": "debug = true",
                    "replace_all": True,
                },
            )
        ]
    ],
    "path_with_quotes": [[("Read", {"file_path": 'C:\\work\\O\'Brien\\say "hi"\\notes.txt'})]],
    "command_with_quotes": [
        [("Bash", {"command": 'printf \'%s\\n\' "it\'s done" > "out file.txt"'})]
    ],
    "two_calls": [[("Read", {"file_path": "README.md"}), ("Read", {"file_path": "CHANGELOG.md"})]],
    "right_tool": [[("Grep", {"pattern": "LEGACY_API", "output_mode": "files_with_matches"})]],
    "no_call": ["HTTP stands for HyperText Transfer Protocol."],
    "mention_no_call": ["It deletes the build directory and everything in it, without asking."],
    "result_fed_back": [
        [("Read", {"file_path": "pointer.txt"})],
        [("Read", {"file_path": "conf/app-42.toml"})],
        "The server listens on port 8431.",
    ],
    "long_argument": [[("Write", {"file_path": "docs/fox.txt", "content": LONG_TEXT + "\n"})]],
    "after_reasoning": [[("Read", {"file_path": "settings.yaml"})]],
}
REASONING = "settings.yaml is the server's configuration, so the port is set there. "


def task_and_turn(body: dict[str, Any]) -> tuple[str, int]:
    """Which exam task a request is for (by its prompt) and which of its turns."""
    messages = body["messages"]
    prompt = next(m["content"] for m in messages if m["role"] == "user")
    turn = sum(m["role"] == "assistant" for m in messages)
    for name in ANSWERS:
        if _prompt_of(name) in prompt:
            return name, turn
    raise AssertionError(f"no scripted answer for the prompt {prompt[:80]!r}")


def _prompt_of(name: str) -> str:
    from nehanda.exam.tasks import TASKS

    return next(task.prompt for task in TASKS if task.name == name)


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-exam",
        "object": "chat.completion.chunk",
        "created": 1764450000,
        "model": "q",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def stream(
    content: str = "", calls: list[Call] | None = None, reasoning: str = "", usage: int = 900
) -> Reply:
    """A whole response body; ``usage`` is the prompt's token count the server reports."""
    calls = calls or []
    parts = [b": scripted exam model, shaped as vLLM 0.8 streams\n"]
    parts.append(chunk({"role": "assistant", "content": ""}))
    if reasoning:
        parts.append(chunk({"reasoning_content": reasoning}))
    for start in range(0, len(content), 40):
        parts.append(chunk({"content": content[start : start + 40]}))
    for index, (name, arguments) in enumerate(calls):
        opening = {"id": f"call-{index}", "type": "function", "index": index}
        parts.append(chunk({"tool_calls": [{**opening, "function": {"name": name}}]}))
        raw = json.dumps(arguments)
        for start in range(0, len(raw), 30):
            fragment = {"index": index, "function": {"arguments": raw[start : start + 30]}}
            parts.append(chunk({"tool_calls": [fragment]}))
    parts.append(chunk({"content": ""}, "tool_calls" if calls else "stop"))
    tokens = {"prompt_tokens": usage, "completion_tokens": 30, "total_tokens": usage + 30}
    usage_only = {"id": "chatcmpl-exam", "choices": [], "usage": tokens}
    parts.append(b"data: " + json.dumps(usage_only).encode() + b"\n\n")
    parts.append(b"data: [DONE]\n\n")
    return Reply(200, b"".join(parts), {"Content-Type": "text/event-stream"})


def rescue_blocks(calls: list[Call]) -> str:
    return "".join(
        "[TOOL_CALL]" + json.dumps({"name": n, "arguments": a}) + "[/TOOL_CALL]" for n, a in calls
    )


def hermes_blocks(calls: list[Call]) -> str:
    """Calls as Qwen prints them when the server does not parse them (llama.cpp without
    --jinja, vLLM without --tool-call-parser)."""
    return "".join(
        "<tool_call>\n" + json.dumps({"name": n, "arguments": a}) + "\n</tool_call>\n"
        for n, a in calls
    )


Model = Callable[[Received], Reply]


Answerer = Callable[[str, list[Call] | str], Reply]


def _answering(native: Answerer, rescue: Answerer) -> Model:
    def answer(request: Received) -> Reply:
        name, turn = task_and_turn(request.body)
        answer = ANSWERS[name][turn]
        return (native if "tools" in request.body else rescue)(name, answer)

    return answer


def _native_calls(name: str, answer: list[Call] | str) -> Reply:
    if isinstance(answer, str):
        return stream(answer)
    reasoning = REASONING if name == "after_reasoning" else ""
    return stream(calls=answer, reasoning=reasoning)


def _rescue_text(name: str, answer: list[Call] | str) -> Reply:
    if isinstance(answer, str):
        return stream(answer)
    prose = REASONING if name == "after_reasoning" else ""
    return stream(prose + rescue_blocks(answer), usage=2600)


def _leaked(name: str, answer: list[Call] | str) -> Reply:
    if isinstance(answer, str):
        return stream(answer)
    return stream(hermes_blocks(answer))


def _prose_only(name: str, answer: list[Call] | str) -> Reply:
    """A model that describes the call it would make instead of making it."""
    if isinstance(answer, str):
        return stream(answer)
    return stream(f"I would call {answer[0][0]} now to do that.")


def _wrong_tool(name: str, answer: list[Call] | str) -> Reply:
    return stream(calls=[("Bash", {"command": "cat notes.txt"})])


def _broken_blocks(name: str, answer: list[Call] | str) -> Reply:
    return stream('[TOOL_CALL]{"name": "Read", "arguments": "notes.txt"}[/TOOL_CALL]')


PERFECT_NATIVE = _answering(_native_calls, _rescue_text)
LEAKS_INTO_CONTENT = _answering(_leaked, _leaked)
RESCUE_ONLY = _answering(_prose_only, _rescue_text)
FAILS_EVERYTHING = _answering(_wrong_tool, _broken_blocks)
