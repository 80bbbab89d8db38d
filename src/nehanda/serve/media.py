"""Images and documents in a client's request, read into ``ImagePart`` and ``DocumentPart``.

Both protocols' forms are read, and the Responses API's: OpenAI ``image_url`` parts
(a data URL or an address), ``file`` parts and ``input_image``/``input_file``;
Anthropic ``image`` blocks (base64 or ``url``) and ``document`` blocks (base64, plain
text, ``content`` blocks or ``url``). Bytes are decoded here and an image's kind is read
from them, not from what the client claims; the adapters then send each part in their
upstream's own form. Pure.
"""

from __future__ import annotations

import base64
import binascii

from nehanda.serve.wire import BadRequest, require_dict
from nehanda.types import DocumentPart, ImagePart, JsonObject, TextPart, ToolResult

MediaPart = TextPart | ImagePart | DocumentPart


def content_parts(content: object, where: str) -> tuple[MediaPart, ...]:
    """A message's content as parts: a string, or a list of parts or blocks."""
    if content is None or content == "":
        return ()
    if isinstance(content, str):
        return (TextPart(content),)
    if not isinstance(content, list):
        raise BadRequest(f"{where}: content must be a string or a list of parts")
    found = (content_part(raw, f"{where}[{i}]") for i, raw in enumerate(content))
    return tuple(part for part in found if part is not None)


def content_part(raw: object, where: str) -> MediaPart | None:
    """One part or block; ``None`` for kinds that carry nothing for the model."""
    part = require_dict(raw, where)
    kind = part.get("type")
    if kind in ("text", "input_text"):
        text = part.get("text")
        return TextPart(text) if isinstance(text, str) and text else None
    if kind in ("image_url", "input_image"):
        url = part.get("image_url")
        url = url.get("url") if isinstance(url, dict) else url
        if not isinstance(url, str) or not url:
            raise BadRequest(f"{where}: an {kind} part needs its url")
        return image_at(url, where)
    if kind == "image":
        return _anthropic_image(require_dict(part.get("source"), f"{where}.source"), where)
    if kind == "document":
        return _anthropic_document(part, where)
    if kind in ("file", "input_file"):
        file = part.get("file") if kind == "file" else part
        return _file(require_dict(file, f"{where}.file"), where)
    return None


def tool_result(call_id: str, content: object, is_error: bool, where: str) -> ToolResult:
    """A call's result: its text, and the images it holds, which travel as images."""
    parts = content_parts(content, where)
    text = "".join(_words(p) for p in parts if not isinstance(p, ImagePart))
    images = tuple(p for p in parts if isinstance(p, ImagePart))
    return ToolResult(call_id, text, is_error, images=images)


def _words(part: TextPart | DocumentPart) -> str:
    if isinstance(part, TextPart) or part.text is not None:
        return part.text or ""
    return part.note


def image_at(url: str, where: str) -> ImagePart:
    """The image a data URL holds, or one the upstream fetches from its address."""
    if not url.startswith("data:"):
        if not url.startswith(("http://", "https://")):
            raise BadRequest(f"{where}: an image url must be a data: URL or an http(s) address")
        # Its kind is for the server that fetches it to read.
        return ImagePart("", url=url, name=url)
    return _image(_data_url(url, where), where)


def _anthropic_image(source: JsonObject, where: str) -> ImagePart:
    if source.get("type") == "url" and isinstance(source.get("url"), str):
        return image_at(str(source["url"]), where)
    if source.get("type") == "base64":
        return _image(_base64(source.get("data"), where), where)
    raise BadRequest(f"{where}: an image source must be base64 data or a url")


def _anthropic_document(block: JsonObject, where: str) -> DocumentPart:
    source = require_dict(block.get("source"), f"{where}.source")
    title = _string(block.get("title"))
    kind, media_type = source.get("type"), str(source.get("media_type") or "application/pdf")
    if kind == "text" and isinstance(source.get("data"), str):
        return DocumentPart("text/plain", text=source["data"], title=title)
    if kind == "content" and isinstance(source.get("content"), list):
        texts = [p.text for p in content_parts(source["content"], where) if isinstance(p, TextPart)]
        return DocumentPart("text/plain", text="\n".join(texts), title=title)
    if kind == "base64":
        return DocumentPart(media_type, data=_base64(source.get("data"), where), title=title)
    if kind == "url" and isinstance(source.get("url"), str):
        return DocumentPart(media_type, url=source["url"], title=title or source["url"])
    raise BadRequest(f"{where}: a document source must be base64, text, content or a url")


def _file(file: JsonObject, where: str) -> DocumentPart | ImagePart:
    data = file.get("file_data")
    if not isinstance(data, str) or not data.startswith("data:"):
        raise BadRequest(f"{where}: a file part needs its file_data as a data: URL")
    raw = _data_url(data, where)
    name = _string(file.get("filename"))
    if raw.startswith(b"%PDF"):
        return DocumentPart("application/pdf", data=raw, title=name)
    return _image(raw, where)


def _image(data: bytes, where: str) -> ImagePart:
    try:
        return ImagePart.of(data)
    except ValueError as exc:
        raise BadRequest(f"{where}: {exc}") from None


def _data_url(url: str, where: str) -> bytes:
    header, comma, payload = url.partition(",")
    if not comma or not header.endswith(";base64"):
        raise BadRequest(f"{where}: a data: URL must be base64 (data:TYPE;base64,...)")
    return _base64(payload, where)


def _base64(data: object, where: str) -> bytes:
    if not isinstance(data, str):
        raise BadRequest(f"{where}: the data must be base64 text")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest(f"{where}: the data is not valid base64") from None


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""
