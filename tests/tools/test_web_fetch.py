"""WebFetch against real HTTP servers on 127.0.0.1, and the attacks a model could make.

A page server is reachable only because ``WebAccess.named`` says a rule names
127.0.0.1, as ``WebFetch(domain:127.0.0.1)`` in the settings does; without it every way
of writing a local address is refused before any connection. The DNS-rebinding tests
need a host that is public at the check and local at the fetch: their resolver answers
a public address first and 127.0.0.1 after, and httpx's ``MockTransport`` stands in for
the internet beyond 127.0.0.1 (no test reaches further), recording where each request
was sent, so they show the connection goes to the address that was checked.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from pytest_httpserver import HTTPServer

from nehanda.errors import ProviderConnectionError
from nehanda.tools import web_fetch
from nehanda.tools.base import ToolContext
from nehanda.tools.fetch_address import IPAddress, ip_literal
from nehanda.tools.registry import execute_builtin_tool
from nehanda.tools.web_access import WebAccess
from nehanda.types import ToolResult, ToolUse
from scripted_server import Reply, ScriptedServer

PAGE = b"""<html><head><title>Notes</title><script>steal()</script></head>
<body><h1>Release notes</h1><p>Version <b>2.0</b> adds <a href="/docs">docs</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>"""
HTML = {"Content-Type": "text/html; charset=utf-8"}


def fetch(url: str, tmp_path: Path, *named: str, **access: object) -> ToolResult:
    web = WebAccess(named=lambda: frozenset(named), **access)  # type: ignore[arg-type]
    use = ToolUse("call_1", "WebFetch", {"url": url, "prompt": "What is new?"})
    return asyncio.run(execute_builtin_tool(use, ToolContext(tmp_path, web=web)))


def reached(server: ScriptedServer) -> list[str]:
    return [request.path for request in server.requests + server.unrouted]


def test_a_page_from_a_host_a_rule_names_comes_back_as_markdown(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.route("GET", "/notes", Reply(200, PAGE, HTML))
    result = fetch(f"{server.root_url}/notes", tmp_path, "127.0.0.1")
    assert not result.is_error, result.content
    head, _, markdown = result.content.partition("\n\n")
    # Fetched as given: a host a rule names keeps http.
    assert head == f"Fetched {server.root_url}/notes (200, text/html; charset=utf-8)"
    assert markdown == (
        "Notes\n\n# Release notes\n\nVersion **2.0** adds [docs](/docs).\n\n* one\n* two"
    )
    assert "steal" not in result.content
    assert server.requests[0].headers["host"] == server.root_url.removeprefix("http://")


@pytest.mark.parametrize(
    "written",
    [
        "http://127.0.0.1:{port}/",
        "http://localhost:{port}/",
        "http://[::ffff:127.0.0.1]:{port}/",
        "http://2130706433:{port}/",
        "http://127.1:{port}/",
        "http://0.0.0.0:{port}/",
    ],
)
def test_a_local_address_without_a_rule_is_refused_before_any_connection(
    server: ScriptedServer, tmp_path: Path, written: str
) -> None:
    server.route("GET", "/", Reply(200, b"router admin page", HTML))
    port = server.root_url.rsplit(":", 1)[1]
    result = fetch(written.format(port=port), tmp_path)
    assert result.is_error and "Refused:" in result.content
    assert "WebFetch(domain:" in result.content
    assert reached(server) == []


@pytest.mark.parametrize(
    "address",
    ["10.0.0.1", "192.168.1.1", "172.16.0.1", "169.254.169.254", "100.64.0.1", "[fd00::1]"],
)
def test_private_link_local_and_cgnat_addresses_are_refused(tmp_path: Path, address: str) -> None:
    result = fetch(f"http://{address}/latest/meta-data/", tmp_path)
    assert result.is_error and "Refused:" in result.content


def test_a_redirect_from_an_allowed_host_to_a_local_one_is_refused(
    server: ScriptedServer, tmp_path: Path
) -> None:
    port = server.root_url.rsplit(":", 1)[1]
    hidden = f"http://localhost:{port}/secret"
    server.route("GET", "/start", Reply(302, b"", {"Location": hidden}))
    server.route("GET", "/secret", Reply(200, b"the database password", HTML))
    result = fetch(f"{server.root_url}/start", tmp_path, "127.0.0.1")
    assert result.is_error
    assert f"reached by the redirects {server.root_url}/start -> 302 {hidden}" in result.content
    assert "localhost resolves to 127.0.0.1, which is a loopback address" in result.content
    assert reached(server) == ["/start"]


def test_a_redirect_on_the_same_host_is_followed_and_shown(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.route("GET", "/old", Reply(301, b"", {"Location": "/new"}))
    server.route("GET", "/new", Reply(200, b"moved here", {"Content-Type": "text/plain"}))
    result = fetch(f"{server.root_url}/old", tmp_path, "127.0.0.1")
    assert result.content.splitlines()[:2] == [
        f"Fetched {server.root_url}/new (200, text/plain)",
        f"redirect: {server.root_url}/old -> 301 {server.root_url}/new",
    ]
    assert result.content.endswith("moved here")


def test_a_redirect_to_another_public_host_is_handed_back_for_a_new_call(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.route("GET", "/go", Reply(302, b"", {"Location": "https://docs.example.org/x"}))

    async def public(host: str, port: int) -> list[IPAddress]:
        return [address_of("93.184.215.14")]

    result = fetch(f"{server.root_url}/go", tmp_path, "127.0.0.1", resolve=public)
    assert not result.is_error
    assert "The page redirects to another host: https://docs.example.org/x" in result.content
    assert "call WebFetch again with url 'https://docs.example.org/x'" in result.content


def address_of(text: str) -> IPAddress:
    address = ip_literal(text)
    assert address is not None
    return address


class Rebinding:
    """A resolver for an attacker's name: public at the first answer, local after."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[IPAddress]:
        self.asked.append(host)
        return [address_of("93.184.215.14" if len(self.asked) == 1 else "127.0.0.1")]


