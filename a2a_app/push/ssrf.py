"""SSRF guard for push-notification webhooks: may the server POST to this URL?

The A2A spec says agents SHOULD validate webhook URLs, because a client chooses the URL
and the server makes the request from inside its own network. ``check_url`` accepts a
URL only if every address it can reach is public (or explicitly allowed by the
``URLPolicy`` the caller passes in), and returns those vetted addresses.

This module deliberately imports nothing from Django so it can be tested as plain
Python. Two things remain the caller's job, because only the sender can do them:
connect to the addresses ``check_url`` returned (or check again right before sending),
since a hostname may resolve differently a second time (DNS rebinding); and do not
follow redirects, since a redirect target was never checked.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_URL_LENGTH = 2048

DEFAULT_PORTS = {"https": 443, "http": 80}


class UnsafeURLError(ValueError):
    """A webhook URL the server refuses to call; the message is safe to show the client."""


class UnresolvableHostError(UnsafeURLError):
    """The URL is well formed but its host name does not resolve, now.

    Not a verdict on the URL: DNS may be down or the receiver not yet deployed. A caller
    registering a webhook may accept it (it is vetted again before every delivery); a
    sender treats it as a failed attempt to retry later.
    """


def resolve_host(host: str, port: int) -> list[str]:
    """Resolve ``host`` the way an HTTP client will: every family, unique addresses."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    addresses: dict[str, None] = {}
    for _family, _type, _proto, _canonname, sockaddr in infos:
        addresses[str(sockaddr[0])] = None
    return list(addresses)


def _networks(values: Iterable[ipaddress._BaseNetwork | str]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(value, strict=False) for value in values)


@dataclass(frozen=True)
class URLPolicy:
    """What the guard lets through beyond public addresses.

    ``allowed_hosts`` are hostnames trusted whatever they resolve to, and IP addresses
    (``"127.0.0.1"``, ``"::1"`` or ``"[::1]"``) accepted exactly, wherever they appear:
    as the URL's host or as what a name resolves to, like a one-address network.
    ``allowed_networks`` are CIDRs whose addresses are accepted, e.g. ``127.0.0.0/8`` for
    a conformance run against a local webhook receiver. Strings are accepted for both, so
    a policy can be built straight from settings.
    """

    allow_http: bool = False
    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[ipaddress._BaseNetwork, ...] = ()
    resolver: Callable[[str, int], list[str]] = resolve_host

    def __post_init__(self) -> None:
        # Normalized once here so that comparisons in check_url are exact: hostnames are
        # case-insensitive and "example.com." names the same host as "example.com".
        names, addresses = set(), []
        for host in self.allowed_hosts:
            address = _address_in_setting(host)
            if address is None:
                names.add(_normalize_name(host))
            else:
                # An address listed as a "host" means that address: a URL names it as a
                # literal, which never reaches the name comparison, so it becomes a
                # one-address network (/32 or /128).
                addresses.append(ipaddress.ip_network(address))
        object.__setattr__(self, "allowed_hosts", frozenset(names))
        networks = _networks(self.allowed_networks) + tuple(addresses)
        object.__setattr__(self, "allowed_networks", networks)


