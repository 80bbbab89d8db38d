"""The forms servers and proxies have been seen to echo a key in, and a check, written
apart from the masker, that a text holds none of them: the key raw, URL-encoded,
JSON-escaped, in base64 at any offset, or any 12 of its characters in a row."""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote, quote_plus

RUN = 12


def echoes(key: str) -> dict[str, str]:
    basic = base64.b64encode(f"user:{key}".encode()).decode()
    return {
        "raw": f"Incorrect API key provided: {key}.",
        "url": f"GET https://api.example/v1?key={quote(key, safe='')} failed",
        "url_plus": f"key={quote_plus(key)}&x=1",
        "url_lower": "key=" + quote(key, safe="").replace("%2F", "%2f").replace("%2B", "%2b"),
        "json": json.dumps({"error": f"bad key {key}"}),
        "json_slashes": json.dumps({"error": key}).replace("/", "\\/"),
        "base64": f"Authorization: Basic {basic}",
        "base64_urlsafe": base64.urlsafe_b64encode(f"xy:{key}!".encode()).decode(),
        "base64_alone": base64.b64encode(key.encode()).decode(),
        "last_12": f"the key ending {key[-RUN:]} was refused",
        "middle_run": f"key …{key[5:25]}… revoked",
    }


def leaked(text: str, key: str) -> list[str]:
    """Each form of ``key``, and each run of ``RUN`` of its characters, in ``text``."""
    forms = {key, quote(key, safe=""), quote(key), quote_plus(key), quote_plus(key, safe="/")}
    forms |= {re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), form) for form in forms}
    escaped = json.dumps(key)[1:-1]
    forms |= {escaped, escaped.replace("/", "\\/")}
    raw = key.encode()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for skip in range(3):  # the key at each offset of a base64 group
            part = raw[skip:]
            forms.add(encode(part[: len(part) - len(part) % 3]).decode())
    forms |= {key[i : i + RUN] for i in range(len(key) - RUN + 1)}
    return sorted(form for form in forms if form in text)