class Internet:
    """The network beyond 127.0.0.1: records where each request was sent."""

    def __init__(self, *replies: httpx.Response) -> None:
        self.sent: list[httpx.Request] = []
        self.replies = list(replies)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return self.replies.pop(0)


def test_a_rebinding_name_is_resolved_once_and_the_checked_address_connected_to(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.route("GET", "/", Reply(200, b"local secrets", HTML))
    resolver = Rebinding()
    internet = Internet(
        httpx.Response(200, text="public page", headers={"content-type": "text/plain"})
    )
    port = server.root_url.rsplit(":", 1)[1]
    result = fetch(
        f"http://rebind.example:{port}/",
        tmp_path,
        resolve=resolver,
        transport=httpx.MockTransport(internet),
    )
    assert result.content.endswith("public page"), result.content
    assert resolver.asked == ["rebind.example"]
    (sent,) = internet.sent
    # To the checked address, upgraded to https, and still named as asked for.
    assert (sent.url.scheme, sent.url.host) == ("https", "93.184.215.14")
    assert sent.headers["host"] == f"rebind.example:{port}"
    assert sent.extensions["sni_hostname"] == "rebind.example"
    assert reached(server) == []


def test_a_name_that_rebinds_between_redirect_hops_is_refused_at_the_second(
    tmp_path: Path,
) -> None:
    resolver = Rebinding()
    internet = Internet(httpx.Response(302, headers={"location": "/admin"}))
    result = fetch(
        "https://rebind.example/",
        tmp_path,
        resolve=resolver,
        transport=httpx.MockTransport(internet),
    )
    assert result.is_error
    assert "rebind.example resolves to 127.0.0.1, which is a loopback address" in result.content
    assert len(internet.sent) == 1 and resolver.asked == ["rebind.example"] * 2


def test_a_name_answering_a_public_and_a_local_address_is_refused(tmp_path: Path) -> None:
    async def both(host: str, port: int) -> list[IPAddress]:
        return [address_of("93.184.215.14"), address_of("::1")]

    internet = Internet()
    result = fetch(
        "https://both.example/", tmp_path, resolve=both, transport=httpx.MockTransport(internet)
    )
    assert result.is_error and "::1, which is a loopback address" in result.content
    assert internet.sent == []


def test_a_body_past_ten_megabytes_is_refused_whether_or_not_it_says_its_size(
    server: ScriptedServer, httpserver: HTTPServer, tmp_path: Path
) -> None:
    big = b"x" * (10 * 1024 * 1024 + 1)
    server.route("GET", "/chunked", Reply(200, big, {"Content-Type": "text/plain"}, piece=65536))
    httpserver.expect_request("/sized").respond_with_data(big, content_type="text/plain")
    for url in (f"{server.root_url}/chunked", httpserver.url_for("/sized")):
        result = fetch(url, tmp_path, "127.0.0.1", "localhost")
        assert result.is_error and "is larger than 10 MB" in result.content, url


def test_a_page_over_the_budget_comes_back_as_its_head_with_a_note(
    server: ScriptedServer, tmp_path: Path
) -> None:
    lines = b"".join(b"line %d of a long page\n" % n for n in range(10_000))
    server.route("GET", "/long", Reply(200, lines, {"Content-Type": "text/plain"}))
    result = fetch(f"{server.root_url}/long", tmp_path, "127.0.0.1")
    assert not result.is_error
    assert result.content.splitlines()[2] == "line 0 of a long page"
    assert "line 9999 of" not in result.content
    assert len(result.content) < web_fetch.BUDGET + 500
    assert "more characters of Markdown" in result.content.splitlines()[-1]


def long_page(server: ScriptedServer) -> str:
    lines = b"".join(b"line %d of a long page\n" % n for n in range(10_000))
    server.route("GET", "/long", Reply(200, lines, {"Content-Type": "text/plain"}))
    return f"{server.root_url}/long"


def test_a_page_over_the_budget_goes_to_the_reader_whole_with_the_calls_prompt(
    server: ScriptedServer, tmp_path: Path
) -> None:
    asked: list[tuple[str, str]] = []

    async def reader(page: str, prompt: str) -> str:
        asked.append((page, prompt))
        return "The page counts its lines up to 9999."

    result = fetch(long_page(server), tmp_path, "127.0.0.1", reader=reader)
    assert not result.is_error
    ((page, prompt),) = asked
    assert prompt == "What is new?"
    assert page.startswith("line 0 of") and page.endswith("line 9999 of a long page")
    assert result.content.endswith("answered:]\n\nThe page counts its lines up to 9999.")
    assert "line 5 of" not in result.content


def test_a_page_within_the_budget_never_reaches_the_reader(
    server: ScriptedServer, tmp_path: Path
) -> None:
    async def reader(page: str, prompt: str) -> str:
        raise AssertionError("a short page was sent to the reader")

    server.route("GET", "/notes", Reply(200, PAGE, HTML))
    result = fetch(f"{server.root_url}/notes", tmp_path, "127.0.0.1", reader=reader)
    assert "Version **2.0** adds" in result.content


def test_a_reader_that_fails_leaves_the_pages_head_saying_why(
    server: ScriptedServer, tmp_path: Path
) -> None:
    async def reader(page: str, prompt: str) -> str:
        raise ProviderConnectionError("connection refused", provider="vllm", model="q")

    result = fetch(long_page(server), tmp_path, "127.0.0.1", reader=reader)
    assert not result.is_error
    assert result.content.splitlines()[2] == "line 0 of a long page"
    assert "could not read it for you: connection refused" in result.content.splitlines()[-1]


def test_a_page_that_is_not_text_is_refused(server: ScriptedServer, tmp_path: Path) -> None:
    server.route("GET", "/logo", Reply(200, b"\x89PNG\r\n", {"Content-Type": "image/png"}))
    result = fetch(f"{server.root_url}/logo", tmp_path, "127.0.0.1")
    assert result.is_error and "is image/png, not a text page" in result.content


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/", "https://user:pw@example.com/", "nope"]
)
def test_urls_webfetch_does_not_take_are_refused_saying_why(tmp_path: Path, url: str) -> None:
    result = fetch(url, tmp_path)
    assert result.is_error and url in result.content