def _address_in_setting(host: str) -> IPAddress | None:
    """The IP address an ``allowed_hosts`` entry spells ("10.0.0.5", "::1", "[::1]"), else
    None (a host name)."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        pass
    try:  # the other spellings a URL may use for the same IPv4 address ("127.1")
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        return None


# Checked explicitly on top of ``is_global``, whose answer has changed between Python
# releases (e.g. multicast and ::/96 count as "global" on 3.11).
_BLOCKED_NETWORKS: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "a 'this network' address"),
    ("10.0.0.0/8", "a private address"),
    ("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
    ("127.0.0.0/8", "a loopback address"),
    ("169.254.0.0/16", "a link-local address"),
    ("172.16.0.0/12", "a private address"),
    ("192.0.0.0/24", "an IETF protocol assignment address"),
    ("192.0.2.0/24", "a documentation address"),
    ("192.88.99.0/24", "a 6to4 relay address"),
    ("192.168.0.0/16", "a private address"),
    ("198.18.0.0/15", "a benchmarking address"),
    ("198.51.100.0/24", "a documentation address"),
    ("203.0.113.0/24", "a documentation address"),
    ("224.0.0.0/4", "a multicast address"),
    ("240.0.0.0/4", "a reserved address"),
    ("::/128", "an unspecified address"),
    ("::1/128", "a loopback address"),
    # Deprecated IPv4-compatible addresses (::a.b.c.d): nothing legitimate uses them.
    ("::/96", "an IPv4-compatible address"),
    ("64:ff9b:1::/48", "a local-use NAT64 address"),
    ("100::/64", "a discard-only address"),
    # Teredo (2001::/32) tunnels to an IPv4 host we cannot see, so it is refused outright.
    ("2001::/32", "a Teredo address"),
    ("2001::/23", "an IETF protocol assignment address"),
    ("2001:db8::/32", "a documentation address"),
    ("3fff::/20", "a documentation address"),
    ("fc00::/7", "a private address"),
    ("fe80::/10", "a link-local address"),
    ("fec0::/10", "a site-local address"),
    ("ff00::/8", "a multicast address"),
)
BLOCKED_NETWORKS: tuple[tuple[IPNetwork, str], ...] = tuple(
    (ipaddress.ip_network(cidr), reason) for cidr, reason in _BLOCKED_NETWORKS
)

# The ipaddress module's own judgement, for what the list above does not name (ranges the
# IANA registries add later): the first property that holds says why.
_FALLBACK_CHECKS = (
    ("is_unspecified", "an unspecified address"),
    ("is_loopback", "a loopback address"),
    ("is_link_local", "a link-local address"),
    ("is_multicast", "a multicast address"),
    ("is_private", "a private address"),
    ("is_reserved", "a reserved address"),
)

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, str] | None:
    """The IPv4 host a packet to ``address`` really reaches, for the forms that carry one."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped, "IPv4-mapped"
    if address.sixtofour is not None:
        return address.sixtofour, "6to4"
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "NAT64"
    return None


