"""Images and documents through ``nehanda serve``, sent with the official ``openai`` and
``anthropic`` clients, reaching each upstream in its own protocol: what each receives.
A model that cannot see gets the placeholder, and the answer says so."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.app import build_app
from nehanda.serve.config import ServeConfig
from scripted_server import Reply, ScriptedServer, fixture_body
from serve.conftest import TOKEN, start

PNG = (Path(__file__).parents[1] / "fixtures" / "images" / "red_2x2.png").read_bytes()
B64 = base64.b64encode(PNG).decode()
DATA_URL = f"data:image/png;base64,{B64}"
PDF = base64.b64encode(b"%PDF-1.7 a paper").decode()
URL = "https://example.com/cat.jpg"
JSON = {"Content-Type": "application/json"}
NDJSON = "application/x-ndjson"
OPENAI_IMAGE: Any = {"type": "image_url", "image_url": {"url": DATA_URL}}
CLAUDE_IMAGE: Any = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": B64},
}
TEXT_DOCUMENT: Any = {
    "type": "document",
    "source": {"type": "text", "media_type": "text/plain", "data": "the notes"},
    "title": "notes.txt",
}
PDF_DOCUMENT: Any = {
    "type": "document",
    "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
    "title": "paper.pdf",
}
PLACEHOLDER = "[an image was attached (image/png); this model cannot see images]"


class Upstreams:
    def __init__(self) -> None:
        self.vllm, self.claude = ScriptedServer(), ScriptedServer()
        self.seeing, self.blind, self.lmstudio = (
            ScriptedServer(),
            ScriptedServer(),
            ScriptedServer(),
        )
        for server, show in ((self.seeing, "gemma3_vision"), (self.blind, "gemma_no_tools")):
            server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), JSON))
            body = fixture_body(f"ollama_show_{show}.json")
            server.route("POST", "/api/show", Reply(200, body, JSON))

    @property
    def all(self) -> tuple[ScriptedServer, ...]:
        return (self.vllm, self.claude, self.seeing, self.blind, self.lmstudio)

    def sent(self, server: ScriptedServer) -> Any:
        posts = [r for r in server.requests if r.path.endswith(("/chat/completions", "/messages"))]
        posts += server.received("/api/chat")
        assert len(posts) >= 1
        return posts[-1].body["messages"]


def _provider(name: str, kind: str, base_url: str, model: str) -> ProviderConfig:
    return ProviderConfig.model_validate(
        {"name": name, "type": kind, "base_url": base_url, "model": model, "max_retries": 0}
    )


@pytest.fixture(scope="module")
def ups(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Upstreams, Path]]:
    up = Upstreams()
    aliases = {
        "vllm-model": _provider("vllm", "vllm", up.vllm.base_url, "qwen"),
        "claude-model": _provider("claude", "anthropic", up.claude.root_url, "claude-sonnet-4-5"),
        "seeing-model": _provider("seeing", "ollama", up.seeing.root_url, "gemma3:4b"),
        "blind-model": _provider("blind", "ollama", up.blind.root_url, "gemma:2b"),
        "lmstudio-model": _provider("lms", "lmstudio", up.lmstudio.base_url, "qwen"),
    }
    config = ServeConfig(default=None, aliases=aliases, token_env="SERVE_TEST_TOKEN")
    path = Path(tmp_path_factory.mktemp("cache")) / "tool_support.json"
    url, stop = start(build_app(config, {"SERVE_TEST_TOKEN": TOKEN}, ToolSupportCache(path)))
    yield url, up, path
    stop()
    for server in up.all:
        server.close()


@pytest.fixture
def up(ups: tuple[str, Upstreams, Path]) -> Upstreams:
    for server in ups[1].all:
        server.replies.clear()
        server.requests.clear()
    ups[1].vllm.stream("e2e_vllm_answer.sse")
    ups[1].claude.stream("anthropic_answer.sse")
    for server in (ups[1].seeing, ups[1].blind):
        server.stream("ollama_chat_answer.ndjson", NDJSON)
    return ups[1]


def openai_ask(ups: tuple[str, Upstreams, Path], model: str, content: Any) -> str:
    client = openai.OpenAI(base_url=ups[0] + "/v1", api_key=TOKEN, max_retries=0)
    reply = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": content}]
    )
    return reply.choices[0].message.content or ""


def claude_ask(ups: tuple[str, Upstreams, Path], model: str, content: Any) -> str:
    client = anthropic.Anthropic(base_url=ups[0], api_key=TOKEN, max_retries=0)
    reply = client.messages.create(
        model=model, max_tokens=256, messages=[{"role": "user", "content": content}]
    )
    return "".join(block.text for block in reply.content if block.type == "text")


ASK_OPENAI: Any = [
    {"type": "text", "text": "What is this?"},
    OPENAI_IMAGE,
    {"type": "image_url", "image_url": {"url": URL}},
]


def test_openai_image_parts_reach_an_openai_upstream_as_sent(ups: Any, up: Upstreams) -> None:
    answer = openai_ask(ups, "vllm-model", ASK_OPENAI)
    assert up.sent(up.vllm) == [{"role": "user", "content": ASK_OPENAI}]
    assert "cannot see" not in answer


def test_openai_image_parts_reach_claude_as_image_blocks(ups: Any, up: Upstreams) -> None:
    openai_ask(ups, "claude-model", ASK_OPENAI)
    assert up.sent(up.claude) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                CLAUDE_IMAGE,
                {"type": "image", "source": {"type": "url", "url": URL}},
            ],
        }
    ]


def test_claude_blocks_reach_claude_as_sent(ups: Any, up: Upstreams) -> None:
    content = [{"type": "text", "text": "Read these."}, CLAUDE_IMAGE, TEXT_DOCUMENT, PDF_DOCUMENT]
    claude_ask(ups, "claude-model", content)
    assert up.sent(up.claude) == [{"role": "user", "content": content}]


def test_claude_blocks_reach_an_openai_upstream_as_parts(ups: Any, up: Upstreams) -> None:
    url_image = {"type": "image", "source": {"type": "url", "url": URL}}
    content = [{"type": "text", "text": "Read these."}, CLAUDE_IMAGE, url_image, TEXT_DOCUMENT]
    claude_ask(ups, "vllm-model", [*content, PDF_DOCUMENT])
    assert up.sent(up.vllm)[0]["content"] == [
        {"type": "text", "text": "Read these."},
        OPENAI_IMAGE,
        {"type": "image_url", "image_url": {"url": URL}},
        {"type": "text", "text": "the notes"},
        {
            "type": "file",
            "file": {"filename": "paper.pdf", "file_data": f"data:application/pdf;base64,{PDF}"},
        },
    ]


def test_responses_input_images_reach_an_openai_upstream_and_claude(
    ups: Any, up: Upstreams
) -> None:
    # What Codex sends with a screenshot: input_text and input_image parts.
    client = openai.OpenAI(base_url=ups[0] + "/v1", api_key=TOKEN, max_retries=0)
    content: Any = [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": DATA_URL, "detail": "auto"},
        {"type": "input_image", "image_url": URL},
    ]
    for model in ("vllm-model", "claude-model"):
        reply = client.responses.create(
            model=model, input=[{"type": "message", "role": "user", "content": content}]
        )
        assert reply.status == "completed" and "cannot see" not in reply.output_text
    assert up.sent(up.vllm) == [{"role": "user", "content": ASK_OPENAI}]
    assert up.sent(up.claude)[0]["content"][1:] == [
        CLAUDE_IMAGE,
        {"type": "image", "source": {"type": "url", "url": URL}},
    ]


def test_an_image_in_a_claude_tool_result_reaches_claude_inside_it(ups: Any, up: Upstreams) -> None:
    client = anthropic.Anthropic(base_url=ups[0], api_key=TOKEN, max_retries=0)
    call: Any = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"p": "a.png"}}
    result: Any = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "text", "text": "a.png"}, CLAUDE_IMAGE],
    }
    client.messages.create(
        model="claude-model",
        max_tokens=256,
        messages=[
            {"role": "user", "content": "Look at a.png"},
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": [result]},
        ],
    )
    assert up.sent(up.claude)[2] == {"role": "user", "content": [result]}


VIEW_TOOL: Any = {"type": "function", "name": "view", "parameters": {"type": "object"}}


def test_an_image_in_a_responses_call_output_reaches_claude_inside_its_result(
    ups: Any, up: Upstreams
) -> None:
    client = openai.OpenAI(base_url=ups[0] + "/v1", api_key=TOKEN, max_retries=0)
    output: Any = [
        {"type": "input_text", "text": "a.png"},
        {"type": "input_image", "image_url": DATA_URL},
    ]
    client.responses.create(
        model="claude-model",
        input=[
            {"type": "message", "role": "user", "content": "Look at a.png"},
            {"type": "function_call", "call_id": "c1", "name": "view", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": output},
        ],
        tools=[VIEW_TOOL],
    )
    (result,) = up.sent(up.claude)[2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "c1"
    assert result["content"] == [{"type": "text", "text": "a.png"}, CLAUDE_IMAGE]


def test_images_reach_a_seeing_ollama_model_as_its_images_list(ups: Any, up: Upstreams) -> None:
    up.seeing.stream("ollama_chat_answer.ndjson", NDJSON)
    claude_ask(ups, "seeing-model", [{"type": "text", "text": "What is this?"}, CLAUDE_IMAGE])
    openai_ask(ups, "seeing-model", ASK_OPENAI[:2])
    chats = [request.body["messages"] for request in up.seeing.received("/api/chat")]
    assert chats == [[{"role": "user", "content": "What is this?", "images": [B64]}]] * 2


def test_ollama_gets_a_text_document_as_text_and_another_as_the_placeholder(
    ups: Any, up: Upstreams
) -> None:
    claude_ask(
        ups, "seeing-model", [{"type": "text", "text": "Read: "}, TEXT_DOCUMENT, PDF_DOCUMENT]
    )
    assert up.sent(up.seeing) == [
        {
            "role": "user",
            "content": "Read: the notes"
            "[a document was attached (paper.pdf); this model cannot read it]",
        }
    ]


def test_a_model_known_blind_gets_the_placeholder_and_the_answer_warns(
    ups: Any, up: Upstreams
) -> None:
    answer = openai_ask(ups, "blind-model", ASK_OPENAI[:2])
    assert answer.startswith("[nehanda serve: gemma:2b cannot see images; it gets a note")
    assert up.sent(up.blind)[-1]["content"] == "What is this?" + PLACEHOLDER
    assert "images" not in up.sent(up.blind)[-1]


def test_an_upstream_refusing_images_is_asked_again_learned_and_warned_of(
    ups: Any, up: Upstreams
) -> None:
    up.lmstudio.error(400, "openai_error_lmstudio_no_images.json")
    up.lmstudio.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    first = claude_ask(ups, "lmstudio-model", [{"type": "text", "text": "What?"}, CLAUDE_IMAGE])
    assert first.startswith("[nehanda serve: qwen cannot see images (")
    assert "does not support images" in first
    sent = [request.body["messages"] for request in up.lmstudio.requests]
    assert sent[0][0]["content"][1] == OPENAI_IMAGE
    assert sent[1] == [{"role": "user", "content": "What?" + PLACEHOLDER}]
    assert "blind" in json.loads(ups[2].read_text())

    again = claude_ask(ups, "lmstudio-model", [{"type": "text", "text": "What?"}, CLAUDE_IMAGE])
    assert again.startswith("[nehanda serve: qwen cannot see images; it gets a note")
    assert len(up.lmstudio.requests) == 3


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            [{"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}],
            "not a PNG",
        ),
        ([{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}}], "base64"),
        ([{"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}], "http(s) address"),
    ],
)
def test_a_bad_image_is_a_clear_400(ups: Any, up: Upstreams, content: Any, problem: str) -> None:
    with pytest.raises(
        openai.BadRequestError, match=problem.replace("(", r"\(").replace(")", r"\)")
    ):
        openai_ask(ups, "vllm-model", content)
    assert not up.vllm.requests
