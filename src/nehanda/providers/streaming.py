"""The loop every adapter shares: a response body through a decoder and a stream state.

The decoder (``sse.SSEDecoder``, ``sse.NDJSONDecoder``) turns bytes into items; the
adapter's sans-I/O state turns each item into events and says, in ``finish``, whether
the body ended where it should. Once the state is ``done`` the rest of the body is
still read, undecoded, as OpenAI's own SDK does, so that the connection goes back to
the pool instead of being closed. The retries of the request (``Retrying``) come first,
so that a person sees why nothing is happening yet.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from typing import Protocol, TypeVar

from nehanda.events import Retrying, StreamEvent

Item = TypeVar("Item")
Item_contra = TypeVar("Item_contra", contravariant=True)


class Decoder(Protocol[Item]):
    def feed(self, data: bytes) -> list[Item]: ...

    def flush(self) -> list[Item]: ...


class StreamState(Protocol[Item_contra]):
    @property
    def done(self) -> bool: ...

    def handle(self, item: Item_contra) -> list[StreamEvent]: ...

    def finish(self) -> list[StreamEvent]: ...


class Opening(Protocol):
    """A request to send (``providers.http.Exchange``): its retries, then its body."""

    def send(self) -> AsyncIterator[Retrying]: ...

    async def __aenter__(self) -> AsyncIterator[bytes]: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


async def stream_events(
    opened: Opening,
    decoder: Decoder[Item],
    state: StreamState[Item],
    opening: Callable[[], Iterable[StreamEvent]] = tuple,
) -> AsyncIterator[StreamEvent]:
    """The events of one response; ``opening`` gives those due once the body has begun."""
    async for retrying in opened.send():
        yield retrying
    async with opened as body:
        for event in opening():
            yield event
        async for data in body:
            if state.done:
                continue
            for item in decoder.feed(data):
                for event in state.handle(item):
                    yield event
    for item in decoder.flush():
        for event in state.handle(item):
            yield event
    for event in state.finish():
        yield event
