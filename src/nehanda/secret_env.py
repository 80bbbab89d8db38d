"""Secrets in the environment: kept from children and from ``/proc/<pid>/environ``.

``del os.environ[...]`` unsets a variable for later children, but the bytes the process
started with stay in its environment block, which ``/proc/<pid>/environ`` shows to any
process of the same user. ``seal`` runs once at start: every variable whose name looks
secret (``*KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``) is unset at the C level, so
no child inherits it, and its value's bytes in the original block are overwritten with
NULs. Python's ``os.environ`` mapping is a copy made at start and keeps the values, so
nehanda itself still reads its keys there. ``redact`` masks known secret values in text.
It imports nothing of nehanda but the masker, which imports nothing.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from nehanda.masking import SecretMask

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
MIN_SECRET_LENGTH = 8


def secret_names(environ: Mapping[str, str]) -> list[str]:
    return [name for name in environ if SECRET_NAME.search(name)]


def secret_values(
    environ: Mapping[str, str] = os.environ, names: Iterable[str] = ()
) -> tuple[str, ...]:
    """The values worth masking (of secret-looking variables, and of ``names``), longest
    first (so that no part of one is left)."""
    named = set(names)
    values = {
        v
        for k, v in environ.items()
        if (SECRET_NAME.search(k) or k in named) and len(v) >= MIN_SECRET_LENGTH
    }
    return tuple(sorted(values, key=len, reverse=True))


def redact(text: str, values: Iterable[str]) -> str:
    """``text`` with each of ``values``, in every form it is written in (JSON-escaped,
    URL-encoded, base64, a long part of it: ``nehanda.masking``), replaced by a mask."""
    return SecretMask(values).mask(text)


def seal(environ: Mapping[str, str] = os.environ, also: Iterable[str] = ()) -> list[str]:
    """Unset the secret variables (and those named in ``also``, such as the key variable a
    settings file names) for children and wipe their starting bytes; returns the names.
    Python's ``os.environ`` keeps them for nehanda's own use."""
    names = secret_names(environ) + [name for name in also if name in environ]
    for name in names:
        os.unsetenv(name)
    if sys.platform.startswith("linux") and names:
        _wipe_block(set(names))
    return names


def _wipe_block(names: set[str]) -> None:
    """Overwrite, in the block ``/proc/self/environ`` shows, the values of ``names``."""
    import ctypes

    try:
        fields = Path("/proc/self/stat").read_bytes().rsplit(b")", 1)[1].split()
        data = Path("/proc/self/environ").read_bytes()
    except OSError:
        return
    # Fields after "(comm)": field 3 is fields[0]; env_start is field 50.
    start = int(fields[47])
    offset = 0
    for entry in data.split(b"\0"):
        name, equals, value = entry.partition(b"=")
        if equals and name.decode(errors="replace") in names and value:
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
        offset += len(entry) + 1
