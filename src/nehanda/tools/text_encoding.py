"""Which encoding a file's bytes are text in, and the way back to exactly those bytes.

The encodings are tried in order, the first that decodes the whole file winning:

1. a byte order mark names one: UTF-32 or UTF-16 (little or big endian), or UTF-8;
2. without one, a NUL byte in the first ``SNIFF_BYTES`` bytes means a binary file;
3. valid UTF-8 is UTF-8;
4. anything else is Latin-1 (ISO-8859-1).

Latin-1 maps every byte to exactly one character and back, so it decodes any bytes
and ``encode_text`` returns them unchanged: a legacy file in cp1252 or another
single-byte encoding shows its ASCII as is (bytes above 127 may show as other
characters) and an edit never changes a byte outside the text it replaces.
Every decoding here is strict, and each encoding has a single spelling of each
character, so for any bytes that decode ``encode_text(*decode_text(raw)) == raw``.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

# As much of the start of a file as is read to tell text from binary.
SNIFF_BYTES = 8192


@dataclass(frozen=True)
class TextEncoding:
    name: str
    codec: str
    bom: bytes = b""

    @property
    def is_utf8(self) -> bool:
        """UTF-8, with or without a byte order mark: what the tools need not mention."""
        return self.codec == "utf-8"


UTF8 = TextEncoding("UTF-8", "utf-8")
UTF8_BOM = TextEncoding("UTF-8 with BOM", "utf-8", codecs.BOM_UTF8)
UTF16_LE = TextEncoding("UTF-16 LE", "utf-16-le", codecs.BOM_UTF16_LE)
UTF16_BE = TextEncoding("UTF-16 BE", "utf-16-be", codecs.BOM_UTF16_BE)
UTF32_LE = TextEncoding("UTF-32 LE", "utf-32-le", codecs.BOM_UTF32_LE)
UTF32_BE = TextEncoding("UTF-32 BE", "utf-32-be", codecs.BOM_UTF32_BE)
LATIN1 = TextEncoding("Latin-1", "latin-1")

# UTF-32 first: its little-endian mark begins with UTF-16's.
_MARKED = (UTF32_LE, UTF32_BE, UTF8_BOM, UTF16_LE, UTF16_BE)


class NotText(ValueError):
    """The bytes are binary: no encoding here decodes them."""

    def __init__(self) -> None:
        super().__init__("binary data, not text")


class UnencodableText(ValueError):
    """The text has a character the file's encoding has no bytes for."""

    def __init__(self, character: str, encoding: TextEncoding) -> None:
        self.character = f"{character!r} (U+{ord(character):04X})"
        self.encoding = encoding
        super().__init__(f"{self.character} cannot be written in {encoding.name}")


def candidates(head: bytes) -> list[TextEncoding]:
    """The encodings a file that starts with ``head`` may be in, in the order to try them.

    Empty for a binary file. Latin-1, when present, is last and decodes anything.
    """
    marked = [encoding for encoding in _MARKED if head.startswith(encoding.bom)]
    if b"\0" in head[:SNIFF_BYTES]:
        return marked
    return [*marked, UTF8, LATIN1]


def decode_text(raw: bytes) -> tuple[str, TextEncoding]:
    """The text in ``raw`` (without its byte order mark) and the encoding it was in.

    Raises ``NotText`` for binary data.
    """
    for encoding in candidates(raw[:SNIFF_BYTES]):
        try:
            return raw[len(encoding.bom) :].decode(encoding.codec), encoding
        except UnicodeDecodeError:
            continue
    raise NotText


def encode_text(text: str, encoding: TextEncoding) -> bytes:
    """``text`` as the bytes of a file in ``encoding``, its byte order mark first.

    Raises ``UnencodableText``, naming the first such character, when ``encoding``
    cannot hold ``text``.
    """
    try:
        return encoding.bom + text.encode(encoding.codec)
    except UnicodeEncodeError as error:
        raise UnencodableText(error.object[error.start], encoding) from None
