"""A scripted model that several conversations talk to at once: the session's and its
subagents'. Each request is answered from who sent it (its system prompt) and how far
its conversation has got (the tool results in it), so the answers do not depend on the
order in which concurrent requests arrive."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scripted_calls import calls_stream, text_stream
from scripted_server import Received, Reply, ScriptedServer
from waiting import GUARD

Step = bytes | Callable[[Received], bytes]
PARENT = "You are nehanda, a command-line assistant"
GENERAL = "You are a subagent of nehanda"
SSE = {"Content-Type": "text/event-stream"}


def system_prompt(body: Any) -> str:
    first = body["messages"][0]
    return str(first["content"]) if first["role"] == "system" else ""


def replies_in(body: Any) -> int:
    return sum(message["role"] == "assistant" for message in body["messages"])


def tool_names(body: Any) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


@dataclass
class Conversations:
    """``scripts``: for a system prompt containing the key, the answer to send at each
    step (the step is the count of the model's replies so far). ``together``: the first
    requests of that many subagents are each held until all have arrived."""

    server: ScriptedServer
    scripts: dict[str, list[Step]]
    together: int = 0
    open_now: int = 0
    most_open: int = 0  # the most subagent requests the server held open at once
    _lock: threading.Condition = field(default_factory=threading.Condition)
    _first_requests: int = 0

    def __post_init__(self) -> None:
        self.server.responder = self.answer
        self.server.report_window(32768, "q", "qwen-coder")  # room for Task and TodoWrite

    def answer(self, received: Received) -> Reply:
        prompt = system_prompt(received.body)
        key = next(k for k in self.scripts if k in prompt)
        step = replies_in(received.body)
        subagent = key != PARENT and step == 0
        if subagent:
            with self._lock:
                self.open_now += 1
                self.most_open = max(self.most_open, self.open_now)
                self._first_requests += 1
                self._lock.notify_all()
                if self.together:
                    came = self._lock.wait_for(lambda: self._first_requests >= self.together, GUARD)
                    assert came, "the subagents' requests did not arrive together"
        reply = self.scripts[key][step]
        body = reply(received) if callable(reply) else reply
        if subagent:
            with self._lock:
                self.open_now -= 1
        return Reply(200, body, SSE)


def requests_from(server: ScriptedServer, key: str) -> list[Any]:
    return [r.body for r in server.requests if r.method == "POST" and key in system_prompt(r.body)]


__all__ = [
    "GENERAL",
    "PARENT",
    "Conversations",
    "calls_stream",
    "requests_from",
    "system_prompt",
    "text_stream",
    "tool_names",
]
