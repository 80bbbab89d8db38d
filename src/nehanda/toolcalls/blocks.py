"""One call block, read incrementally from just after its opener to its end.

A ``Block`` goes through a prelude (what sits before the JSON), one or more values
(JSON, or Qwen3-Coder XML elements) and an after-part that looks for the closer.
It ends DONE, with the calls and problems it ``found``, or REJECTED when the opener
turned out to be prose (a mention, a fence holding something else), in which case
its ``raw`` text goes back to the prose. A value ends where its JSON ends, so a
closer inside an argument string is content.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, Protocol

from nehanda.toolcalls import messages, prelude
from nehanda.toolcalls.arrays import complete_items
from nehanda.toolcalls.dialects import BARE, FENCE, LINE, Dialect
from nehanda.toolcalls.jsonvalue import (
    CLOSED,
    MORE,
    Failure,
    ValueScanner,
    decode,
    decode_at,
    sniff_name,
)
from nehanda.toolcalls.ledger import REASONING
from nehanda.toolcalls.repair import Repaired, repair
from nehanda.toolcalls.shapes import Found, calls_in, failure_found
from nehanda.toolcalls.xmlcalls import DONE as XML_DONE
from nehanda.toolcalls.xmlcalls import REJECT as XML_REJECT
from nehanda.toolcalls.xmlcalls import XmlReader

RUNNING, DONE, REJECTED = 0, 1, 2
_PRELUDE, _VALUE, _XML, _AFTER = 0, 1, 2, 3

_AFTER_LIMIT = 256
_SNIFF_CHARS = 600
# One token at a time: a closer may be among these tags, and closers are checked first.
_STRONG_SKIP = re.compile(r"\s+|</(?:tool_call|tool_calls|arguments|function_call)>|```|[,;}\]]")
_WEAK_SKIP = re.compile(r"\s+")
# A fence may hold the call's own tags around its JSON.
_FENCE_SKIP = re.compile(r"\s+|</(?:tool_call|function_call)>")
_AFTER_LITERALS = ("</tool_call>", "</tool_calls>", "</arguments>", "</function_call>", "```")
_WS = re.compile(r"\s*")
_BLANKS = re.compile(r"[ \t]*")
_NO_OPENER = (BARE, LINE)


class Host(Protocol):
    """What a block needs from the scanner that drives it."""

    known: Collection[str] | None
    schemas: Mapping[str, Mapping[str, Any]]
    markup: frozenset[str]

    @property
    def reasoning_closers(self) -> tuple[str, ...]:
        """The words that end a reasoning section."""

    @property
    def call_delimiters(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The closers and the openers of delimited JSON blocks."""

    def announce(self, name: str) -> int | None:
        """Emit ToolUseStart for ``name`` now if that is safe; its index, or None."""

    def may_cut(self) -> bool:
        """Whether a block may still end at a closer its structure ran past (once)."""

    def may_decode(self, size: int) -> bool:
        """Whether to try decoding a value in a ``size``-character buffer before it is known
        to be complete (a failed attempt costs time in proportion to ``size``)."""


def _head(chunks: list[str], size: int) -> str:
    out, total = [], 0
    for chunk in chunks:
        out.append(chunk)
        total += len(chunk)
        if total >= size:
            break
    return "".join(out)[:size]


