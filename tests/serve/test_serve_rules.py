"""serve's pure rules: which calls go out, who may call, where it may listen, statuses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.config.settings import ProviderConfig
from nehanda.errors import AuthenticationError, ProviderStatusError, ProviderTimeout
from nehanda.events import MessageEnd, StreamEvent, TextDelta, ToolUseEnd
from nehanda.providers.base import ChatRequest
from nehanda.serve.app import authorized
from nehanda.serve.config import ServeConfig, UnknownModel, check_bind
from nehanda.serve.errors import failure_for
from nehanda.serve.turn import CallOut, ReplyState
from nehanda.types import Message, ToolSpec, ToolUse

REQUEST = ChatRequest("m", (Message.text_message("user", "hi"),), tools=(ToolSpec("Read", "", {}),))
CLOSED = ToolUse("call_1", "Read", {"file_path": "a"}, "rescue")
UNCLOSED = ToolUse("call_2", "Read", {"file_path": "b"}, "rescue", unclosed=True)


def run(events: list[StreamEvent], **options: bool) -> list[object]:
    state = ReplyState(REQUEST, **options)
    return [out for event in events for out in state.handle(event)]


def calls(events: list[object]) -> list[str]:
    return [e.id for e in events if isinstance(e, CallOut)]


def test_a_call_the_length_limit_may_have_cut_never_goes_out() -> None:
    out = run([ToolUseEnd(0, CLOSED), ToolUseEnd(1, UNCLOSED), MessageEnd("max_tokens")])
    assert calls(out) == ["call_1"]
    assert out[-1] == MessageEnd("tool_use")


def test_an_unclosed_call_of_a_reply_that_ended_normally_goes_out() -> None:
    assert calls(run([ToolUseEnd(0, UNCLOSED), MessageEnd("end_turn")])) == ["call_2"]


def test_parallel_false_keeps_the_first_call() -> None:
    second = ToolUse("call_3", "Read", {"file_path": "c"})
    out = run(
        [ToolUseEnd(0, CLOSED), ToolUseEnd(1, second), MessageEnd("tool_use")], parallel=False
    )
    assert calls(out) == ["call_1"]


def test_held_prose_comes_out_before_the_call_that_releases_it() -> None:
    out = run([TextDelta("Let me look."), ToolUseEnd(0, CLOSED), MessageEnd("end_turn")], hold=True)
    assert out[0] == TextDelta("Let me look.") and isinstance(out[1], CallOut)


def test_a_required_call_that_did_not_come_asks_for_a_retry() -> None:
    state = ReplyState(REQUEST, hold=True, retry=True)
    assert state.handle(TextDelta("no call")) == [] and state.handle(MessageEnd("end_turn")) == []
    assert state.wants_retry


def test_the_line_break_before_a_call_never_reaches_the_prose() -> None:
    events: list[StreamEvent] = [TextDelta("I will read"), TextDelta(" the file.\n")]
    out = run([*events, ToolUseEnd(0, CLOSED), MessageEnd("tool_use")])
    assert "".join(e.text for e in out if isinstance(e, TextDelta)) == "I will read the file."
    assert calls(out) == ["call_1"]


@given(st.lists(st.text(alphabet=" \nab.", max_size=6), max_size=8))
def test_prose_without_a_call_comes_out_whole(pieces: list[str]) -> None:
    events: list[StreamEvent] = [TextDelta(piece) for piece in pieces]
    out = run([*events, MessageEnd("end_turn")])
    assert "".join(e.text for e in out if isinstance(e, TextDelta)) == "".join(pieces)


@pytest.mark.parametrize(
    ("headers", "ok"),
    [
        ({}, False),
        ({"authorization": "Bearer t0k"}, True),
        ({"authorization": "bearer t0k"}, True),
        ({"authorization": "Bearer t0"}, False),
        ({"x-api-key": "t0k"}, True),
        ({"x-api-key": "t0k "}, False),
        ({"authorization": "Basic t0k"}, False),
    ],
)
def test_the_token_is_required_exactly(headers: dict[str, str], ok: bool) -> None:
    assert authorized(headers, "t0k") is ok
    assert authorized(headers, None)


@pytest.mark.parametrize(
    ("host", "environ", "allowed"),
    [
        ("127.0.0.1", {}, True),
        ("localhost", {}, True),
        ("::1", {}, True),
        ("127.8.0.1", {}, True),
        ("0.0.0.0", {}, False),
        ("10.0.0.5", {}, False),
        ("example.org", {}, False),
        ("0.0.0.0", {"TOKEN": "x"}, True),
    ],
)
def test_a_reachable_bind_needs_a_token(host: str, environ: dict[str, str], allowed: bool) -> None:
    token_env = "TOKEN" if environ else None
    if allowed:
        check_bind(host, token_env, environ)
    else:
        with pytest.raises(Exception, match="api_key_env"):
            check_bind(host, token_env, environ)


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (AuthenticationError("upstream key refused", status=401), 502),
        (ProviderStatusError("bad", status=400), 400),
        (ProviderStatusError("gone", status=404), 404),
        (ProviderStatusError("crash", status=500), 502),
        (ProviderTimeout("slow"), 504),
    ],
)
def test_upstream_failures_map_to_client_statuses(error: Exception, status: int) -> None:
    assert failure_for(error).status == status


DEFAULT = ProviderConfig(name="local", type="vllm", base_url="http://h/v1", model="served")
ALIAS = DEFAULT.model_copy(update={"name": "other", "model": "qwen"})


@pytest.mark.parametrize(
    ("config", "asked", "answered"),
    [
        (ServeConfig(DEFAULT), "client-name", ("local", "client-name")),
        (ServeConfig(DEFAULT, pin_model=True), "client-name", ("local", "served")),
        (ServeConfig(DEFAULT, {"fast": ALIAS}, pin_model=True), "fast", ("other", "qwen")),
        (ServeConfig(None, {"fast": ALIAS}), "fast", ("other", "qwen")),
    ],
)
def test_a_client_model_name_routes(config: ServeConfig, asked: str, answered: tuple) -> None:
    routed = config.route(asked)
    assert (routed.name, routed.model) == answered


def test_an_unserved_name_is_unknown_and_the_config_survives_the_environment() -> None:
    config = ServeConfig(None, {"fast": ALIAS}, token_env="T", max_concurrency=3)
    with pytest.raises(UnknownModel, match="fast"):
        config.route("slow")
    assert ServeConfig.from_env({"NEHANDA_SERVE_CONFIG": config.to_env()}) == config
