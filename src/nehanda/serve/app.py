"""The ASGI app: routes, the bearer token, bounded concurrency, streaming, errors.

``build_app(config, environ)`` makes the Starlette app, ``environ`` holding the values
of the variables ``config`` names (the token, the upstream keys). ``WorkerApp`` is the
factory a worker of ``nehanda serve`` calls, the values handed to it with the config
(``serve.workers``); ``create_app()`` is one for a uvicorn started by hand, configured
from the environment (``serve.config``). Before any route, ``serve.guard`` turns away
what a web page could send. A request takes one of its upstream's places
(``serve.places``) before it reaches it, or is answered 429 at once. A client that
disconnects mid-stream cancels the task reading the upstream, which closes the upstream
request. An error before the first byte is the
protocol's error object with its status; one after it is the protocol's error event, and
the stream ends. Every byte sent has the known secrets masked (``serve.masked``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
import os
import traceback
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp

from nehanda.config.profiles import profile_for
from nehanda.errors import NehandaError
from nehanda.masking import SecretMask
from nehanda.providers import bounded_json
from nehanda.providers.ollama import estimated_tokens
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.anthropic_front import AnthropicEvents, message, parse_anthropic
from nehanda.serve.config import ServeConfig
from nehanda.serve.edges import (
    forward,
    models_page,
    one_model,
    require_model,
    route_errors,
    served_names,
    unprefixed,
)
from nehanda.serve.errors import Failure, anthropic_error, failure_for, openai_error
from nehanda.serve.guard import BrowserGuard, Policy
from nehanda.serve.masked import MaskedEvents, mask_log_records
from nehanda.serve.openai_front import OpenAIChunks, completion, parse_openai
from nehanda.serve.places import RETRY_AFTER, Busy, Ending, Places
from nehanda.serve.request_log import RequestLog
from nehanda.serve.response_store import ResponseStore
from nehanda.serve.responses_front import ResponsesEvents, response_object
from nehanda.serve.responses_wire import ResponsesRequest, parse_responses
from nehanda.serve.sse_response import EventStream
from nehanda.serve.turn import ServeEvent, answer
from nehanda.serve.upstreams import Upstreams
from nehanda.serve.wire import BadRequest, ClientRequest, Collected, for_upstream
from nehanda.types import JsonObject

log = logging.getLogger("nehanda.serve")
T = TypeVar("T")
_DUMP = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
MAX_BODY_BYTES = 64 << 20
_SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@dataclass
class _State:
    config: ServeConfig
    upstreams: Upstreams
    places: Places
    token: str | None
    ping_every: float
    mask: SecretMask
    environ: Mapping[str, str]


class _Front:
    """What differs between the two protocols once a request is read."""

    def __init__(self, protocol: str) -> None:
        self.protocol = protocol

    def parse(self, body: JsonObject) -> ClientRequest:
        return parse_anthropic(body) if self.protocol == "anthropic" else parse_openai(body)

    def for_stream(self, request: ClientRequest, model: str) -> _Front:
        """The front that encodes one stream (one keeping that stream's state, or this)."""
        return self

    def error(
        self, failure: Failure, mask: SecretMask, headers: Mapping[str, str] | None = None
    ) -> Response:
        status, body = (anthropic_error if self.protocol == "anthropic" else openai_error)(failure)
        return _json(body, mask, status, headers)

    def encoder(self, request: ClientRequest, model: str) -> Callable[[ServeEvent], bytes]:
        if self.protocol == "anthropic":
            events = AnthropicEvents(model, thinking=request.thinking)
            return lambda event: b"".join(_event(n, d) for n, d in events.handle(event))
        chunks = OpenAIChunks(
            model, include_usage=request.include_usage, legacy=request.legacy_functions
        )
        return lambda event: b"".join(_data(chunk) for chunk in chunks.handle(event))

    def keepalive(self) -> bytes:
        if self.protocol == "anthropic":
            return _event("ping", {"type": "ping"})
        return b": keepalive\n\n"

    def closing(self) -> bytes:
        return b"" if self.protocol == "anthropic" else b"data: [DONE]\n\n"

    def error_event(self, failure: Failure) -> bytes:
        if self.protocol == "anthropic":
            return _event("error", anthropic_error(failure)[1])
        return _data(openai_error(failure)[1])

    def whole(self, request: ClientRequest, reply: Collected, model: str) -> JsonObject:
        if self.protocol == "anthropic":
            return message(reply, model, thinking=request.thinking)
        return completion(reply, model, legacy=request.legacy_functions)


def _json(
    body: object, mask: SecretMask, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    masked = mask.mask_bytes(_DUMP(body).encode())
    return Response(masked, status, headers, media_type="application/json")


def _data(chunk: object) -> bytes:
    return b"data: " + _DUMP(chunk).encode() + b"\n\n"


def _event(name: str, data: object) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + _DUMP(data).encode() + b"\n\n"


class _ResponsesFront(_Front):
    """The Responses API (``serve.responses_wire``, ``serve.responses_front``): OpenAI's
    errors and keep-alive, its own events, no ``[DONE]``; responses kept for
    ``previous_response_id`` in a store every worker shares."""

    def __init__(self, store: ResponseStore) -> None:
        super().__init__("openai")
        self.store = store

    def parse(self, body: JsonObject) -> ClientRequest:
        return parse_responses(body, self.store.get)

    def for_stream(self, request: ClientRequest, model: str) -> _Front:
        assert isinstance(request, ResponsesRequest)
        events = ResponsesEvents(request, model, functools.partial(self._keep, request))
        return _ResponsesStream(self.store, events)

    def encoder(self, request: ClientRequest, model: str) -> Callable[[ServeEvent], bytes]:
        return self.for_stream(request, model).encoder(request, model)

    def closing(self) -> bytes:
        return b""

    def whole(self, request: ClientRequest, reply: Collected, model: str) -> JsonObject:
        assert isinstance(request, ResponsesRequest)
        return response_object(reply, request, model, functools.partial(self._keep, request))

    def _keep(self, request: ResponsesRequest, response: JsonObject) -> None:
        if not request.store:
            return
        try:
            self.store.put(request.response_id, [*request.items, *response["output"]])
        except OSError as exc:
            log.warning("could not keep response %s: %s", request.response_id, exc)


class _ResponsesStream(_ResponsesFront):
    """One Responses stream: its events, and ``response.failed`` when the upstream fails."""

    def __init__(self, store: ResponseStore, events: ResponsesEvents) -> None:
        super().__init__(store)
        self.events = events

    def encoder(self, request: ClientRequest, model: str) -> Callable[[ServeEvent], bytes]:
        return lambda event: b"".join(_event(n, d) for n, d in self.events.handle(event))

    def error_event(self, failure: Failure) -> bytes:
        failed = self.events.fail(failure.kind, failure.message)
        return b"".join(_event(name, data) for name, data in failed)


OPENAI, ANTHROPIC = _Front("openai"), _Front("anthropic")
RESPONSES = _ResponsesFront(ResponseStore())


def _front_of(path: str) -> _Front:
    return ANTHROPIC if path.startswith(("/v1/messages", "/messages")) else OPENAI


def build_app(
    config: ServeConfig,
    environ: Mapping[str, str] = os.environ,
    support: ToolSupportCache | None = None,
) -> ASGIApp:
    token = environ.get(config.token_env) if config.token_env else None
    upstreams = Upstreams(
        support or ToolSupportCache(), recover_leaks=config.recover_leaks, environ=environ
    )
    places = Places(config.max_concurrency)
    mask = SecretMask(config.secrets(environ))
    state = _State(config, upstreams, places, token or None, config.ping_every, mask, environ)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await upstreams.aclose()

    def guarded(front: _Front, handler: _Handler) -> Callable[[Request], Awaitable[Response]]:
        return functools.partial(_guarded, state, front, handler)  # starlette sees it async

    routes = [
        Route("/v1/chat/completions", guarded(OPENAI, _converse), methods=["POST"]),
        Route("/chat/completions", guarded(OPENAI, _converse), methods=["POST"]),
        Route("/v1/responses", guarded(RESPONSES, _converse), methods=["POST"]),
        Route("/responses", guarded(RESPONSES, _converse), methods=["POST"]),
        Route("/v1/messages", guarded(ANTHROPIC, _converse), methods=["POST"]),
        Route("/v1/messages/count_tokens", guarded(ANTHROPIC, _count_tokens), methods=["POST"]),
        Route("/v1/models", guarded(OPENAI, _models), methods=["GET"]),
        Route("/v1/models/{model_id:path}", guarded(OPENAI, _model), methods=["GET"]),
        Route("/v1/completions", guarded(OPENAI, _forward), methods=["POST"]),
        Route("/v1/embeddings", guarded(OPENAI, _forward), methods=["POST"]),
        Route("/health", _health, methods=["GET"]),
    ]
    routes += unprefixed(routes)
    offered = ", ".join(f"{m} {r.path}" for r in routes if r.path.startswith("/v1") for m in
                        sorted((r.methods or set()) - {"HEAD"}))  # fmt: skip

    def error(path: str, failure: Failure, headers: Mapping[str, str] | None = None) -> Response:
        return _front_of(path).error(failure, mask, headers)

    app = Starlette(
        routes=routes, lifespan=lifespan, exception_handlers=route_errors(error, offered)
    )
    return BrowserGuard(app, Policy.of(config), error)


_Handler = Callable[[_State, Request, _Front], Awaitable[Response]]


async def _guarded(state: _State, front: _Front, handler: _Handler, request: Request) -> Response:
    """``handler``'s answer to an authorized request; every failure as an error object."""
    if not authorized(request.headers, state.token):
        message = "a valid bearer token is required (Authorization: Bearer TOKEN)"
        return front.error(Failure(401, "authentication_error", message), state.mask)
    try:
        return await handler(state, request, front)
    except (BadRequest, NehandaError) as exc:
        return front.error(failure_for(exc, state.mask), state.mask)
    except Busy as exc:
        return front.error(exc.failure, state.mask, {"Retry-After": str(RETRY_AFTER)})
    except ClientGone:
        return Response(status_code=499)
    except Exception as exc:  # a bug of ours: the client still gets its error object
        _log_bug(state, exc, request.url.path)
        message = f"nehanda serve failed: {type(exc).__name__}; its log says more"
        return front.error(Failure(500, "api_error", message), state.mask)


class WorkerApp:
    """The app factory a ``nehanda serve`` worker calls: the config and the values of the
    variables it names (taken from ``environ``) travel inside it, pickled into the pipe
    the worker starts with."""

    def __init__(
        self, config: ServeConfig, environ: Mapping[str, str], log_requests: bool = False
    ) -> None:
        self.config = config
        self.values = {name: environ[name] for name in config.variables() if environ.get(name)}
        self.log_requests = log_requests

    def __repr__(self) -> str:  # never the values
        return f"WorkerApp({sorted(self.values)})"

    def __call__(self) -> ASGIApp:
        mask = SecretMask(self.config.secrets(self.values))
        mask_log_records(mask)
        app = build_app(self.config, self.values)
        return RequestLog(app, mask.mask) if self.log_requests else app


def create_app() -> ASGIApp:
    """The app for a uvicorn started by hand (``--factory``): the config from
    ``NEHANDA_SERVE_CONFIG``, the token and keys from the variables it names."""
    return WorkerApp(ServeConfig.from_env(), os.environ)()


def authorized(headers: Mapping[str, str], token: str | None) -> bool:
    """Whether the request carries the token (``Authorization: Bearer`` or ``x-api-key``)."""
    if token is None:
        return True
    bearer = headers.get("authorization", "")
    sent = bearer[7:].strip() if bearer[:7].lower() == "bearer " else headers.get("x-api-key", "")
    return hmac.compare_digest(sent.encode(), token.encode())


async def _health(request: Request) -> Response:
    return Response(b'{"status":"ok"}', media_type="application/json")


async def _body(request: Request) -> dict[str, Any]:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BadRequest(f"the request body is larger than {MAX_BODY_BYTES >> 20} MiB")
        chunks.append(chunk)
    try:
        body = bounded_json.loads(b"".join(chunks))
    except bounded_json.TooDeep as exc:
        raise BadRequest(f"the request body is {exc.msg}; send flatter JSON") from exc
    except ValueError as exc:
        raise BadRequest(f"the request body is not JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


async def _converse(state: _State, request: Request, front: _Front) -> Response:
    body = await _body(request)
    parsed = front.parse(body)
    config = state.config.route(parsed.chat.model)
    calling = await state.upstreams.calling(config)
    upstream = profile_for(config.type).wire
    chat = for_upstream(parsed, upstream, config.model or parsed.chat.model)

    def switched(reason: str) -> None:
        said = state.mask.mask(reason)
        log.warning("%s (model %s): switched to rescue mode: %s", config.name, chat.model, said)
        state.upstreams.remember_refusal(config, reason)

    def blind(reason: str) -> None:
        log.warning("%s (model %s): %s", config.name, chat.model, state.mask.mask(reason))
        state.upstreams.remember_blind(config, reason)

    state.places.take(config.base_url, config.name)
    events = answer(calling, chat, parallel=parsed.parallel, on_switch=switched, on_blind=blind)
    end = Ending(state.places, config.base_url, events)
    masked = MaskedEvents(state.mask)
    try:
        first = await _unless_gone(request, anext(events))
    except BaseException:
        await end()
        raise
    if not parsed.stream:
        try:
            reply = await _unless_gone(request, _collect(masked, first, events))
        finally:
            await end()
        return _json(front.whole(parsed, reply, parsed.chat.model), state.mask)
    front = front.for_stream(parsed, parsed.chat.model)
    encode = front.encoder(parsed, parsed.chat.model)

    def encoded(event: ServeEvent | None) -> bytes:
        out = masked.handle(event) if event is not None else masked.finish()
        return state.mask.mask_bytes(b"".join(encode(e) for e in out))

    body_bytes = _stream(state, front, encoded, first, events, end)
    return EventStream(body_bytes, front.keepalive(), state.ping_every, end, _SSE_HEADERS)


def _log_bug(state: _State, exc: Exception, where: str) -> None:
    trace = "".join(traceback.format_exception(exc))
    log.error("nehanda serve failed on %s:\n%s", where, state.mask.mask(trace))


class ClientGone(Exception):
    """The client hung up before its answer began; nothing is left to answer."""


async def _unless_gone(request: Request, work: Awaitable[T]) -> T:
    """``work``'s result, or ``ClientGone`` once the client disconnects (then ``work``,
    and with it the upstream request, is cancelled)."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnect(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    raise ClientGone


async def _disconnect(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _collect(
    masked: MaskedEvents, first: ServeEvent, events: AsyncIterator[ServeEvent]
) -> Collected:
    reply = [first, *[event async for event in events]]
    return Collected.of(
        [*(out for event in reply for out in masked.handle(event)), *masked.finish()]
    )


async def _stream(
    state: _State,
    front: _Front,
    encode: Callable[[ServeEvent | None], bytes],
    first: ServeEvent,
    events: AsyncGenerator[ServeEvent, None],
    end: Callable[[], Awaitable[None]],
) -> AsyncIterator[bytes]:
    """The stream's bytes; ``encode(None)`` gives what is held back once the events end."""
    try:
        yield encode(first)
        async for event in events:
            chunk = encode(event)
            if chunk:
                yield chunk
        yield encode(None) + front.closing()
    except NehandaError as exc:
        failure = failure_for(exc, state.mask)
        log.warning("upstream failed mid-stream: %s", failure.message)
        yield state.mask.mask_bytes(front.error_event(failure))
    except Exception as exc:  # a bug of ours: the stream still ends with an error event
        _log_bug(state, exc, "a stream")
        message = f"nehanda serve failed: {type(exc).__name__}; its log says more"
        yield front.error_event(Failure(500, "api_error", message))
    finally:
        await end()


async def _count_tokens(state: _State, request: Request, front: _Front) -> Response:
    body = await _body(request)
    parsed = parse_anthropic({**body, "max_tokens": 1})
    messages = [[asdict(part) for part in m.parts] for m in parsed.chat.messages]
    tools = [asdict(spec) for spec in parsed.chat.tools]
    counted = estimated_tokens({"messages": messages, "tools": tools})
    return _json({"input_tokens": counted}, state.mask)


async def _models(state: _State, request: Request, front: _Front) -> Response:
    return _json(models_page(await served_names(state.config, state.environ)), state.mask)


async def _model(state: _State, request: Request, front: _Front) -> Response:
    names = await served_names(state.config, state.environ)
    return _json(one_model(request.path_params["model_id"], names), state.mask)


async def _forward(state: _State, request: Request, front: _Front) -> Response:
    """``/v1/completions`` and ``/v1/embeddings``, passed through (``serve.edges``)."""
    body = await _body(request)
    config = state.config.route(require_model(body))
    path = request.url.path.removeprefix("/v1")
    state.places.take(config.base_url, config.name)
    try:
        return await forward(state.upstreams, config, path, body, state.mask)
    finally:
        state.places.give(config.base_url)