class Block:
    """The state of one block being read; driven by the scanner through ``step``."""

    def __init__(self, dialect: Dialect, host: Host, opener: str, ctx: int) -> None:
        self.dialect = dialect
        self.host = host
        self.ctx = ctx
        self.raw: list[str] = [opener]
        self.found: list[Found] = []
        self.status = RUNNING
        self.unclosed = False
        self.fence_after = False
        self.leftover = ""
        self.spoils_next = False
        self.unknown_only = False
        self.name: str | None = None
        self.index: int | None = None
        self.chunks: list[str] = []
        self.value: ValueScanner | None = None
        self.sniffed = dialect.weak
        self.xml: XmlReader | None = None
        self.phase = _VALUE if dialect in _NO_OPENER else _PRELUDE
        self._handlers = (self._prelude, self._value, self._xml, self._after)
        if dialect.element:
            self._start_xml(strict=True)

    def step(self, buf: str, pos: int, final: bool) -> int:
        """Consume what can be decided from ``buf[pos:]``; returns the new position."""
        handlers = self._handlers
        while self.status == RUNNING:
            phase = self.phase
            new = handlers[phase](buf, pos, final)
            if new == pos and self.phase == phase and self.status == RUNNING:
                break
            pos = new
        return pos

    # -- prelude -------------------------------------------------------------

    def _prelude(self, buf: str, pos: int, final: bool) -> int:
        if self.dialect is FENCE:
            return self._fence_prelude(buf, pos, final)
        start = prelude.read_prelude(buf, pos, final, self.dialect, self.host.known)
        if start == prelude.NEED:
            return pos
        if start == prelude.REJECT:
            self.status = REJECTED
            return pos
        if not isinstance(start, prelude.Start):
            self.raw.append(buf[pos:])
            self._done([Found(None, {}, ("truncated", messages.truncated(None)))])
            return len(buf)
        self.raw.append(buf[pos : start.at])
        if start.xml:
            self.raw.append("<function=")
            self._start_xml(strict=False)
            return start.at + len("<function=")
        self.name = start.name
        if self.name is not None:
            self.index = self.host.announce(self.name)
        self.phase = _VALUE
        return start.at

    def _fence_prelude(self, buf: str, pos: int, final: bool) -> int:
        at = prelude.fence_start(buf, pos, final)
        if at == prelude.NEED:
            return pos
        if not isinstance(at, int):
            return self._reject(pos, fence=True)
        self.raw.append(buf[pos:at])
        self.phase = _VALUE
        return at

    def _reject_weak(self) -> None:
        self._reject(0, fence=self.dialect is FENCE)

    def _reject(self, pos: int, *, fence: bool = False) -> int:
        self.status = REJECTED
        self.fence_after = fence
        return pos

    # -- JSON values ---------------------------------------------------------

    def _value(self, buf: str, pos: int, final: bool) -> int:
        if self.value is None:
            if self.dialect in _NO_OPENER and not prelude.WEAK_GATE.match(buf, pos):
                return self._reject(pos)
            fast = decode_at(buf, pos) if self.host.may_decode(len(buf)) else None
            if fast is not None:
                self.raw.append(buf[pos : fast[1]])
                self._settle(fast[0], "")
                return fast[1]
            self.value = ValueScanner(self.dialect.closers)
        status, at = self.value.scan(buf, pos, final)
        if at > pos:
            self.raw.append(buf[pos:at])
            self.chunks.append(buf[pos:at])
        if status == MORE:
            if final:
                self.raw.append(buf[at:])
                self.chunks.append(buf[at:])
                if not self._cut_at_closer():
                    self._truncated()
                return len(buf)
            self._sniff()
            return at
        text = "".join(self.chunks)
        self.chunks, self.value = [], None
        if status == CLOSED:
            self._settle(decode(text), text)
            return at
        self._settle(Failure("invalid_json", "the block ended inside its JSON"), text)
        if self.status == REJECTED:
            return at
        closer = next(c for c in self.dialect.closers if buf.startswith(c, at))
        self.raw.append(closer)
        self._done()
        return at + len(closer)

    def _cut_at_closer(self) -> bool:
        """The output ended inside the value, yet a closer follows its start.

        A stray quote (``"say "hi"``) makes the structural scan run past the block's
        closer to the end. Then the first closer after the value's start ends the
        value after all, and the text after it is handed back as ``leftover``.
        """
        if self.dialect.weak or not self.host.may_cut():
            return False
        text = "".join(self.chunks)
        hits = [(text.find(c), c) for c in self.dialect.closers]
        found = [(at, closer) for at, closer in hits if at >= 0]
        if not found:
            return False
        at, closer = min(found)
        # Only where the model closed its value right before the closer; otherwise the
        # closer is likely text inside a string that the output was cut in.
        if not text[:at].rstrip().endswith(("}", "]")):
            return False
        del self.raw[len(self.raw) - len(self.chunks) :]
        self.raw += [text[:at], closer]
        self.chunks, self.value = [], None
        self._settle(Failure("invalid_json", "unbalanced quotes or brackets"), text[:at])
        self._done()
        self.leftover = text[at + len(closer) :]
        return True

    def _sniff(self) -> None:
        if self.sniffed or self.name is not None:
            return
        head = _head(self.chunks, _SNIFF_CHARS)
        name = sniff_name(head)
        if name is not None or len(head) >= _SNIFF_CHARS:
            self.sniffed = True
            if name is not None:
                self.index = self.host.announce(name)

    def _truncated(self) -> None:
        if self._whole_items():
            return
        name = self.name or sniff_name(_head(self.chunks, _SNIFF_CHARS))
        known = self.host.known
        if self.dialect.weak and (name is None or (known is not None and name not in known)):
            self._reject_weak()
            return
        self._done([Found(name, {}, ("truncated", messages.truncated(name)), index=self.index)])

    def _whole_items(self) -> bool:
        """An array cut only before its final ``]``: every item is whole, so they run."""
        text = "".join(self.chunks)
        start = len(text) - len(text.lstrip())
        if self.name is not None or not text.startswith("[", start):
            return False
        items = complete_items(text, start)
        if items is None:
            return False
        calls = calls_in(items[0], self.host.known, loose=not self.dialect.weak)
        if not calls or (self.dialect.weak and not _names_a_known_tool(calls)):
            return False
        for call in calls:
            if call.problem is None:
                call.repaired = ("a missing closing bracket",)
        self.phase = _AFTER
        self._add(calls)
        self._done()
        return True

    def _settle(self, value: Any, text: str) -> None:
        """Turn one finished value into calls or problems (or reject a weak block)."""
        self.phase = _AFTER
        weak = self.dialect.weak
        if not isinstance(value, Failure):
            calls = calls_in(value, self.host.known, name=self.name, loose=not weak)
            if calls is not None and (not weak or _names_a_known_tool(calls)):
                self._add(calls)
            elif calls is not None and self.dialect is BARE:
                # Prose, unless an orphan closer and the next call's opener follow it.
                self._add(calls)
                self.unknown_only = True
            elif weak:
                self._reject_weak()
            else:
                self._add([failure_found(self.name, Failure("invalid_json", "no tool name"))])
            return
        name = self.name or sniff_name(text)
        known = self.host.known
        if weak and (name is None or (known is not None and name not in known)):
            self._reject_weak()
            return
        if not weak and self._unwrapped(text):
            return
        if value.kind != "duplicate_key" and value.repairable and self.dialect.repair:
            fixed = repair(text)
            if isinstance(fixed, Repaired):
                loose = not weak and not fixed.by_json_repair
                calls = calls_in(fixed.value, known, name=self.name, loose=loose)
                if calls:
                    for call in calls:
                        call.repaired = fixed.notes if call.problem is None else None
                    self._add(calls)
                    return
            else:
                value = fixed
        self._add([failure_found(name, value)])

    def _unwrapped(self, text: str) -> bool:
        """A call inside one extra pair of braces (``{{"name": ...}}}``), in a delimited
        block: the inner object is the call."""
        outer = text.strip()
        inner = outer[1:-1].strip()
        if not (outer.startswith("{{") and inner.startswith("{") and inner.endswith("}")):
            return False
        value = decode(inner)
        calls = calls_in(value, self.host.known, name=self.name, loose=True)
        if isinstance(value, Failure) or not calls:
            return False
        for call in calls:
            if call.problem is None:
                call.repaired = ("an extra pair of braces",)
        self._add(calls)
        return True

    def _add(self, calls: list[Found]) -> None:
        if self.index is not None:
            calls[0].index = self.index
            self.index = None
        self.sniffed = self.dialect.weak
        self.found.extend(calls)

    # -- Qwen3-Coder XML -----------------------------------------------------

    def _start_xml(self, *, strict: bool) -> None:
        closers = self.dialect.closers
        announce = (lambda name: None) if self.dialect.weak else self.host.announce
        self.xml = XmlReader(self.raw, announce, strict=strict, closers=closers)
        self.phase = _XML

    def _xml(self, buf: str, pos: int, final: bool) -> int:
        assert self.xml is not None
        status, new = self.xml.read(buf, pos, final)
        if status == XML_REJECT:
            if final and not self.xml.strict:
                self.raw.append(buf[new:])
                self._done([self.xml.truncated()])
                return len(buf)
            return self._reject(new)
        if status == XML_DONE:
            self.found.append(self.xml.found(self.host.known, self.host.schemas))
            spill = self.xml.spill
            self.xml = None
            self.phase = _AFTER
            if spill:
                return self._spill(spill, new)
        elif final and new == pos:
            self.raw.append(buf[new:])
            self._done([self.xml.truncated()])
            return len(buf)
        return new

    def _spill(self, spill: str, pos: int) -> int:
        """The output ended after a forgotten ``</parameter>``: the element ended early.

        What followed it was read as part of the value; the block ends at its closer
        (if next) and the rest goes back to the prose as ``leftover``.
        """
        if not self.host.may_cut():
            self._done()  # once per output, or the re-reading could add up (see _run)
            return pos
        raw = "".join(self.raw)
        self.raw = [raw[: len(raw) - len(spill)]]
        at = _WS.match(spill).end()  # type: ignore[union-attr]
        closer = next((c for c in self.dialect.closers if spill.startswith(c, at)), None)
        if closer is not None:
            self.raw.append(spill[: at + len(closer)])
            spill = spill[at + len(closer) :]
        self._done()
        self.leftover = spill
        return pos

    # -- after a value -------------------------------------------------------

    def _after(self, buf: str, pos: int, final: bool) -> int:
        if self.dialect is BARE:
            return self._after_bare(buf, pos, final)
        if self.dialect.alone:
            return self._after_line(buf, pos, final)
        i, n = pos, len(buf)
        skip = (
            _STRONG_SKIP
            if not self.dialect.weak
            else _FENCE_SKIP
            if self.dialect is FENCE
            else _WEAK_SKIP
        )
        while i - pos <= _AFTER_LIMIT:
            if i >= n:
                if final:
                    self.unclosed = self.dialect.closer_required
                    self._done()
                return pos
            closer = next((c for c in self.dialect.closers if buf.startswith(c, i)), None)
            if closer is not None:
                self.raw.append(buf[pos : i + len(closer)])
                self._done()
                return i + len(closer)
            nxt = self._next_value(buf, pos, i, final)
            if nxt is not None:
                return nxt
            m = skip.match(buf, i)
            if m is not None:
                i = m.end()
                continue
            literals = self.dialect.closers + _AFTER_LITERALS + ("<function=",)
            if not final and prelude.partial_literal(buf, i, literals):
                return pos
            break
        return self._end_open(pos)

    def _skip_markup(self, buf: str, pos: int, final: bool, blanks: re.Pattern[str]) -> int | None:
        """Past blanks and template markup (``<|eot_id|>``); None while a marker may be cut.

        A stop word (a reasoning closer, see ``_stops``) is never skipped.
        """
        markup = self.host.markup
        stops = self._stops()
        while True:
            at = blanks.match(buf, pos).end()  # type: ignore[union-attr]
            if stops and buf.startswith(stops, at):
                return at
            word = next((w for w in markup if buf.startswith(w, at)), None)
            if word is None:
                if not final and prelude.partial_literal(buf, at, (*markup, *stops)):
                    return None
                return at
            pos = at + len(word)

    def _stops(self) -> tuple[str, ...]:
        """A bare value inside reasoning is all of the section: its closer ends the value."""
        return self.host.reasoning_closers if self.ctx == REASONING else ()

    def _after_bare(self, buf: str, pos: int, final: bool) -> int:
        """A bare message holds nothing but its values, Llama 3's ``{...}; {...}`` too."""
        skipped = self._skip_markup(buf, pos, final, _WS)
        if skipped is None:
            return pos
        at = skipped
        stops = self._stops()
        if stops and buf.startswith(stops, at):
            self.raw.append(buf[pos:at])
            if self.unknown_only:
                return self._reject(at)
            self._done()
            return at  # the scanner reads the closer
        # Llama 3's ``{...}; {...}``, or calls one after another (ollama-ai-provider#11).
        after_call = self.found and all(f.problem is None for f in self.found)
        if at < len(buf) and (buf[at] == ";" or (buf[at] == "{" and after_call)):
            nxt = _WS.match(buf, at + (buf[at] == ";")).end()  # type: ignore[union-attr]
            if nxt >= len(buf) and not final:
                return pos
            ok = prelude.gate(buf, nxt, final, prelude.WEAK_GATE)
            if ok is None:
                return pos
            if ok:
                self.raw.append(buf[pos:nxt])
                self.phase = _VALUE
                return nxt
        if at < len(buf) and self.found:
            # Right before the next call's opener: this call's opener was eaten. Only a
            # readable call to a known tool runs; else neither does (the next is spoilt).
            clean = all(f.problem is None for f in self.found)
            nxt = self._before_opener(buf, at, final, closer_required=not clean)
            if nxt is None:
                return pos
            if nxt >= 0:
                self.spoils_next = not clean
                self.raw.append(buf[pos:nxt])
                self._done()
                return nxt
        self.raw.append(buf[pos:at])
        if at < len(buf) or (final and self.unknown_only):
            return self._reject(at)
        if final:
            self._done()
        return at

    def _before_opener(self, buf: str, i: int, final: bool, *, closer_required: bool) -> int | None:
        """Where a block opener starts at ``i``, past one orphan closer and blanks: its
        index, -1 if none does, None while the text so far may still become one."""
        closers, openers = self.host.call_delimiters
        closer = next((c for c in closers if buf.startswith(c, i)), None)
        if closer is not None:
            i = _WS.match(buf, i + len(closer)).end()  # type: ignore[union-attr]
        elif not final and prelude.partial_literal(buf, i, closers):
            return None
        elif closer_required:
            return -1
        if any(buf.startswith(opener, i) for opener in openers):
            return i
        if not final and prelude.partial_literal(buf, i, openers):
            return None
        return -1

    def _after_line(self, buf: str, pos: int, final: bool) -> int:
        """A value alone on its line: only blanks may follow it before the line ends."""
        skipped = self._skip_markup(buf, pos, final, _BLANKS)
        if skipped is None:
            return pos
        at = skipped
        if at >= len(buf):
            if final:
                self.raw.append(buf[pos:at])
                self._done()
                return at
            return pos
        if buf[at] not in "\r\n":
            return self._reject(pos)
        self.raw.append(buf[pos:at])
        self._done()
        return at

    def _next_value(self, buf: str, pos: int, i: int, final: bool) -> int | None:
        """If another value of the same block starts at ``i``, enter it; else None."""
        if not self.dialect.multi:
            return None
        if self.dialect.xml and buf.startswith("<function=", i):
            self.raw.append(buf[pos : i + len("<function=")])
            self._start_xml(strict=False)
            return i + len("<function=")
        if buf[i] not in "{[" or self.name is not None:
            return None
        ok = prelude.gate(buf, i, final, prelude.STRONG_GATE)
        if ok is None:
            return pos
        if not ok:
            return None
        self.raw.append(buf[pos:i])
        self.phase = _VALUE
        return i

    def _end_open(self, pos: int) -> int:
        """Text that is neither a closer nor another value follows: the block ends."""
        if self.dialect is FENCE:
            return self._reject(pos, fence=True)
        self._done()
        return pos

    def _done(self, found: list[Found] | None = None) -> None:
        if found:
            self.found.extend(found)
        self.status = DONE


def _names_a_known_tool(calls: list[Found]) -> bool:
    return any(call.problem is None or call.problem[0] != "unknown_tool" for call in calls)
