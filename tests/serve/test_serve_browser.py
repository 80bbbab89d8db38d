"""What a web page can make a serve on 127.0.0.1 do: nothing, unless told otherwise.

The attacks are the requests a browser sends on a page's behalf, sent raw to a real serve
on loopback with no token (its default): a cross-site ``text/plain`` POST (no preflight),
a page reached by DNS rebinding (its own name in ``Host``), a preflight. None may reach
the upstream, and no answer may carry a CORS header unless ``[serve] cors_origins`` lists
the page's origin.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nehanda.config.settings import Flags, load_settings
from nehanda.errors import ConfigError
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.serve.app import build_app
from nehanda.serve.config import ServeConfig, resolve_config
from nehanda.serve.guard import Policy, host_name, refusal
from serve.conftest import Served, _provider, start

PAGE = "http://localhost:5173"
ASK = {"model": "native-model", "messages": [{"role": "user", "content": "hi"}]}
ANTHROPIC_ASK = {**ASK, "max_tokens": 16}
# A page's own name (DNS rebinding), look-alikes of this machine's, another address.
FOREIGN_HOSTS = ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}"]
FOREIGN_HOSTS += ["0.0.0.0:{port}", "localhost.evil.example", "[::1].evil.example"]
FOREIGN_HOSTS += ["[2001:db8::1]:{port}", "serve.internal2"]
LOCAL_HOSTS = ["localhost:{port}", "LOCALHOST", "127.0.0.1", "127.3.2.1:{port}", "[::1]:{port}"]
LOCAL_HOSTS += ["[::1]", "serve.internal:{port}", "serve.internal."]


@pytest.fixture(scope="module")
def open_serve(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A serve as most people run it: on 127.0.0.1, no token; one extra name, one page."""
    config = ServeConfig(
        default=None,
        aliases={"native-model": _provider("native", "vllm", served.native.base_url, "qwen")},
        allowed_hosts=("serve.internal",),
        cors_origins=(PAGE,),
    )
    cache = ToolSupportCache(Path(tmp_path_factory.mktemp("cache")) / "tool_support.json")
    url, stop = start(build_app(config, {}, cache))
    yield url
    stop()


@pytest.fixture
def upstream(serve: Served) -> Served:
    serve.native.stream("e2e_vllm_answer.sse")
    return serve


def port_of(url: str) -> int:
    return httpx.URL(url).port or 80


