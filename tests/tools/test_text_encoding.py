"""text_encoding: which encoding a file's bytes are in, and back to the very same bytes."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nehanda.tools.text_encoding import (
    LATIN1,
    SNIFF_BYTES,
    UTF8,
    UTF8_BOM,
    UTF16_BE,
    UTF16_LE,
    UTF32_BE,
    UTF32_LE,
    NotText,
    TextEncoding,
    UnencodableText,
    decode_text,
    encode_text,
)

MARKED = (UTF8_BOM, UTF16_LE, UTF16_BE, UTF32_LE, UTF32_BE)


@pytest.mark.parametrize(
    ("raw", "text", "encoding"),
    [
        (b"", "", UTF8),
        (b"plain\n", "plain\n", UTF8),
        ("café\n".encode(), "café\n", UTF8),
        (codecs.BOM_UTF8 + "café".encode(), "café", UTF8_BOM),
        (codecs.BOM_UTF16_LE + "é\r\n".encode("utf-16-le"), "é\r\n", UTF16_LE),
        (codecs.BOM_UTF16_BE + "é\r\n".encode("utf-16-be"), "é\r\n", UTF16_BE),
        (codecs.BOM_UTF32_LE + "é😀".encode("utf-32-le"), "é😀", UTF32_LE),
        (codecs.BOM_UTF32_BE + "é😀".encode("utf-32-be"), "é😀", UTF32_BE),
        # A UTF-16 LE mark then U+0000 looks like a UTF-32 LE mark, but is no UTF-32.
        (codecs.BOM_UTF16_LE + "\0x".encode("utf-16-le"), "\0x", UTF16_LE),
        (b"caf\xe9\n", "café\n", LATIN1),
        (b"\x93cp1252 quotes\x94", "\x93cp1252 quotes\x94", LATIN1),
        ("café".encode() + b" \xff", "cafÃ© ÿ", LATIN1),
        (b"cut short \xc3", "cut short Ã", LATIN1),
        (codecs.BOM_UTF8 + b"\xe9", "ï»¿é", LATIN1),
        (b"x" * SNIFF_BYTES + b"\0", "x" * SNIFF_BYTES + "\0", UTF8),
    ],
)
def test_decode_finds_the_encoding(raw: bytes, text: str, encoding: TextEncoding) -> None:
    assert decode_text(raw) == (text, encoding)
    assert encode_text(text, encoding) == raw


@pytest.mark.parametrize(
    "raw",
    [
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        b"PK\x03\x04\x14\0\0\0",
        b"text\0with a NUL",
        "UTF-16 without a mark".encode("utf-16-le"),
        codecs.BOM_UTF16_LE + b"a\0b",  # an odd length
        codecs.BOM_UTF16_LE + b"\0\xd8\0\0",  # a lone surrogate
    ],
)
def test_binary_data_is_not_text(raw: bytes) -> None:
    with pytest.raises(NotText):
        decode_text(raw)


@pytest.mark.parametrize(
    ("text", "encoding", "raw"),
    [
        ("é\n", LATIN1, b"\xe9\n"),
        ("é", UTF8, b"\xc3\xa9"),
        ("é", UTF8_BOM, b"\xef\xbb\xbf\xc3\xa9"),
        ("é", UTF16_BE, b"\xfe\xff\x00\xe9"),
        ("é", UTF32_LE, b"\xff\xfe\x00\x00\xe9\x00\x00\x00"),
    ],
)
def test_encode_puts_the_mark_first(text: str, encoding: TextEncoding, raw: bytes) -> None:
    assert encode_text(text, encoding) == raw


@pytest.mark.parametrize(
    ("text", "encoding", "message"),
    [
        ("é then 😀", LATIN1, "'😀' (U+1F600) cannot be written in Latin-1"),
        ("ok \u20ac", LATIN1, "'€' (U+20AC) cannot be written in Latin-1"),
        ("lone \ud800", UTF8, "'\\ud800' (U+D800) cannot be written in UTF-8"),
        ("lone \udc00", UTF16_LE, "'\\udc00' (U+DC00) cannot be written in UTF-16 LE"),
    ],
)
def test_encode_names_the_character_and_the_encoding(
    text: str, encoding: TextEncoding, message: str
) -> None:
    with pytest.raises(UnencodableText) as caught:
        encode_text(text, encoding)
    assert str(caught.value) == message
    assert caught.value.encoding == encoding


def _round_trips(raw: bytes) -> None:
    try:
        text, encoding = decode_text(raw)
    except NotText:
        return
    assert encode_text(text, encoding) == raw


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_that_decode_encode_back_to_themselves(raw: bytes) -> None:
    _round_trips(raw)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from([e.bom for e in MARKED]), st.binary(max_size=64))
def test_bytes_behind_a_mark_that_decode_encode_back_to_themselves(bom: bytes, body: bytes) -> None:
    _round_trips(bom + body)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64).map(lambda raw: raw.replace(b"\0", b"")))
def test_bytes_without_nul_are_always_text(raw: bytes) -> None:
    text, encoding = decode_text(raw)
    assert encoding in (UTF8, UTF8_BOM, LATIN1) or raw.startswith(encoding.bom)
    assert encode_text(text, encoding) == raw


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(MARKED), st.text(max_size=32).filter(lambda t: not t.startswith("\0")))
def test_text_behind_a_mark_decodes_as_written(encoding: TextEncoding, text: str) -> None:
    assert decode_text(encode_text(text, encoding)) == (text, encoding)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=32).filter(lambda t: "\0" not in t and not t.startswith("\ufeff")))
def test_utf8_text_decodes_as_utf8(text: str) -> None:
    assert decode_text(encode_text(text, UTF8)) == (text, UTF8)
