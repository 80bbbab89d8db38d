"""An ACP prompt's content blocks made into the text and images a nehanda turn takes; pure.

Text is the user's; a resource the editor embeds (a file or selection it attached) joins
as a ``<context>`` block naming its URI, a link as the URI itself (the model can Read
it), and an image as an ``ImagePart``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass

from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from nehanda.types import ImagePart

Block = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)


@dataclass(frozen=True)
class Asked:
    text: str
    images: tuple[ImagePart, ...] = ()


def asked(blocks: Sequence[Block]) -> Asked:
    """What the blocks ask; ``ValueError`` naming a block nehanda cannot take."""
    texts: list[str] = []
    images: list[ImagePart] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            texts.append(block.uri)
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if not isinstance(resource, TextResourceContents):
                raise ValueError(f"the resource {resource.uri} is binary; attach it as text")
            texts.append(f'<context uri="{resource.uri}">\n{resource.text}\n</context>')
        elif isinstance(block, ImageContentBlock):
            images.append(_image(block))
        else:
            raise ValueError("nehanda takes no audio; send text or images")
    return Asked("\n".join(texts), tuple(images))


def _image(block: ImageContentBlock) -> ImagePart:
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"an image's data is not base64 ({error})") from error
    return ImagePart(block.mime_type, data, name=block.uri or "an image from the editor")
