"""Which hosts and addresses WebFetch may reach, and how a rule names a host. Pure.

A model could use a fetch to probe the user's network (a router's page, a cloud's
metadata service at 169.254.169.254, a database on localhost), so WebFetch reaches only
public addresses unless a rule names the host (``WebFetch(domain:127.0.0.1)``).
``refused`` says why an address is not public: loopback, private, link-local, CGNAT,
multicast, unspecified, reserved, and the IPv6 forms that carry an IPv4 address
(IPv4-mapped ``::ffff:127.0.0.1``, IPv4-compatible, NAT64 ``64:ff9b::/96``, 6to4), each
judged by the address inside. Hosts are compared in one normal form (``normal_host``):
lower case, no trailing dot, IP literals without brackets and in their compressed form,
so that a rule written ``[::1]`` names the host of ``http://[::1]:8080/``.
"""

from __future__ import annotations

import ipaddress

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_COMPATIBLE = ipaddress.ip_network("::/96")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
DOMAIN_PREFIX = "domain:"


def normal_host(text: str) -> str:
    """``text`` as hosts are compared: lower case, no brackets or trailing dot, an IP
    literal in its compressed form."""
    host = text.strip().lower().removeprefix("[").removesuffix("]").rstrip(".")
    try:
        return ipaddress.ip_address(host).compressed
    except ValueError:
        return host


def rule_host(specifier: str) -> str:
    """The host a ``WebFetch(domain:HOST)`` rule's specifier names; ``ValueError`` saying
    what is wrong with it."""
    if not specifier.startswith(DOMAIN_PREFIX):
        raise ValueError(
            f"WebFetch({specifier}) is not a domain rule: write WebFetch(domain:example.com) "
            "or WebFetch(domain:127.0.0.1)"
        )
    host = normal_host(specifier.removeprefix(DOMAIN_PREFIX))
    if not host or any(char in host for char in "/?#@ \t*") or (":" in host and not _is_ip(host)):
        raise ValueError(
            f"WebFetch({specifier}) names no host: write a name or an IP address alone, "
            "without a scheme, port, path or wildcard (any port is covered)"
        )
    return host


def refused(address: IPAddress) -> str | None:
    """Why ``address`` is not a public one WebFetch may reach unasked by a rule; None
    when it is."""
    inner = embedded_ipv4(address)
    if inner is not None:
        return refused(inner)
    if address.is_loopback:
        return "a loopback address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return "a shared (CGNAT) address"
    if address.is_private:
        return "a private address"
    if not address.is_global:
        return "a reserved address"
    return None


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or (address in _COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def ip_literal(host: str) -> IPAddress | None:
    """``host`` as an IP address, when it is one written as such."""
    try:
        return ipaddress.ip_address(normal_host(host))
    except ValueError:
        return None


def _is_ip(host: str) -> bool:
    return ip_literal(host) is not None


def url_host(url: str) -> str | None:
    """The host of ``url`` in ``normal_host``'s form, as the fetch reads it; None when it
    has none. The one reading the permissions and the fetch share."""
    try:
        host = httpx.URL(url.strip()).host
    except httpx.InvalidURL:
        return None
    return normal_host(host) if host else None
