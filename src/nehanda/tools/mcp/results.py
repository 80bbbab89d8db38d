"""An MCP call's answer as the text a model reads: pure.

Text blocks go back as they are; images, audio and embedded resources become a short
note (a model that reads text cannot use their bytes); a result with no text but
structured content sends that content as JSON. ``isError`` makes an error result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def result_text(content: Iterable[Any], structured: Any) -> str:
    """The text of an MCP result's content blocks (SDK content models, read by ``type``)."""
    parts = [_block_text(block) for block in content]
    if not any(getattr(block, "type", None) == "text" for block in content) and structured:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(part for part in parts if part)
    return text or "(the tool returned no content)"


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        size = len(getattr(block, "data", "") or "") * 3 // 4
        return f"[{kind} {getattr(block, 'mime_type', '') or ''}, about {size} bytes, not shown]"
    if kind == "resource":
        resource = block.resource
        length = len(getattr(resource, "text", None) or getattr(resource, "blob", "") or "")
        return f"[embedded resource {resource.uri}, {length} characters, not shown]"
    if kind == "resource_link":
        return f"[resource link {block.uri}]"
    return f"[{kind or 'unknown'} content, not shown]"