def cors_headers(answer: httpx.Response) -> list[str]:
    return [name for name in answer.headers if name.lower().startswith("access-control-")]


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
@pytest.mark.parametrize(
    "content_type", ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", None]
)
def test_a_body_not_sent_as_json_is_refused(
    open_serve: str, upstream: Served, path: str, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    body = json.dumps(ANTHROPIC_ASK).encode()
    answer = httpx.post(open_serve + path, content=body, headers=headers)
    assert answer.status_code == 415
    error = answer.json()["error"]
    assert "application/json" in error["message"]
    assert ("type" in answer.json()) == (path == "/v1/messages")  # each protocol's shape
    assert upstream.native.requests == []


@pytest.mark.parametrize("content_type", ["application/json", "Application/JSON; charset=utf-8"])
def test_json_with_or_without_a_charset_is_answered(
    open_serve: str, upstream: Served, content_type: str
) -> None:
    body = json.dumps(ASK).encode()
    answer = httpx.post(
        open_serve + "/v1/chat/completions", content=body, headers={"Content-Type": content_type}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize(
    "host",
    FOREIGN_HOSTS,
)
def test_a_page_reaching_serve_through_its_own_name_is_refused(
    open_serve: str, upstream: Served, host: str
) -> None:
    shown = host.format(port=port_of(open_serve))
    answer = httpx.post(open_serve + "/v1/chat/completions", json=ASK, headers={"Host": shown})
    assert answer.status_code == 403
    assert "allowed_hosts" in answer.json()["error"]["message"]
    assert httpx.get(open_serve + "/v1/models", headers={"Host": shown}).status_code == 403
    assert upstream.native.requests == []


@pytest.mark.parametrize(
    "host",
    LOCAL_HOSTS,
)
def test_this_machines_names_are_answered(open_serve: str, host: str) -> None:
    shown = host.format(port=port_of(open_serve))
    answer = httpx.get(open_serve + "/v1/models", headers={"Host": shown})
    assert answer.status_code == 200
    assert [model["id"] for model in answer.json()["data"]] == ["native-model"]


def test_a_request_from_an_unlisted_page_is_refused(open_serve: str, upstream: Served) -> None:
    evil = {"Origin": "https://evil.example"}
    answer = httpx.post(open_serve + "/v1/chat/completions", json=ASK, headers=evil)
    assert answer.status_code == 403 and "cors_origins" in answer.json()["error"]["message"]
    assert httpx.get(open_serve + "/v1/models", headers=evil).status_code == 403
    preflight = httpx.options(
        open_serve + "/v1/chat/completions",
        headers={**evil, "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 403
    assert [cors_headers(a) for a in (answer, preflight)] == [[], []]
    assert upstream.native.requests == []


def test_a_listed_page_gets_its_preflight_and_its_answers(
    open_serve: str, upstream: Served
) -> None:
    preflight = httpx.options(
        open_serve + "/v1/chat/completions",
        headers={
            "Origin": PAGE,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == PAGE
    assert preflight.headers["access-control-allow-headers"] == "authorization,content-type"
    assert "POST" in preflight.headers["access-control-allow-methods"]
    answer = httpx.post(open_serve + "/v1/chat/completions", json=ASK, headers={"Origin": PAGE})
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == PAGE
    assert "origin" in answer.headers["vary"].lower()
    text_plain = httpx.post(
        open_serve + "/v1/chat/completions",
        content=json.dumps(ASK).encode(),
        headers={"Origin": PAGE, "Content-Type": "text/plain"},
    )
    assert text_plain.status_code == 415


def test_without_cors_origins_serve_sends_no_cors_header(serve: Served) -> None:
    """The shared serve lists no origin: a preflight from any page is refused bare."""
    preflight = httpx.options(
        serve.url + "/v1/messages",
        headers={"Origin": PAGE, "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 403 and cors_headers(preflight) == []
    assert preflight.json()["type"] == "error"
    bare = httpx.options(serve.url + "/v1/chat/completions")
    assert bare.status_code == 405 and cors_headers(bare) == []


def test_on_a_reachable_bind_the_token_guards_instead_of_the_host() -> None:
    reachable = Policy.of(ServeConfig(default=None, host="0.0.0.0"))
    loopback = Policy.of(ServeConfig(default=None, host="::1"))
    asked: Any = {"host": "serve.example.com:8765", "content-type": "application/json"}
    assert refusal("POST", asked, reachable) is None
    refused = refusal("POST", asked, loopback)
    assert refused is not None and refused.status == 403


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("[::1]:8080", "::1"),
        ("[::1]", "::1"),
        ("::1", "::1"),
        ("Host.Example.:80", "host.example"),
        ("127.0.0.1:8765", "127.0.0.1"),
        ("localhost", "localhost"),
        ("[::1]x", "[::1]x"),
    ],
)
def test_the_host_header_without_its_port(header: str, name: str) -> None:
    assert host_name(header) == name


def test_allowed_hosts_and_cors_origins_come_from_settings(
    tmp_path: Path, isolated_home: Path
) -> None:
    settings = isolated_home / "xdg_config_home" / "nehanda" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        '[providers.local]\ntype = "vllm"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "q"\n'
        '[serve]\nallowed_hosts = ["Box.Lan"]\ncors_origins = ["http://localhost:5173/"]\n'
    )
    config = asyncio.run(resolve_config(load_settings(tmp_path), Flags(provider="local")))
    assert (config.allowed_hosts, config.cors_origins) == (("box.lan",), (PAGE,))
    for bad in ('allowed_hosts = ["http://box"]', 'cors_origins = ["*"]'):
        settings.write_text(f"[serve]\n{bad}\n")
        with pytest.raises(ConfigError, match=r"settings.toml:2: serve\."):
            load_settings(tmp_path)
