"""The HTTP client a provider gets: for a plain ``http://`` server, no TLS set-up at all."""

from __future__ import annotations

import ssl

import pytest

from nehanda.providers.http import _tls_for


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "HTTP://localhost:11434"])
def test_a_plain_http_server_gets_a_context_that_trusts_nothing(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    context = _tls_for(url)
    assert isinstance(context, ssl.SSLContext)
    # No certificates were loaded (the costly part), and none would be trusted: a TLS
    # connection through it fails instead of going unchecked.
    assert context.cert_store_stats()["x509_ca"] == 0
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_https_gets_the_usual_verified_context() -> None:
    assert _tls_for("https://api.openai.com/v1") is True


def test_an_https_proxy_keeps_the_usual_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "https://proxy.example:3128")
    assert _tls_for("http://127.0.0.1:8000/v1") is True
