"""Whether a model sees images, and the request a model that cannot see them gets.

When nothing says a model cannot see images they are sent: vLLM and most
OpenAI-compatible servers have no vision flag, and one that cannot see says so in its
error, which ``ToolCalling`` learns from. What says so, first to last: the provider's
``vision`` setting, an earlier refusal remembered (``ToolSupportCache.blind``), what
the provider knows of the model (``Capabilities.vision``: Ollama's ``/api/show``, the
model families in ``config.profiles``). A model that cannot see gets a note in place of
each image (``ImagePart.note``); pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from nehanda.providers.base import ChatRequest
from nehanda.types import ImagePart, Message, Part, TextPart, ToolResult


def has_images(messages: Sequence[Message]) -> bool:
    return any(message.images for message in messages)


def without_images(request: ChatRequest) -> ChatRequest:
    """``request`` with a note in place of every image, its results' included."""
    return replace(request, messages=tuple(map(_blind_message, request.messages)))


def _blind_message(message: Message) -> Message:
    if not message.images:
        return message
    return Message(message.role, tuple(map(_blind_part, message.parts)))


def _blind_part(part: Part) -> Part:
    if isinstance(part, ImagePart):
        return TextPart(part.note)
    if isinstance(part, ToolResult) and part.images:
        notes = "\n".join(image.note for image in part.images)
        content = f"{part.content}\n{notes}" if part.content else notes
        return replace(part, content=content, images=())
    return part


def withheld_message(model: str, reason: str = "") -> str:
    """What the user is told, once, when the model gets notes instead of images."""
    why = f" ({reason})" if reason else ""
    return f"{model or 'the model'} cannot see images{why}; it gets a note in their place"
