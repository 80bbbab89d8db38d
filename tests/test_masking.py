"""The secret masker, driven directly: every form a server echoes a key in, and streams
cut anywhere masking as the whole text does."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nehanda.masking import MASK, MIN_RUN, SecretMask
from secret_forms import echoes, leaked

KEY = "sk-proj-Ab3/De+Fg9_Hi~Jk4Lm5No6Pq7Rs8Tu"
TOKEN = "serve-token-0123456789"


@pytest.mark.parametrize(("name", "text"), list(echoes(KEY).items()))
def test_every_form_of_a_key_is_masked(name: str, text: str) -> None:
    masked = SecretMask([KEY, TOKEN]).mask(text)
    assert MASK in masked
    assert leaked(masked, KEY) == []


def test_text_without_secrets_is_left_as_it_is() -> None:
    text = "sk-proj- is how project keys begin; a token is 22 characters."
    assert SecretMask([KEY, TOKEN]).mask(text) == text
    assert SecretMask([]).mask(text) == text
    assert SecretMask(["short"]).mask("a short word") == "a short word"


def test_bytes_are_masked_and_other_bytes_kept() -> None:
    data = b'{"id":"' + KEY.encode() + b'"}\xff'
    assert SecretMask([KEY]).mask_bytes(data) == b'{"id":"[REDACTED]"}\xff'


def test_the_mask_never_shows_its_secrets() -> None:
    assert KEY not in repr(SecretMask([KEY]))


_TEXT = st.lists(
    st.one_of(
        st.text(alphabet='sk-proj_AbDe3 \n"\\/+%', max_size=12),
        st.sampled_from(
            [KEY, TOKEN, KEY[-MIN_RUN:], KEY[:20], quote(KEY, safe=""), *echoes(KEY).values()]
        ),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=100, deadline=None)
@given(text=_TEXT, data=st.data())
def test_a_stream_cut_anywhere_masks_as_the_whole_text_does(text: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    mask = SecretMask([KEY, TOKEN])
    stream = mask.stream()
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    out = "".join(stream.feed(piece) for piece in pieces) + stream.flush()
    assert out == mask.mask(text)
    assert leaked(out, KEY) == [] and TOKEN not in out


def test_a_key_cut_between_two_pieces_is_held_until_it_is_known() -> None:
    stream = SecretMask([KEY]).stream()
    first = stream.feed("the key is " + KEY[:5])
    assert first == "the key is "
    assert stream.feed(KEY[5:] + " ok") + stream.flush() == MASK + " ok"


def test_ordinary_text_is_not_held_back() -> None:
    stream = SecretMask([KEY, TOKEN]).stream()
    assert stream.feed("Hello, world. ") == "Hello, world. "
