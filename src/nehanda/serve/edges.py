"""The routes around the two conversations: models, routes serve does not have, and the
OpenAI endpoints it passes through.

- ``GET /v1/models`` lists the names served, ``GET /v1/models/{id}`` gives one of them
  (a 404 for another), in the shape both OpenAI's and Anthropic's clients read;
- a path serve has no route for, or a method a route does not take, is a 404 or a 405
  in the error shape of the path's protocol (``route_errors``), naming the routes there are;
- ``/v1/completions`` and ``/v1/embeddings`` go as they are to an upstream that speaks
  OpenAI's API (its model name put in, its key added by the adapter), and the answer
  comes back masked like every byte serve sends; for any other upstream, or one that
  answers 404, a 404 says serve does not offer them.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from nehanda.config.profiles import profile_for
from nehanda.config.settings import ProviderConfig
from nehanda.errors import ProviderStatusError, StreamProtocolError
from nehanda.masking import SecretMask
from nehanda.providers.discovery import list_models
from nehanda.providers.http import Exchange
from nehanda.providers.openai_compat import OpenAICompatProvider
from nehanda.serve.config import ServeConfig, UnknownModel
from nehanda.serve.errors import Failure
from nehanda.serve.upstreams import Upstreams
from nehanda.serve.wire import BadRequest
from nehanda.types import JsonObject

MAX_FORWARDED_BYTES = 64 << 20
ErrorResponse = Callable[[str, Failure, Mapping[str, str] | None], Response]


async def served_names(config: ServeConfig, environ: Mapping[str, str]) -> list[str]:
    """The model names clients are told of: the aliases, a pinned model, or the upstream's."""
    names = list(config.aliases)
    default = config.default
    if default is not None and config.pin_model and default.model:
        names.append(default.model)
    elif default is not None and not names:
        names = await list_models(default, environ)
    return list(dict.fromkeys(names))


def model_object(name: str) -> JsonObject:
    return {
        "id": name,
        "object": "model",
        "type": "model",
        "created": 0,
        "created_at": "1970-01-01T00:00:00Z",
        "owned_by": "nehanda",
        "display_name": name,
    }


def models_page(names: list[str]) -> JsonObject:
    data = [model_object(name) for name in names]
    first, last = (names[0], names[-1]) if names else (None, None)
    return {"object": "list", "data": data, "has_more": False, "first_id": first, "last_id": last}


def one_model(name: str, names: list[str]) -> JsonObject:
    if name not in names:
        raise UnknownModel(
            f"model {name!r} is not served here; GET /v1/models lists those that are"
        )
    return model_object(name)


def route_errors(error: ErrorResponse, offered: str) -> dict[Any, Any]:
    """Starlette's exception handlers for its own 404 and 405, as ``error`` answers them."""

    async def handled(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        method, path = request.method, request.url.path
        if exc.status_code == 405:
            allowed = (exc.headers or {}).get("Allow", "")
            failure = Failure(
                405, "invalid_request_error", f"{path} does not take {method}; send {allowed}"
            )
        else:
            failure = Failure(
                exc.status_code,
                "not_found_error",
                f"nehanda serve has no route {method} {path}; it offers {offered}",
            )
        return error(path, failure, exc.headers)

    return {404: handled, 405: handled}


async def forward(
    upstreams: Upstreams, config: ProviderConfig, path: str, body: JsonObject, mask: SecretMask
) -> Response:
    """``body`` sent to ``path`` of ``config``'s upstream, its answer passed back masked."""
    adapter = upstreams.adapter(config)
    wire = profile_for(config.type).wire
    if not isinstance(adapter, OpenAICompatProvider):
        raise NotOffered(f"nehanda serve does not offer {path} for {config.name}: it speaks {wire}")
    model = config.model or str(body["model"])
    exchange = adapter.exchange(path, {**body, "model": model}, model)
    try:
        async for _ in exchange.send():
            pass
    except ProviderStatusError as exc:
        if exc.status in (404, 405):
            raise NotOffered(
                f"nehanda serve does not offer {path} for {config.name}: the upstream has no "
                f"such endpoint (it answered {exc.status})"
            ) from exc
        raise
    if body.get("stream") is True:
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        chunks = _masked_stream(exchange, mask)
        return StreamingResponse(chunks, media_type="text/event-stream", headers=headers)
    async with exchange as received:
        whole = await _whole(received, config)
    return Response(mask.mask_bytes(whole), media_type="application/json")


class NotOffered(UnknownModel):
    """A route serve has, for an upstream that cannot answer it: a 404."""


def require_model(body: JsonObject) -> str:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("model is required: the name of the model to answer")
    return model


async def _whole(received: AsyncIterator[bytes], config: ProviderConfig) -> bytes:
    chunks, size = [], 0
    async for chunk in received:
        size += len(chunk)
        if size > MAX_FORWARDED_BYTES:
            said = f"{config.name}'s answer is larger than {MAX_FORWARDED_BYTES >> 20} MiB"
            raise StreamProtocolError(said, provider=config.name, model=config.model or "")
        chunks.append(chunk)
    return b"".join(chunks)


async def _masked_stream(exchange: Exchange, mask: SecretMask) -> AsyncIterator[bytes]:
    """The upstream's bytes as text through one ``MaskStream``: a key cut across two
    reads is still found."""
    text, masked = codecs.getincrementaldecoder("utf-8")("replace"), mask.stream()
    async with exchange as received:
        async for chunk in received:
            out = masked.feed(text.decode(chunk))
            if out:
                yield out.encode()
    yield (masked.feed(text.decode(b"", final=True)) + masked.flush()).encode()


def unprefixed(routes: list[Route]) -> list[Route]:
    """Each ``/v1`` route also without the prefix (a client given the bare host as its
    base URL), unless the route is there already."""
    paths = {route.path for route in routes}
    return [
        Route(route.path[3:], route.endpoint, methods=route.methods)
        for route in routes
        if route.path.startswith("/v1/") and route.path[3:] not in paths
    ]
