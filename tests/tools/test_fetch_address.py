"""Which addresses WebFetch refuses without a rule, and how hosts are written; pure."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.tools.fetch_address import normal_host, refused, rule_host, url_host


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "a loopback address"),
        ("127.255.0.9", "a loopback address"),
        ("::1", "a loopback address"),
        ("0.0.0.0", "the unspecified address"),
        ("::", "the unspecified address"),
        ("10.1.2.3", "a private address"),
        ("172.31.0.1", "a private address"),
        ("192.168.0.1", "a private address"),
        ("fd12::1", "a private address"),
        ("169.254.169.254", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("100.64.0.1", "a shared (CGNAT) address"),
        ("224.0.0.251", "a multicast address"),
        ("ff02::1", "a multicast address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("::ffff:10.0.0.1", "a private address"),
        ("::127.0.0.1", "a loopback address"),
        ("64:ff9b::a9fe:a9fe", "a link-local address"),
        ("2002:7f00:1::1", "a loopback address"),
        ("198.18.0.1", "a private address"),
        ("240.0.0.1", "a private address"),
        ("93.184.215.14", None),
        ("2606:4700::1111", None),
        ("::ffff:8.8.8.8", None),
    ],
)
def test_addresses_that_are_not_public_are_refused_saying_what_they_are(
    address: str, why: str | None
) -> None:
    assert refused(ipaddress.ip_address(address)) == why


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_an_ipv4_address_mapped_into_ipv6_is_judged_as_the_address_inside(number: int) -> None:
    inner = ipaddress.IPv4Address(number)
    mapped = ipaddress.IPv6Address(f"::ffff:{inner}")
    nat64 = ipaddress.IPv6Address((0x64FF9B << 96) | number)
    assert refused(mapped) == refused(nat64) == refused(inner)


@pytest.mark.parametrize(
    ("written", "host"),
    [
        ("domain:example.com", "example.com"),
        ("domain:Example.COM.", "example.com"),
        ("domain:127.0.0.1", "127.0.0.1"),
        ("domain:[::1]", "::1"),
        ("domain:0:0::1", "::1"),
    ],
)
def test_a_rule_names_a_host_in_the_form_urls_are_compared_in(written: str, host: str) -> None:
    assert rule_host(written) == host


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://Example.com./x", "example.com"),
        ("http://[::1]:8080/", "::1"),
        ("http://127.0.0.1:5/", "127.0.0.1"),
        ("mailto:a@b", None),
    ],
)
def test_a_url_host_is_read_as_rules_name_it(url: str, host: str | None) -> None:
    assert url_host(url) == host
    if host is not None:
        assert normal_host(host) == host
