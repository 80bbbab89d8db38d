"""Input without end, through a real serve: a client's JSON nested 100,000 deep is a 400
saying so, and an upstream event that never ends is a 502 (or, once the answer has
begun, its stream's error event) as soon as one event holds 16 MiB."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from nehanda.providers.bounded_json import MAX_DEPTH
from scripted_server import Reply
from serve.conftest import TOKEN, Served

ASK: Any = [{"role": "user", "content": "hi"}]
ENDLESS = 17 << 20
PIECE = 64 << 10


@pytest.mark.parametrize(
    "path", ["/v1/chat/completions", "/v1/messages", "/v1/messages/count_tokens"]
)
@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_body_nested_without_end_is_a_bad_request(serve: Served, path: str, depth: int) -> None:
    deep = b"[" * depth + b"]" * depth
    body = b'{"model": "native-model", "max_tokens": 8, "messages": ' + deep + b"}"
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    answer = httpx.post(serve.url + path, content=body, headers=headers)
    assert answer.status_code == 400, answer.text
    assert f"deeper than {MAX_DEPTH} levels" in answer.json()["error"]["message"]
    assert serve.native.requests == []


def endless(head: bytes) -> Reply:
    """``head``, then an event's data that goes on for 17 MiB and then stalls unended."""
    body = head + b'data: {"choices": [{"index": 0, "delta": {"content": "' + b"x" * ENDLESS
    return Reply(200, body, {"Content-Type": "text/event-stream"}, piece=PIECE,
                 stall_after=len(body) - 1, stall_for=30)  # fmt: skip


def test_an_upstream_event_that_never_ends_is_a_502(serve: Served) -> None:
    serve.native.reply(endless(b""))
    client = openai.OpenAI(base_url=serve.url + "/v1", api_key=TOKEN, max_retries=0, timeout=20)
    with pytest.raises(openai.APIStatusError) as failed:
        client.chat.completions.create(model="native-model", messages=ASK)
    assert failed.value.status_code == 502
    assert "passed 16 MiB without ending" in str(failed.value)


def test_an_endless_event_after_the_answer_began_ends_the_stream_with_an_error(
    serve: Served,
) -> None:
    began = b'data: {"choices": [{"index": 0, "delta": {"content": "Hel"}}]}\n\n'
    serve.native.reply(endless(began))
    client = openai.OpenAI(base_url=serve.url + "/v1", api_key=TOKEN, max_retries=0, timeout=20)
    seen = []
    with pytest.raises(openai.APIError, match="passed 16 MiB without ending"):
        for chunk in client.chat.completions.create(
            model="native-model", messages=ASK, stream=True
        ):
            seen += [choice.delta.content for choice in chunk.choices]
    assert "Hel" in seen
