"""Qwen3-Coder's XML calls: ``<function=Name><parameter=p>value</parameter></function>``.

Parameter values are raw text, not JSON: a value ends at ``</parameter>`` (or, when
the model forgot it, at the next ``<parameter=`` or ``</function>``), so a JSON or
``</tool_call>`` literal inside a value is content. Values are typed by the tool's
JSON Schema when it says integer, number, boolean, null, object or array; anything
else stays text for the engine's validation to judge.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from nehanda.toolcalls import messages
from nehanda.toolcalls.jsonvalue import Failure, decode
from nehanda.toolcalls.prelude import partial_literal
from nehanda.toolcalls.shapes import Found, checked, failure_found

_TAG_NAME = re.compile(r"([^<>\n]{1,256})>")
_TAG_NAME_PARTIAL = re.compile(r"[^<>\n]{0,256}\Z")
_WS = re.compile(r"\s*")
_VALUE_CLOSE = "</parameter>"
# Where a value ends when its </parameter> never comes: the model forgot it.
_FORGOTTEN = re.compile(r"<parameter=|</function>")
# ... or came misspelled: ``</parameter/>``, ``</parameter1>``, cut ``</parameter``
# (sgl-project/sglang#27337); at a forgotten value's end it is the attempt, not content.
_MISSPELT_CLOSE = re.compile(r"</parameter[^<>\n]{0,16}>?\s*\Z")
_INTEGER = re.compile(r"\s*[-+]?\d{1,4000}\s*")
_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")

MORE, DONE, REJECT = 0, 1, 2
_NAME, _HEAD, _VALUE, _DONE = 0, 1, 2, 3


class XmlReader:
    """Reads one ``<function=...>`` element, starting just after ``<function=``.

    ``strict``: the element stands without a wrapper, so anything but parameters
    before the first parameter makes it a mention. ``closers`` are the wrapper's
    closers, which also end a function whose ``</function>`` is missing.
    """

    def __init__(
        self,
        raw: list[str],
        announce: Callable[[str], int | None],
        *,
        strict: bool,
        closers: tuple[str, ...],
    ) -> None:
        self.raw = raw
        self.announce = announce
        self.strict = strict
        self.closers = closers
        self._stops = _stops(closers)
        self.phase = _NAME
        self.name = ""
        self.index: int | None = None
        self.params: dict[str, str] = {}
        self.duplicate: str | None = None
        self.param = ""
        self.chunks: list[str] = []
        # Text read past the element's end while looking for a forgotten closer.
        self.spill = ""
        self._cut = False
        self.junk: list[str] = []

    def read(self, buf: str, pos: int, final: bool) -> tuple[int, int]:
        """Advance from ``pos``; returns ``(status, new_pos)``; consumed text goes to raw.

        MORE with no progress means the element needs more text than ``buf`` holds.
        """
        while True:
            phase = self.phase
            if phase == _NAME:
                status, new = self._read_name(buf, pos, final)
            elif phase == _HEAD:
                status, new = self._read_head(buf, pos, final)
            else:
                status, new = self._read_value(buf, pos, final)
            if new > pos and status != REJECT:
                self.raw.append(buf[pos:new])
            if status != MORE or (new == pos and self.phase == phase):
                return status, new
            pos = new

    def _read_name(self, buf: str, pos: int, final: bool) -> tuple[int, int]:
        m = _TAG_NAME.match(buf, pos)
        if m is None or not m.group(1).strip():
            if m is None and not final and _TAG_NAME_PARTIAL.match(buf, pos):
                return MORE, pos
            return REJECT, pos
        self.name = m.group(1).strip()
        self.index = self.announce(self.name)
        self.phase = _HEAD
        return MORE, m.end()

    def _read_head(self, buf: str, pos: int, final: bool) -> tuple[int, int]:
        start = pos
        pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
        if pos >= len(buf):
            if self.junk:
                self.junk.append(buf[start:pos])  # inside the body: see _junk
            return MORE, pos
        if buf.startswith("<parameter=", pos):
            m = _TAG_NAME.match(buf, pos + 11)
            if m is None:
                if not final and _TAG_NAME_PARTIAL.match(buf, pos + 11):
                    return MORE, pos
                return self._junk(buf, start, pos)
            self.param = m.group(1).strip()
            self.phase = _VALUE
            return MORE, m.end()
        if buf.startswith("</function>", pos):
            self.phase = _DONE
            return DONE, pos + 11
        if buf.startswith(self.closers, pos):
            self.phase = _DONE
            return DONE, pos
        if not final and partial_literal(buf, pos, ("<parameter=", "</function>", *self.closers)):
            return MORE, pos
        return self._junk(buf, start, pos)

    def _junk(self, buf: str, start: int, pos: int) -> tuple[int, int]:
        if self.strict and not self.params:
            return REJECT, start
        m = self._stops.search(buf, pos + 1)
        end = len(buf) if m is None else m.start()
        # From ``start``: the blanks before it belong to the body (JSON arguments read
        # from it say where they fail), wherever a chunk ended.
        self.junk.append(buf[start:end])
        return MORE, end

    def _read_value(self, buf: str, pos: int, final: bool) -> tuple[int, int]:
        # A value runs to its </parameter>: a <parameter=KEY> or </function> written
        # inside it is content. Only an output that ends without that closing tag
        # shows it was forgotten (see _forgotten).
        end = buf.find(_VALUE_CLOSE, pos)
        if end < 0:
            safe = len(buf)
            k = buf.rfind("<", max(pos, len(buf) - len(_VALUE_CLOSE) + 1))
            if k >= 0 and not final and _VALUE_CLOSE.startswith(buf[k:]):
                safe = k
            self.chunks.append(buf[pos:safe])
            if final and not self._cut:
                return self._forgotten(), safe
            return MORE, safe
        self.chunks.append(buf[pos:end])
        self._set(self.param, "".join(self.chunks))
        self.chunks = []
        self.phase = _HEAD
        return MORE, end + len(_VALUE_CLOSE)

    def _set(self, key: str, value: str) -> None:
        if key in self.params:
            self.duplicate = self.duplicate or key
        self.params[key] = value

    def _forgotten(self) -> int:
        """The output ended in a value: cut it where its closing tag was forgotten.

        The value ends at the first ``<parameter=`` or ``</function>``; the element
        goes on from there (read whole, now that all of it is here) and what follows
        it is handed back in ``spill``. No such tag: the output was cut in the value.
        """
        self._cut = True
        value = "".join(self.chunks)
        m = _FORGOTTEN.search(value)
        if m is None:
            return MORE
        self.chunks = []
        self._set(self.param, _drop_misspelt_close(value[: m.start()]))
        rest = value[m.start() :]
        params, end = _rest_of_element(rest)
        for key, raw in params:
            self._set(key, raw)
        self.phase = _DONE
        self.spill = rest[end:]
        return DONE

    def found(
        self, known: Collection[str] | None, schemas: Mapping[str, Mapping[str, Any]]
    ) -> Found:
        if self.duplicate is not None:
            problem = messages.duplicate_key(self.name, self.duplicate)
            return Found(self.name, {}, ("duplicate_key", problem), index=self.index)
        schema = schemas.get(self.name)
        args = {k: typed(unframe(v), schema_property(schema, k)) for k, v in self.params.items()}
        junk = "".join(self.junk).strip()
        if junk and not args:
            # Arguments written as JSON in the function body, not as parameters.
            value = decode(junk)
            if isinstance(value, Failure):
                return failure_found(self.name, value)
            if not isinstance(value, dict):
                return failure_found(self.name, Failure("invalid_json", "not an object"))
            args = value
        found = checked(self.name, args, known)
        found.index = self.index
        return found

    def truncated(self) -> Found:
        name = self.name or None
        return Found(name, {}, ("truncated", messages.truncated(name)), index=self.index)


def _rest_of_element(text: str) -> tuple[list[tuple[str, str]], int]:
    """Parameters from the start of ``text`` to the element's end, read whole.

    Each value runs to its ``</parameter>`` or, with none left in ``text``, to the
    next ``<parameter=`` or ``</function>``. Returns them and where the element ends
    (after ``</function>``, or where something else starts).
    """
    params: list[tuple[str, str]] = []
    n = len(text)
    i = 0
    closes = text.find(_VALUE_CLOSE)
    while True:
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if text.startswith("</function>", i):
            return params, i + len("</function>")
        if not text.startswith("<parameter=", i):
            return params, i
        m = _TAG_NAME.match(text, i + len("<parameter="))
        if m is None:
            return params, i
        start = m.end()
        if 0 <= closes < start:
            closes = text.find(_VALUE_CLOSE, start)
        if closes >= 0:
            params.append((m.group(1).strip(), text[start:closes]))
            i = closes + len(_VALUE_CLOSE)
            continue
        stop = _FORGOTTEN.search(text, start)
        end = n if stop is None else stop.start()
        params.append((m.group(1).strip(), _drop_misspelt_close(text[start:end])))
        i = end


def _drop_misspelt_close(value: str) -> str:
    m = _MISSPELT_CLOSE.search(value)
    return value if m is None else value[: m.start()]


@functools.cache
def _stops(closers: tuple[str, ...]) -> re.Pattern[str]:
    """Junk is skipped up to the next place where a tag or a closer may start."""
    return re.compile("[" + re.escape("".join(sorted({"<", *(c[0] for c in closers)}))) + "]")


def unframe(value: str) -> str:
    # The chat template writes each value on its own line; those two newlines are markup.
    if value.startswith("\n"):
        value = value[1:]
    if value.endswith("\n"):
        value = value[:-1]
    return value


def schema_property(schema: Mapping[str, Any] | None, name: str) -> Mapping[str, Any]:
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    prop = props.get(name) if isinstance(props, Mapping) else None
    return prop if isinstance(prop, Mapping) else {}


def _types(prop: Mapping[str, Any]) -> list[str]:
    declared = prop.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in prop.get(key) or ():
            if isinstance(option, Mapping):
                found.extend(_types(option))
    return found


def _as(kind: str, text: str) -> tuple[bool, Any]:
    stripped = text.strip()
    if kind == "integer" and _INTEGER.fullmatch(text):
        return True, int(stripped)
    if kind == "number" and _NUMBER.fullmatch(text):
        number = float(stripped)
        return True, int(number) if number.is_integer() and _INTEGER.fullmatch(text) else number
    if kind == "boolean" and stripped.lower() in ("true", "false"):
        return True, stripped.lower() == "true"
    if kind == "null" and stripped in ("null", "None"):
        return True, None
    if kind in ("object", "array"):
        value = decode(stripped)
        wanted = dict if kind == "object" else list
        if not isinstance(value, Failure) and isinstance(value, wanted):
            return True, value
    return False, None


def typed(text: str, prop: Mapping[str, Any]) -> Any:
    """The parameter's value as the schema types it; the text itself when it cannot be."""
    for kind in _types(prop):
        if kind == "string":
            return text
        ok, value = _as(kind, text)
        if ok:
            return value
    return text
