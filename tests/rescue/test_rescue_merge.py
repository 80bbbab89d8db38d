"""Rescue mode never sends two user messages in a row (some servers refuse them): a
Ctrl-C'd call's result and the next prompt reach the server as one user message, with
the directive on it, and the merged message is rendered once for the conversation."""

from __future__ import annotations

import asyncio

from nehanda.config.settings import ProviderConfig
from nehanda.providers.base import ChatRequest
from nehanda.providers.openai_compat import OpenAICompatProvider
from nehanda.providers.rescue import RenderCache, RescueProvider, rescue_request
from nehanda.toolcalls.prompt import DIRECTIVE
from nehanda.types import Message, TextPart, ToolResult, ToolSpec, ToolUse
from scripted_server import ScriptedServer

READ = ToolSpec(
    "Read",
    "Reads a file.",
    {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]},
)


def interrupted_conversation() -> tuple[Message, ...]:
    call = ToolUse("call_1", "Read", {"file_path": "a.py"}, origin="rescue")
    return (
        Message.text_message("system", "You are nehanda."),
        Message.text_message("user", "look at a.py"),
        Message("assistant", (TextPart("Reading."), call)),
        Message("tool", (ToolResult("call_1", "interrupted by the user", is_error=True),)),
        Message.text_message("user", "never mind, list the folder"),
    )


def test_the_server_receives_alternating_roles_after_an_interrupted_call(
    server: ScriptedServer,
) -> None:
    server.stream("e2e_vllm_answer.sse")
    config = ProviderConfig(name="vllm", type="vllm", base_url=server.base_url, model="q")
    provider = RescueProvider(OpenAICompatProvider(config))
    request = ChatRequest("q", interrupted_conversation(), (READ,), "auto")

    async def ask() -> None:
        async for _ in provider.stream(request):
            pass
        await provider.aclose()

    asyncio.run(ask())
    (sent,) = server.received("/v1/chat/completions")
    messages = sent.body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    last = messages[-1]["content"]
    assert "interrupted by the user" in last
    assert "never mind, list the folder" in last
    assert last.index("interrupted by the user") < last.index("never mind")
    assert DIRECTIVE.split()[0] in last and "tools" not in sent.body


def test_merged_message_is_rendered_once_and_redone_when_the_run_changes() -> None:
    cache = RenderCache()
    conversation = interrupted_conversation()
    first = cache.body(conversation)
    again = cache.body(conversation)
    assert [m.role for m in first] == ["user", "assistant", "user"]
    assert again[-1] is first[-1]
    longer = cache.body((*conversation, Message.text_message("user", "and a.py too")))
    assert longer[-1] is not first[-1] and longer[-1].text.endswith("and a.py too")
    assert len(longer) == 3


def test_a_lone_user_message_is_sent_as_it_is() -> None:
    request = ChatRequest("m", interrupted_conversation(), (), "auto")
    sent = rescue_request(request)
    assert [m.role for m in sent.messages] == ["system", "user", "assistant", "user"]
    assert sent.messages[1] is request.messages[1]
    assert sent.messages[-1].text.endswith("\n\nnever mind, list the folder")
