"""Known secrets masked in text, whole or arriving in pieces, in the forms they travel in.

A server that echoes a key seldom echoes it as it was sent: it URL-encodes it (a URL in an
error), JSON-escapes it, base64s it (``Basic`` credentials, ``user:key``), or quotes only
a part of it ("…Xy12AbCd3456"). ``SecretMask`` knows each secret's forms: the raw value,
its URL encodings, its JSON escapes, and its base64 in both alphabets at each of the three
byte alignments (so that the key is found inside a longer base64 text too); and it masks
any run of ``MIN_RUN`` or more of a secret's characters in a row, such as its last twelve.
``mask`` replaces each span found by ``MASK``; ``MaskStream`` does the same to text that
arrives in pieces (``feed``, ``flush``), holding back only the end that could still
become a secret, so that a secret cut across two pieces is masked as if it came whole.
Pure; imports nothing of nehanda.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Iterator
from urllib.parse import quote, quote_plus

MASK = "[REDACTED]"
MIN_SECRET = 8  # shorter values are too likely to be ordinary words to mask
MIN_RUN = 12
_BLOCK = MIN_RUN // 2  # every run of MIN_RUN characters holds one whole aligned block

Span = tuple[int, int]


def forms_of(secret: str) -> set[str]:
    """The texts ``secret`` may be sent back as, each of ``MIN_SECRET`` characters or more."""
    forms = {secret}
    for safe in ("", "/"):
        for quoted in (quote(secret, safe=safe), quote_plus(secret, safe=safe)):
            forms |= {quoted, re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), quoted)}
    escaped = json.dumps(secret)[1:-1]
    forms |= {escaped, escaped.replace("/", "\\/"), json.dumps(secret, ensure_ascii=False)[1:-1]}
    raw = secret.encode()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode()
        forms |= {whole, whole.rstrip("=")}
        for skip in range(3):  # the key at each offset of a base64 group in a longer text
            part = raw[skip:]
            forms.add(encode(part[: len(part) - len(part) % 3]).decode())
    return {form for form in forms if len(form) >= MIN_SECRET}


class SecretMask:
    """Finds and masks ``secrets`` (values shorter than ``MIN_SECRET`` are left alone)."""

    def __init__(self, secrets: Iterable[str], mark: str = MASK) -> None:
        self.secrets = tuple(sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len))
        self.mark = mark
        forms = set().union(*(forms_of(s) for s in self.secrets))
        self._forms = tuple(sorted(forms, key=len, reverse=True))
        self._forms_re = _alternation(self._forms)
        self._by_first: dict[str, list[str]] = {}
        for form in self._forms:
            self._by_first.setdefault(form[0], []).append(form)
        # Where each aligned block of each secret long enough to have runs stands in it.
        self._blocks: dict[str, list[tuple[str, int]]] = {}
        for secret in self.secrets:
            if len(secret) > MIN_RUN:
                for at in range(0, len(secret) - _BLOCK + 1, _BLOCK):
                    self._blocks.setdefault(secret[at : at + _BLOCK], []).append((secret, at))
        self._blocks_re = _alternation(tuple(self._blocks))
        # A form found begins with its first MIN_SECRET characters, a run holds a block:
        # text holding none of these (nearly all text) has no secret, found by str.find
        # far sooner than by the patterns' search at each position.
        probes = [form[:MIN_SECRET] for form in self._forms] + list(self._blocks)
        self._probes = tuple(dict.fromkeys(probes))
        self.longest = max((len(f) for f in self._forms), default=0)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def __repr__(self) -> str:  # never the secrets themselves
        return f"SecretMask({len(self.secrets)} secrets)"

    def mask(self, text: str) -> str:
        return _replaced(text, self.spans(text), self.mark) if self.secrets else text

    def mask_bytes(self, data: bytes) -> bytes:
        """UTF-8 ``data`` masked (bytes that are not UTF-8 pass through unchanged)."""
        if not self.secrets:
            return data
        return self.mask(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def stream(self) -> MaskStream:
        return MaskStream(self)

    def spans(self, text: str) -> list[Span]:
        """Where secrets stand in ``text``, overlapping finds merged, in order."""
        if not any(probe in text for probe in self._probes):
            return []
        found = [hit.span() for hit in _every_start(self._forms_re, text)] if self._forms else []
        if self._blocks:
            found += self._runs(text)
        return _merged(found)

    def _runs(self, text: str) -> list[Span]:
        runs: list[Span] = []
        for hit in _every_start(self._blocks_re, text):
            for secret, at in self._blocks[hit[0]]:
                start, end = hit.start(), hit.end()
                while start > 0 and at > 0 and text[start - 1] == secret[at - 1]:
                    start, at = start - 1, at - 1
                offset = at + (end - start)
                while end < len(text) and offset < len(secret) and text[end] == secret[offset]:
                    end, offset = end + 1, offset + 1
                if end - start >= MIN_RUN:
                    runs.append((start, end))
        return runs

    def open_end(self, text: str) -> int:
        """Where the end of ``text`` that may still grow into a secret starts: the earliest
        start of an end that is the beginning of a form, or any part of a secret."""
        cut = len(text)
        size = 1
        while size <= len(text) and any(text[-size:] in s for s in self.secrets):
            cut, size = len(text) - size, size + 1
        # The earliest place from which the rest of text begins a form, if before cut.
        for at in range(max(0, len(text) - self.longest + 1), cut):
            forms = self._by_first.get(text[at])
            if forms is not None and any(form.startswith(text[at:]) for form in forms):
                return at
        return cut


class MaskStream:
    """Text in pieces in, the same text masked out, never a secret's part before it is
    known not to be one; ``flush`` at the end gives what is held back."""

    def __init__(self, mask: SecretMask) -> None:
        self._mask = mask
        self._held = ""

    def feed(self, text: str) -> str:
        if not self._mask:
            return text
        text = self._held + text
        cut = self._mask.open_end(text)
        spans = self._mask.spans(text)
        for start, end in spans:
            if start < cut < end:
                cut = start
        self._held = text[cut:]
        return _replaced(text[:cut], [s for s in spans if s[1] <= cut], self._mask.mark)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return self._mask.mask(held)


def _alternation(literals: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, literals)) or "(?!)")


def _every_start(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Each match of ``pattern``, one at every position where one starts (``finditer``
    would skip those starting inside an earlier one)."""
    hit = pattern.search(text)
    while hit is not None:
        yield hit
        hit = pattern.search(text, hit.start() + 1)


def _merged(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _replaced(text: str, spans: list[Span], mark: str) -> str:
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], mark]
        last = end
    parts.append(text[last:])
    return "".join(parts)
