"""How many streams serve answers at once, through a real serve in front of a paced
upstream whose streams are held open by a gate: counted, never timed. Past an
upstream's places a request is a 429 with ``Retry-After`` in its path's protocol, at
once; below them every stream reaches the upstream together."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nehanda.config.settings import ProviderConfig
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.app import build_app
from nehanda.serve.config import ServeConfig
from paced_upstream import PacedUpstream
from serve.conftest import start
from waiting import GUARD, until

ASK: Any = [{"role": "user", "content": "hi"}]


@pytest.fixture
def gated(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, PacedUpstream]]:
    gate = threading.Event()
    paced = PacedUpstream(chunks=3, rate=1e9, gate=gate)
    limit = {"max_concurrency": request.param} if request.param else {}
    config = ServeConfig(
        default=ProviderConfig(name="p", type="vllm", base_url=paced.base_url, model="m"),
        **limit,
    )
    url, stop = start(build_app(config, {}, ToolSupportCache(tmp_path / "cache.json")))
    yield url, paced
    gate.set()
    stop()
    paced.close()


async def stream(api: httpx.AsyncClient, url: str, path: str) -> httpx.Response:
    body = {"model": "m", "max_tokens": 8, "messages": ASK, "stream": True}
    async with api.stream("POST", url + path, json=body) as answer:
        await answer.aread()
        return answer


async def held(url: str, paced: PacedUpstream, opened: int, then: int, path: str) -> list[Any]:
    """``opened`` streams held at the upstream, then ``then`` more asked; all answers."""
    assert paced.gate is not None
    async with httpx.AsyncClient(timeout=GUARD, limits=httpx.Limits(max_connections=None)) as api:
        first = [asyncio.ensure_future(stream(api, url, path)) for _ in range(opened)]
        await asyncio.to_thread(until, lambda: paced.streaming == opened, "streams held open")
        more = await asyncio.gather(*(stream(api, url, path) for _ in range(then)))
        paced.gate.set()
        return [*await asyncio.gather(*first), *more]


@pytest.mark.parametrize("gated", [2], indirect=True)
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
def test_past_the_limit_a_request_is_told_to_retry_at_once(
    gated: tuple[str, PacedUpstream], path: str
) -> None:
    url, paced = gated
    answers = asyncio.run(held(url, paced, 2, 4, path))
    assert [a.status_code for a in answers] == [200, 200, 429, 429, 429, 429]
    for refused in answers[2:]:
        assert refused.headers["retry-after"] == "1"
        error = refused.json()
        if path == "/v1/messages":
            assert error["type"] == "error" and error["error"]["type"] == "rate_limit_error"
        else:
            assert error["error"]["type"] == "rate_limit_error"
        assert "max_concurrency" in str(error)
    assert paced.most_at_once == 2
    again = httpx.post(url + path, json={"model": "m", "max_tokens": 8, "messages": ASK})
    assert again.status_code == 200  # the places were given back


@pytest.mark.parametrize("gated", [None], indirect=True)
def test_a_hundred_streams_reach_the_upstream_together_by_default(
    gated: tuple[str, PacedUpstream],
) -> None:
    url, paced = gated
    answers = asyncio.run(held(url, paced, 100, 0, "/v1/chat/completions"))
    assert [a.status_code for a in answers] == [200] * 100
    assert paced.most_at_once == 100
