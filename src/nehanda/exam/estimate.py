"""How many requests and tokens the exam will spend, told before it starts; pure.

Tokens are reckoned at four characters each over what each request carries: the system
prompt, the prompt, the tools (their JSON in native mode, the rescue prompt in rescue
mode, which is most of the cost), the earlier turns of the task, and a reply the size of
the expected calls. It is an estimate for deciding whether to go ahead, not a bill.

``paid_endpoint`` says whether spending them needs the user's word: a server that takes
an API key, or a provider whose profile is a paid service (``ProviderProfile.paid``),
unless it is this machine with no key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from nehanda.config.profiles import profile_for
from nehanda.config.settings import ProviderConfig
from nehanda.exam.tasks import Task
from nehanda.providers.base import ChatRequest
from nehanda.providers.http_errors import is_loopback
from nehanda.providers.mode import Mode
from nehanda.providers.rescue import rescue_request
from nehanda.types import Message, ToolSpec

CHARS_PER_TOKEN = 4
REPLY_OVERHEAD = 40  # tokens of prose or markup around a reply's calls


@dataclass(frozen=True)
class Estimate:
    requests: int
    tokens: int


def paid_endpoint(config: ProviderConfig, environ: Mapping[str, str]) -> bool:
    """Whether the exam's tokens would go where they cost money."""
    keyed = config.api_key(environ) is not None
    local = is_loopback(urlsplit(config.base_url).hostname or "")
    return keyed or (profile_for(config.type).paid and not local)


def estimate(
    tasks: tuple[Task, ...], mode: Mode, runs: int, system: str, tools: tuple[ToolSpec, ...]
) -> Estimate:
    requests = sum(len(task.turns) for task in tasks) * runs
    per_run = sum(_task_tokens(task, mode, system, tools) for task in tasks)
    return Estimate(requests, per_run * runs)


def _task_tokens(task: Task, mode: Mode, system: str, tools: tuple[ToolSpec, ...]) -> int:
    first = _request_chars(task.prompt, mode, system, tools)
    total, earlier = 0, 0
    for turn in task.turns:
        reply = sum(len(json.dumps(call.arguments, default=repr)) for call in turn.calls)
        results = sum(len(call.result) for call in turn.calls)
        total += (first + earlier) // CHARS_PER_TOKEN + reply // CHARS_PER_TOKEN + REPLY_OVERHEAD
        earlier += reply + results
    return total


def _request_chars(prompt: str, mode: Mode, system: str, tools: tuple[ToolSpec, ...]) -> int:
    messages = (Message.text_message("system", system), Message.text_message("user", prompt))
    request = ChatRequest("", messages, tools)
    if mode == "rescue":
        return sum(len(message.text) for message in rescue_request(request).messages)
    specs = [
        {"name": spec.name, "description": spec.description, "parameters": spec.input_schema}
        for spec in tools
    ]
    return sum(len(message.text) for message in messages) + len(json.dumps(specs))
