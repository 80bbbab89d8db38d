"""What serve's start and request log say, pure: the bind problems, the client hint, the
log line (a client's path, however hostile, stays one short line)."""

from __future__ import annotations

import errno

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.serve.listen import bind_problem, client_hint, client_url
from nehanda.serve.request_log import MAX_PATH, log_line


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (errno.EADDRINUSE, "127.0.0.1 port 80 is in use"),
        (errno.EACCES, "127.0.0.1 port 80 needs privileges this user lacks"),
        (errno.EADDRNOTAVAIL, "cannot listen on 127.0.0.1: no interface of this machine"),
        (errno.EINVAL, "cannot listen on 127.0.0.1 port 80 (EINVAL)"),
    ],
)
def test_each_bind_problem_says_what_and_where(code: int, said: str) -> None:
    line = bind_problem("127.0.0.1", 80, code)
    assert line.startswith(said) and "\n" not in line


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8765"),
        ("0.0.0.0", "http://127.0.0.1:8765"),
        ("::", "http://[::1]:8765"),
        ("::1", "http://[::1]:8765"),
        ("192.0.2.7", "http://192.0.2.7:8765"),
    ],
)
def test_the_client_url_is_one_this_machine_reaches(host: str, url: str) -> None:
    assert client_url(host, 8765) == url
    assert client_hint(host, 8765, None) == (
        f"point a client at it: OPENAI_BASE_URL={url}/v1 or ANTHROPIC_BASE_URL={url}"
    )


def test_log_line_shape() -> None:
    line = log_line("POST", "/v1/chat/completions", 200, 412.4)
    assert line == "nehanda serve: POST /v1/chat/completions 200 412 ms"


@given(st.text(max_size=500), st.text(max_size=40))
def test_a_client_path_is_one_short_printable_line(path: str, method: str) -> None:
    line = log_line(method, path, 404, 1.0)
    assert "\n" not in line and "\r" not in line and "\x1b" not in line
    assert len(line) <= len("nehanda serve:  ") + 16 + MAX_PATH + len(" 404 1 ms")
