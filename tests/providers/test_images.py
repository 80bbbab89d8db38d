"""Images reaching each server in its own format, against real servers on 127.0.0.1, and
the note a model that cannot see them gets instead (told once, learned from a refusal).
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.events import ImagesWithheld, Notice, StreamEvent, TextDelta
from nehanda.providers.anthropic import AnthropicProvider
from nehanda.providers.base import ChatRequest, Provider
from nehanda.providers.calling import ToolCalling
from nehanda.providers.http import RetryPolicy
from nehanda.providers.ollama import OllamaProvider
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.types import (
    DocumentPart,
    ImagePart,
    Message,
    TextPart,
    ToolResult,
    ToolSpec,
    ToolUse,
    image_type,
)
from scripted_server import Reply, ScriptedServer, fixture_body

PNG = (Path(__file__).parents[1] / "fixtures" / "images" / "red_2x2.png").read_bytes()
B64 = base64.b64encode(PNG).decode()
IMAGE = ImagePart.of(PNG, "red_2x2.png")
READ = ToolSpec("Read", "Reads a file.", {"type": "object", "properties": {}})
FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05)
JSON = {"Content-Type": "application/json"}
NOTE = "[an image was attached (red_2x2.png); this model cannot see images]"


def shown(*parts: Any) -> tuple[Message, ...]:
    return (Message("user", (TextPart("what is this?"), *parts)),)


def drive(provider: Provider, *requests: ChatRequest) -> list[StreamEvent]:
    async def go() -> list[StreamEvent]:
        events: list[StreamEvent] = []
        try:
            for request in requests:
                events += [event async for event in provider.stream(request)]
        finally:
            await provider.aclose()
        return events

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        (b"GIF89a\x01\x00", "image/gif"),
        (b"GIF87a\x01\x00", "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"RIFF\x10\x00\x00\x00WAVEfmt ", None),
        (b"%PDF-1.7", None),
        (b"\x89PNG", None),
        (b"", None),
    ],
)
def test_an_image_is_known_by_its_bytes(data: bytes, kind: str | None) -> None:
    assert image_type(data) == kind


@given(st.binary())
def test_bytes_with_no_image_signature_are_no_image(data: bytes) -> None:
    starts = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")
    looks = data.startswith(starts) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")
    assert (image_type(data) is not None) == looks


def test_a_text_file_is_refused_as_an_image() -> None:
    with pytest.raises(ValueError, match="not a PNG, JPEG, GIF or WebP image"):
        ImagePart.of(b"hello", "pic.png")


def test_openai_compatible_server_gets_an_image_url_data_part(harness: Any) -> None:
    harness.server.stream("e2e_vllm_answer.sse")
    drive(ToolCalling(harness.provider()), ChatRequest("qwen", shown(IMAGE)))
    assert harness.server.received("/v1/chat/completions")[0].body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
            ],
        }
    ]


def test_an_image_by_address_is_sent_as_its_address(harness: Any) -> None:
    harness.server.stream("e2e_vllm_answer.sse")
    image = ImagePart("image/png", url="https://example.com/a.png")
    drive(harness.provider(), ChatRequest("qwen", shown(image)))
    content = harness.server.received("/v1/chat/completions")[0].body["messages"][0]["content"]
    assert content[1] == {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}


def test_an_image_a_tool_showed_follows_the_tool_message(harness: Any) -> None:
    harness.server.stream("e2e_vllm_answer.sse")
    messages = (
        Message.text_message("user", "look at it"),
        Message("assistant", (ToolUse("c1", "Read", {"file_path": "red_2x2.png"}),)),
        Message("tool", (ToolResult("c1", "PNG image, 2x2, 73 bytes", images=(IMAGE,)),)),
    )
    drive(harness.provider(), ChatRequest("qwen", messages, tools=(READ,)))
    sent = harness.server.received("/v1/chat/completions")[0].body["messages"]
    assert sent[2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "PNG image, 2x2, 73 bytes"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "The images the tool results above showed:"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
            ],
        },
    ]


def test_rescue_mode_sends_the_image_the_same_way(harness: Any) -> None:
    harness.server.stream("e2e_vllm_answer.sse")
    drive(ToolCalling(harness.provider(), "rescue"), ChatRequest("qwen", shown(IMAGE), (READ,)))
    body = harness.server.received("/v1/chat/completions")[0].body
    assert "tools" not in body and "[TOOL_CALL]" in body["messages"][0]["content"]
    content = body["messages"][1]["content"]
    assert content[0] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}
    assert (
        content[1]["text"].startswith("what is this?")
        and "[SYSTEM DIRECTIVE]" in content[1]["text"]
    )


def test_a_refusal_of_images_is_learned_and_the_request_asked_again_with_a_note(
    harness: Any,
) -> None:
    server: ScriptedServer = harness.server
    server.error(400, "openai_error_lmstudio_no_images.json").stream("e2e_vllm_answer.sse")
    server.stream("e2e_vllm_answer.sse")
    calling = ToolCalling(harness.provider(type="lmstudio"))
    events = drive(calling, ChatRequest("qwen", shown(IMAGE)), ChatRequest("qwen", shown(IMAGE)))
    withheld = [event for event in events if isinstance(event, Notice)]
    assert len(withheld) == 1 and isinstance(withheld[0], ImagesWithheld)
    assert withheld[0].learned and "does not support images" in withheld[0].message
    assert "".join(e.text for e in events if isinstance(e, TextDelta))
    sent = [request.body["messages"] for request in server.received("/v1/chat/completions")]
    assert len(sent) == 3 and sent[0][0]["content"][1]["type"] == "image_url"
    assert sent[1] == sent[2] == [{"role": "user", "content": "what is this?" + NOTE}]


def test_a_model_family_that_cannot_see_gets_the_note_from_the_start(harness: Any) -> None:
    harness.server.stream("e2e_vllm_answer.sse")
    provider = harness.provider(type="openai", model="gpt-3.5-turbo")
    events = drive(ToolCalling(provider), ChatRequest("gpt-3.5-turbo", shown(IMAGE)))
    assert next(e for e in events if isinstance(e, ImagesWithheld)).learned is False
    sent = harness.server.received("/v1/chat/completions")[0].body["messages"]
    assert sent == [{"role": "user", "content": "what is this?" + NOTE}]


def test_nothing_known_of_a_model_shows_it_the_image_and_says_nothing(harness: Any) -> None:
    harness.server.stream("e2e_vllm_answer.sse")
    events = drive(ToolCalling(harness.provider(type="vllm")), ChatRequest("qwen", shown(IMAGE)))
    assert not [e for e in events if isinstance(e, Notice)]


def anthropic(harness: Any) -> AnthropicProvider:
    return AnthropicProvider(harness.config("anthropic"), api_key="k", retry=FAST_RETRY)


def test_anthropic_gets_base64_image_blocks_and_images_in_tool_results(harness: Any) -> None:
    harness.server.stream("anthropic_answer.sse")
    messages = (
        *shown(IMAGE, ImagePart("image/jpeg", url="https://example.com/a.jpg")),
        Message("assistant", (ToolUse("c1", "Read", {"file_path": "red_2x2.png"}),)),
        Message("tool", (ToolResult("c1", "PNG image, 2x2", images=(IMAGE,)),)),
    )
    drive(ToolCalling(anthropic(harness)), ChatRequest("claude-sonnet-4-5", messages, (READ,)))
    sent = harness.server.received("/v1/messages")[0].body["messages"]
    block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}}
    assert sent[0]["content"] == [
        {"type": "text", "text": "what is this?"},
        block,
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.jpg"}},
    ]
    assert sent[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "c1",
            "content": [{"type": "text", "text": "PNG image, 2x2"}, block],
        }
    ]


def test_anthropic_gets_document_blocks(harness: Any) -> None:
    harness.server.stream("anthropic_answer.sse")
    documents = (
        DocumentPart("text/plain", text="the notes", title="notes.txt"),
        DocumentPart("application/pdf", data=b"%PDF-1.7"),
    )
    drive(anthropic(harness), ChatRequest("claude-sonnet-4-5", shown(*documents)))
    content = harness.server.received("/v1/messages")[0].body["messages"][0]["content"]
    assert content[1:] == [
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "the notes"},
            "title": "notes.txt",
        },
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjc="},
        },
    ]


def ollama(harness: Any, tmp_path: Path, show: str, model: str) -> OllamaProvider:
    server: ScriptedServer = harness.server
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), JSON))
    server.route("POST", "/api/show", Reply(200, fixture_body(show), JSON))
    config = harness.config("ollama", model=model)
    store = ToolSupportCache(tmp_path / "tool_support.json")
    return OllamaProvider(config, retry=FAST_RETRY, store=store)


def test_ollama_gets_the_images_list_on_the_message(harness: Any, tmp_path: Path) -> None:
    harness.server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    provider = ollama(harness, tmp_path, "ollama_show_gemma3_vision.json", "gemma3:4b")
    events = drive(ToolCalling(provider), ChatRequest("gemma3:4b", shown(IMAGE)))
    assert not [e for e in events if isinstance(e, Notice)]
    assert harness.server.received("/api/chat")[0].body["messages"] == [
        {"role": "user", "content": "what is this?", "images": [B64]}
    ]


def test_an_ollama_model_without_vision_gets_the_note_and_the_user_is_told_once(
    harness: Any, tmp_path: Path
) -> None:
    for _ in range(2):
        harness.server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    provider = ollama(harness, tmp_path, "ollama_show_qwen3.json", "qwen3:8b")
    request = ChatRequest("qwen3:8b", shown(IMAGE))
    events = drive(ToolCalling(provider), request, request)
    assert len([e for e in events if isinstance(e, ImagesWithheld)]) == 1
    for chat in harness.server.received("/api/chat"):
        assert chat.body["messages"] == [{"role": "user", "content": "what is this?" + NOTE}]


def test_ollama_has_no_documents_a_text_one_becomes_text(harness: Any, tmp_path: Path) -> None:
    harness.server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    provider = ollama(harness, tmp_path, "ollama_show_gemma3_vision.json", "gemma3:4b")
    documents = (
        DocumentPart("text/plain", text=" (the notes)"),
        DocumentPart("application/pdf", data=b"%PDF-1.7", title="paper.pdf"),
    )
    drive(provider, ChatRequest("gemma3:4b", shown(*documents)))
    assert harness.server.received("/api/chat")[0].body["messages"][0]["content"] == (
        "what is this? (the notes)[a document was attached (paper.pdf); this model cannot read it]"
    )