def _blocked(address: IPAddress) -> str | None:
    """Why ``address`` is not public ("a private address 10.0.0.5"), or None if it is."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner, form = embedded
            why = _blocked(inner)
            return None if why is None else f"{why} ({form} {address})"
    reason = next((reason for network, reason in BLOCKED_NETWORKS if address in network), None)
    if reason is None:
        reason = next((why for check, why in _FALLBACK_CHECKS if getattr(address, check)), None)
    if reason is None and not address.is_global:
        reason = "a non-public address"
    return None if reason is None else f"{reason} {address}"


def is_public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """True if ``address`` is a globally routable unicast address the server may call.

    IPv6 forms that embed an IPv4 address (IPv4-mapped, 6to4, NAT64) are judged by the
    IPv4 address they lead to.
    """
    return _blocked(address) is None


def _in_networks(address: IPAddress, networks: tuple[IPNetwork, ...]) -> bool:
    # ::ffff:127.0.0.1 connects to 127.0.0.1, so an IPv4 allowance covers its mapped form.
    candidates: list[IPAddress] = [address]
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        candidates.append(address.ipv4_mapped)
    return any(candidate in network for candidate in candidates for network in networks)


def _parse_address(text: str) -> IPAddress:
    # A zone id (fe80::1%eth0, or %25eth0 in a URL) picks an interface, not a host.
    return ipaddress.ip_address(text.split("%", 1)[0])


def _normalize_name(host: str) -> str:
    host = host.lower()
    return host[:-1] if host.endswith(".") else host


# Letters, digits, hyphen and underscore (seen in internal names); labels of 1..63.
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME_RE = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
# The WHATWG URL standard reads a host whose last label is numeric as IPv4.
_NUMERIC_LABEL_RE = re.compile(r"0x[0-9a-f]*|[0-9]+")
# Whitespace, control characters and backslashes are where URL parsers disagree: an HTTP
# client may split the URL elsewhere than urlsplit did and reach a host we never checked.
_FORBIDDEN_CHARS_RE = re.compile(r"[\x00-\x20\x7f\\]")


def _ipv4_literal(host: str) -> ipaddress.IPv4Address | None:
    """The address of an IPv4 literal in any spelling getaddrinfo accepts, else None.

    "2130706433", "0x7f.0.0.1", "0177.0.0.1" and "127.1" all mean 127.0.0.1 to
    ``inet_aton``, which is what the resolver consults first.
    """
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        pass
    if _NUMERIC_LABEL_RE.fullmatch(host.rstrip(".").rsplit(".", 1)[-1]):
        raise UnsafeURLError(f"URL host {host} is not a valid IPv4 address")
    return None


def _check_address(host: str, address: IPAddress, policy: URLPolicy, verb: str) -> None:
    if _in_networks(address, policy.allowed_networks):
        return
    why = _blocked(address)
    if why is not None:
        raise UnsafeURLError(f"URL host {host} {verb} {why}")


def check_url(url: str, policy: URLPolicy) -> list[str]:
    """Vet a webhook URL and return the IP addresses the server may connect to.

    Raises ``UnsafeURLError`` saying why when the URL is malformed, uses a refused scheme
    or userinfo, or any address the host resolves to is not public and not allowed by
    ``policy``. One bad address is enough: the HTTP client may pick any of them. A host
    name that does not resolve raises the subclass ``UnresolvableHostError``.
    """
    if not isinstance(url, str):
        raise UnsafeURLError("URL must be a string")
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeURLError(f"URL is longer than {MAX_URL_LENGTH} characters")
    if _FORBIDDEN_CHARS_RE.search(url):
        raise UnsafeURLError("URL contains whitespace, control characters or backslashes")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURLError(f"URL is malformed: {exc}") from None

    allowed_schemes = ("https", "http") if policy.allow_http else ("https",)
    if parts.scheme not in allowed_schemes:
        raise UnsafeURLError(f"URL scheme must be {' or '.join(allowed_schemes)}")
    if "@" in parts.netloc:
        raise UnsafeURLError("URL must not contain credentials (user:password@)")
    if not parts.hostname:
        raise UnsafeURLError("URL has no host")
    if port is not None and not 1 <= port <= 65535:
        raise UnsafeURLError("URL port must be between 1 and 65535")
    if port is None:
        port = DEFAULT_PORTS[parts.scheme]
    if not parts.netloc.isascii():
        raise UnsafeURLError("URL host must be ASCII (use the punycode form of the name)")

    host = parts.hostname  # lowercased by urlsplit, brackets removed
    if parts.netloc.startswith("["):
        try:
            literal: IPAddress | None = ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            raise UnsafeURLError("URL host is not a valid IPv6 address") from None
        display = f"[{host}]"
    else:
        if not _HOSTNAME_RE.fullmatch(host) or len(host.rstrip(".")) > 253:
            raise UnsafeURLError("URL host is not a valid hostname")
        literal = _ipv4_literal(host)
        display = host

    if literal is not None:
        _check_address(display, literal, policy, "is")
        return [str(literal)]

    try:
        resolved = policy.resolver(host, port)
    except (OSError, ValueError):
        raise UnresolvableHostError(f"cannot resolve URL host {host}") from None
    if not resolved:
        raise UnresolvableHostError(f"cannot resolve URL host {host}")
    try:
        addresses = list(dict.fromkeys(_parse_address(str(text)) for text in resolved))
    except ValueError:
        # A resolver answer that is not an address is no address we could vet.
        raise UnsafeURLError(
            f"URL host {host} resolves to something that is not an address"
        ) from None

    if _normalize_name(host) not in policy.allowed_hosts:
        for address in addresses:
            _check_address(host, address, policy, "resolves to")
    return [str(address) for address in addresses]
