"""vLLM-shaped streams in which the model makes the calls a test chooses.

The shape is that of ``e2e_vllm_bash_touch_marker.sse``: one assistant message whose
tool calls arrive as a head (id, name) and one arguments delta each, then the finish.
"""

from __future__ import annotations

import json
from typing import Any


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    body = {"id": "chatcmpl-sbx", "object": "chat.completion.chunk", "created": 1732900100}
    body |= {"model": "Qwen/Qwen2.5-7B-Instruct", "choices": [choice]}
    return f"data: {json.dumps(body)}\n\n"


def calls_stream(calls: list[tuple[str, dict[str, Any]]]) -> bytes:
    """One assistant message making ``calls`` (tool name, arguments), ids ``call-N``."""
    parts = [chunk({"role": "assistant", "content": ""})]
    for index, (name, arguments) in enumerate(calls):
        head = {"id": f"call-{index}", "type": "function", "index": index}
        parts.append(chunk({"tool_calls": [head | {"function": {"name": name}}]}))
        text = json.dumps(arguments)
        parts.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]}))
    parts.append(chunk({"content": ""}, "tool_calls"))
    return (
        b": vLLM 0.8 hermes parser, calls made by the test\n"
        + ("".join(parts) + "data: [DONE]\n\n").encode()
    )


def answer_stream(text: str) -> bytes:
    """One assistant message answering ``text``, with no call."""
    parts = [chunk({"role": "assistant", "content": ""}), chunk({"content": text})]
    parts.append(chunk({"content": ""}, "stop"))
    return (
        b": vLLM 0.8, an answer written by the test\n"
        + ("".join(parts) + "data: [DONE]\n\n").encode()
    )
