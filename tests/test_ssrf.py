"""The webhook SSRF guard: which URLs the server may POST to, without touching the network.

Every test passes a stub resolver; only ``test_resolve_host_localhost`` resolves a real
name, and that name is "localhost".
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable

import pytest

from a2a_app.push import ssrf
from a2a_app.push.ssrf import (
    UnresolvableHostError,
    UnsafeURLError,
    URLPolicy,
    check_url,
    is_public_address,
    resolve_host,
)

PUBLIC_V4 = "93.184.215.14"
PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c"

DNS: dict[str, list[str]] = {
    "hooks.example.com": [PUBLIC_V4],
    "dual.example.com": [PUBLIC_V4, PUBLIC_V6],
    "mixed.example.com": [PUBLIC_V4, "10.0.0.5"],
    "mixed6.example.com": [PUBLIC_V6, "fd00::1"],
    "rebind.example.com": [PUBLIC_V4, "127.0.0.1"],
    "metadata.example.com": ["169.254.169.254"],
    "mapped.example.com": ["::ffff:10.0.0.5"],
    "scoped.example.com": ["fe80::1%eth0"],
    "localhost": ["127.0.0.1", "::1"],
    "hooks.internal.example": ["10.1.2.3"],
    "empty.example.com": [],
    "garbage.example.com": ["not-an-address"],
}


def stub_resolver(calls: list[tuple[str, int]] | None = None) -> Callable[[str, int], list[str]]:
    """A resolver answering from ``DNS``; unknown names fail like getaddrinfo does."""

    def resolve(host: str, port: int) -> list[str]:
        if calls is not None:
            calls.append((host, port))
        try:
            return list(DNS[host.rstrip(".")])
        except KeyError:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None

    return resolve


def no_dns(host: str, port: int) -> list[str]:
    # IP literals must be judged without asking a resolver at all.
    raise AssertionError(f"resolver called for {host}:{port}")


DEFAULT = URLPolicy(resolver=stub_resolver())


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://hooks.example.com/hook", [PUBLIC_V4]),
        ("https://HOOKS.Example.COM:8443/a?b=c#d", [PUBLIC_V4]),
        ("https://hooks.example.com./hook", [PUBLIC_V4]),
        ("https://dual.example.com/", [PUBLIC_V4, PUBLIC_V6]),
        ("https://8.8.8.8/hook", ["8.8.8.8"]),
        ("https://[2001:4860:4860::8888]/hook", ["2001:4860:4860::8888"]),
        ("https://[::ffff:8.8.8.8]/", ["::ffff:808:808"]),
        ("https://[2002:808:808::1]/", ["2002:808:808::1"]),
        ("https://[64:ff9b::808:808]/", ["64:ff9b::808:808"]),
        ("https://hooks.example.com:65535/", [PUBLIC_V4]),
    ],
)
def test_allowed_urls_return_vetted_addresses(url: str, expected: list[str]) -> None:
    assert check_url(url, DEFAULT) == expected


@pytest.mark.parametrize(
    ("url", "message"),
    [
        # Scheme, credentials, shape.
        ("http://hooks.example.com/hook", "scheme must be https"),
        ("ftp://hooks.example.com/hook", "scheme must be https"),
        ("file:///etc/passwd", "scheme must be https"),
        ("hooks.example.com/hook", "scheme must be https"),
        ("https://user:pass@hooks.example.com/", "credentials"),
        ("https://user@hooks.example.com/", "credentials"),
        ("https://hooks.example.com@127.0.0.1/", "credentials"),
        ("https:///hook", "no host"),
        ("https://:443/hook", "no host"),
        ("https://hooks.example.com:0/", "port must be between 1 and 65535"),
        ("https://hooks.example.com:65536/", "malformed"),
        ("https://hooks.example.com:http/", "malformed"),
        ("https://[::1/", "malformed"),
        ("https://hooks.example.com/" + "a" * 2048, "longer than 2048"),
        ("https://hooks.example.com\\@127.0.0.1/", "backslashes"),
        ("https://127.0.0.1 .hooks.example.com/", "whitespace"),
        ("https://hooks.example.com\t/", "whitespace"),
        ("https://hooks\x00.example.com/", "control"),
        ("https://bücher.example/", "ASCII"),
        ("https://hooks..example.com/", "not a valid hostname"),
        ("https://-hooks.example.com/", "not a valid hostname"),
        ("https://hooks%2eexample.com/", "not a valid hostname"),
        ("https://[v1.fe]/", "not a valid IPv6 address"),
        # Resolution.
        ("https://nowhere.example.com/", "cannot resolve URL host nowhere.example.com"),
        ("https://empty.example.com/", "cannot resolve"),
        ("https://garbage.example.com/", "resolves to something that is not an address"),
        # IPv4 literals, in every spelling inet_aton (and so getaddrinfo) accepts.
        ("https://127.0.0.1/", "is a loopback address 127.0.0.1"),
        ("https://2130706433/", "is a loopback address 127.0.0.1"),
        ("https://0x7f000001/", "is a loopback address 127.0.0.1"),
        ("https://0x7f.0.0.1/", "is a loopback address 127.0.0.1"),
        ("https://0177.0.0.1/", "is a loopback address 127.0.0.1"),
        ("https://127.1/", "is a loopback address 127.0.0.1"),
        ("https://127.0.0.1./", "not a valid IPv4 address"),
        ("https://127.0.0.256/", "not a valid IPv4 address"),
        ("https://hooks.0x/", "not a valid IPv4 address"),
        ("https://0/", "'this network' address 0.0.0.0"),
        ("https://0.0.0.0/", "address 0.0.0.0"),
        ("https://10.0.0.5/", "is a private address 10.0.0.5"),
        ("https://172.16.0.1/", "is a private address 172.16.0.1"),
        ("https://192.168.1.1/", "is a private address 192.168.1.1"),
        ("https://169.254.169.254/latest/meta-data/", "is a link-local address 169.254.169.254"),
        ("https://100.64.0.1/", "shared (carrier-grade NAT) address 100.64.0.1"),
        ("https://198.18.0.1/", "benchmarking address 198.18.0.1"),
        ("https://192.0.2.1/", "documentation address 192.0.2.1"),
        ("https://224.0.0.1/", "multicast address 224.0.0.1"),
        ("https://240.0.0.1/", "reserved address 240.0.0.1"),
        ("https://255.255.255.255/", "reserved address 255.255.255.255"),
        # IPv6 literals, including the forms that carry an IPv4 address.
        ("https://[::1]/", "is a loopback address ::1"),
        ("https://[::]/", "address ::"),
        ("https://[fe80::1%25eth0]/", "is a link-local address fe80::1"),
        ("https://[fd00::1]/", "is a private address fd00::1"),
        ("https://[ff02::1]/", "multicast address ff02::1"),
        ("https://[2001:db8::1]/", "documentation address 2001:db8::1"),
        ("https://[::ffff:169.254.169.254]/", "link-local address 169.254.169.254 (IPv4-mapped"),
        ("https://[::ffff:7f00:1]/", "loopback address 127.0.0.1 (IPv4-mapped"),
        ("https://[::127.0.0.1]/", "IPv4-compatible address ::7f00:1"),
        ("https://[::8.8.8.8]/", "IPv4-compatible address"),
        ("https://[2002:7f00:1::]/", "loopback address 127.0.0.1 (6to4"),
        ("https://[2002:a9fe:a9fe::1]/", "link-local address 169.254.169.254 (6to4"),
        ("https://[64:ff9b::a00:1]/", "private address 10.0.0.1 (NAT64"),
        ("https://[64:ff9b::7f00:1]/", "loopback address 127.0.0.1 (NAT64"),
        ("https://[64:ff9b:1::808:808]/", "local-use NAT64"),
        ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo address"),
        # Hostnames: every resolved address must pass.
        ("https://localhost/", "localhost resolves to a loopback address"),
        ("https://mixed.example.com/", "mixed.example.com resolves to a private address 10.0.0.5"),
        ("https://mixed6.example.com/", "resolves to a private address fd00::1"),
        ("https://rebind.example.com/", "resolves to a loopback address 127.0.0.1"),
        ("https://metadata.example.com/", "resolves to a link-local address 169.254.169.254"),
        ("https://mapped.example.com/", "private address 10.0.0.5 (IPv4-mapped"),
        ("https://scoped.example.com/", "resolves to a link-local address fe80::1"),
    ],
)
def test_blocked_urls(url: str, message: str) -> None:
    with pytest.raises(UnsafeURLError) as excinfo:
        check_url(url, DEFAULT)
    assert message in str(excinfo.value)


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/",
        "https://2130706433/",
        "https://0x7f.0.0.1/",
        "https://127.1/",
        "https://[::1]/",
        "https://[::ffff:169.254.169.254]/",
        "https://[fe80::1%25eth0]/",
    ],
)
def test_ip_literals_are_judged_without_the_resolver(url: str) -> None:
    with pytest.raises(UnsafeURLError):
        check_url(url, URLPolicy(resolver=no_dns))


def test_public_ip_literal_skips_the_resolver() -> None:
    assert check_url("https://8.8.8.8/", URLPolicy(resolver=no_dns)) == ["8.8.8.8"]


def test_resolver_gets_host_and_default_port() -> None:
    calls: list[tuple[str, int]] = []
    policy = URLPolicy(allow_http=True, resolver=stub_resolver(calls))
    check_url("https://hooks.example.com/", policy)
    check_url("http://hooks.example.com/", policy)
    check_url("https://hooks.example.com:8443/", policy)
    assert calls == [
        ("hooks.example.com", 443),
        ("hooks.example.com", 80),
        ("hooks.example.com", 8443),
    ]


def test_http_needs_allow_http() -> None:
    with pytest.raises(UnsafeURLError, match="scheme must be https"):
        check_url("http://hooks.example.com/hook", DEFAULT)
    policy = URLPolicy(allow_http=True, resolver=stub_resolver())
    assert check_url("http://hooks.example.com/hook", policy) == [PUBLIC_V4]
    # allow_http widens the scheme, never the addresses.
    with pytest.raises(UnsafeURLError, match="loopback"):
        check_url("http://127.0.0.1:8080/hook", policy)


def test_allowed_networks_let_a_local_receiver_through() -> None:
    policy = URLPolicy(
        allow_http=True,
        allowed_networks=(ipaddress.ip_network("127.0.0.0/8"),),
        resolver=stub_resolver(),
    )
    assert check_url("http://127.0.0.1:8080/hook", policy) == ["127.0.0.1"]
    assert check_url("http://127.1:8080/hook", policy) == ["127.0.0.1"]
    assert check_url("http://[::ffff:127.0.0.1]:8080/hook", policy) == ["::ffff:7f00:1"]
    # Only the allowed network: ::1 and other private ranges stay blocked.
    with pytest.raises(UnsafeURLError, match="loopback address ::1"):
        check_url("http://[::1]:8080/hook", policy)
    with pytest.raises(UnsafeURLError, match="loopback address ::1"):
        check_url("http://localhost:8080/hook", policy)
    with pytest.raises(UnsafeURLError, match="private address 10.0.0.5"):
        check_url("http://10.0.0.5/hook", policy)


def test_allowed_networks_accept_strings() -> None:
    policy = URLPolicy(allowed_networks=("10.0.0.0/8", "::1"), resolver=stub_resolver())
    assert check_url("https://10.0.0.5/", policy) == ["10.0.0.5"]
    with pytest.raises(UnsafeURLError, match="loopback address 127.0.0.1"):
        check_url("https://localhost/", policy)


def test_allowed_hosts_skip_the_address_checks() -> None:
    policy = URLPolicy(
        allowed_hosts=frozenset({"Hooks.Internal.Example."}), resolver=stub_resolver()
    )
    assert check_url("https://hooks.internal.example/hook", policy) == ["10.1.2.3"]
    assert check_url("https://HOOKS.INTERNAL.EXAMPLE./hook", policy) == ["10.1.2.3"]
    # Exact names only: no suffix matching, and the scheme rule still applies.
    with pytest.raises(UnsafeURLError, match="cannot resolve"):
        check_url("https://evil.hooks.internal.example/", policy)
    with pytest.raises(UnsafeURLError, match="scheme"):
        check_url("http://hooks.internal.example/hook", policy)
    with pytest.raises(UnsafeURLError, match="private address 10.1.2.3"):
        check_url("https://hooks.internal.example/hook", DEFAULT)


@pytest.mark.parametrize("listed", ["127.0.0.1", " 127.0.0.1 ", "127.1"])
def test_an_ipv4_address_in_allowed_hosts_exempts_that_address(listed: str) -> None:
    policy = URLPolicy(allow_http=True, allowed_hosts=frozenset({listed}), resolver=stub_resolver())
    assert check_url("http://127.0.0.1:8080/hook", policy) == ["127.0.0.1"]
    assert check_url("http://127.1:8080/hook", policy) == ["127.0.0.1"]  # same address
    assert check_url("http://[::ffff:127.0.0.1]:8080/hook", policy) == ["::ffff:7f00:1"]
    # Exactly that address: its neighbours, ::1 and names reaching ::1 stay blocked.
    with pytest.raises(UnsafeURLError, match="loopback address 127.0.0.2"):
        check_url("http://127.0.0.2:8080/hook", policy)
    with pytest.raises(UnsafeURLError, match="loopback address ::1"):
        check_url("http://[::1]:8080/hook", policy)
    with pytest.raises(UnsafeURLError, match="loopback address ::1"):
        check_url("http://localhost:8080/hook", policy)


@pytest.mark.parametrize("listed", ["::1", "[::1]", "0:0:0:0:0:0:0:1"])
def test_an_ipv6_address_in_allowed_hosts_exempts_that_address(listed: str) -> None:
    policy = URLPolicy(allowed_hosts=frozenset({listed}), resolver=stub_resolver())
    assert check_url("https://[::1]:8443/hook", policy) == ["::1"]
    with pytest.raises(UnsafeURLError, match="loopback address 127.0.0.1"):
        check_url("https://127.0.0.1/hook", policy)


def test_addresses_and_names_in_allowed_hosts_together() -> None:
    policy = URLPolicy(
        allowed_hosts=frozenset({"10.0.0.5", "hooks.internal.example"}),
        resolver=stub_resolver(),
    )
    assert check_url("https://10.0.0.5/hook", policy) == ["10.0.0.5"]
    assert check_url("https://hooks.internal.example/hook", policy) == ["10.1.2.3"]
    # A listed address is that address however the URL reaches it, like a /32 network.
    assert check_url("https://mapped.example.com/hook", policy) == ["::ffff:a00:5"]
    assert policy.allowed_hosts == frozenset({"hooks.internal.example"})
    with pytest.raises(UnsafeURLError, match="private address 10.0.0.6"):
        check_url("https://10.0.0.6/hook", policy)


def test_resolver_value_error_is_a_resolution_failure() -> None:
    def broken(host: str, port: int) -> list[str]:
        raise UnicodeError("label too long")

    with pytest.raises(UnresolvableHostError, match="cannot resolve URL host hooks.example.com"):
        check_url("https://hooks.example.com/", URLPolicy(resolver=broken))


@pytest.mark.parametrize("host", ["nowhere.example.com", "empty.example.com"])
def test_a_name_that_does_not_resolve_is_told_apart(host: str) -> None:
    # Callers accept such a URL at registration and retry it at delivery, so the guard
    # must say "does not resolve" apart from "resolves somewhere unsafe".
    with pytest.raises(UnresolvableHostError, match=f"cannot resolve URL host {host}"):
        check_url(f"https://{host}/hook", DEFAULT)


@pytest.mark.parametrize(
    "url",
    [
        "https://garbage.example.com/",
        "https://rebind.example.com/",
        "https://127.0.0.1/",
        "https://[::1]/",
        "http://nowhere.example.com/",
    ],
)
def test_refusals_are_not_mistaken_for_resolution_failures(url: str) -> None:
    with pytest.raises(UnsafeURLError) as caught:
        check_url(url, DEFAULT)
    assert not isinstance(caught.value, UnresolvableHostError), caught.value


def test_non_string_url() -> None:
    with pytest.raises(UnsafeURLError, match="must be a string"):
        check_url(b"https://hooks.example.com/", DEFAULT)  # type: ignore[arg-type]


def test_url_at_the_length_limit_is_accepted() -> None:
    base = "https://hooks.example.com/"
    assert check_url(base + "a" * (2048 - len(base)), DEFAULT) == [PUBLIC_V4]


def test_unsafe_url_error_is_a_value_error() -> None:
    assert issubclass(UnsafeURLError, ValueError)


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        (PUBLIC_V6, True),
        ("::ffff:8.8.8.8", True),
        ("2002:808:808::", True),
        ("64:ff9b::808:808", True),
        ("127.0.0.1", False),
        ("127.255.255.254", False),
        ("10.255.255.255", False),
        ("172.31.0.1", False),
        ("172.32.0.1", True),
        ("192.168.0.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("100.127.255.255", False),
        ("100.128.0.1", True),
        ("198.18.0.1", False),
        ("198.19.255.255", False),
        ("198.51.100.1", False),
        ("203.0.113.1", False),
        ("224.0.0.251", False),
        ("239.255.255.250", False),
        ("0.0.0.0", False),
        ("::", False),
        ("::1", False),
        ("fe80::1", False),
        ("fe80::1%eth0", False),
        ("fc00::1", False),
        ("fd12:3456::1", False),
        ("ff02::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("::127.0.0.1", False),
        ("2002:7f00:1::", False),
        ("2002:c0a8:101::", False),
        ("64:ff9b::a00:1", False),
        ("64:ff9b::a9fe:a9fe", False),
        ("2001::1", False),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(ipaddress.ip_address(address)) is public


def test_resolve_host_localhost() -> None:
    # The only real lookup in this file: "localhost" never leaves the machine.
    addresses = resolve_host("localhost", 443)
    assert addresses
    assert len(addresses) == len(set(addresses))
    for text in addresses:
        assert ipaddress.ip_address(text.split("%", 1)[0]).is_loopback


# --- Exactly what the client is told, and the edges of each rule ---------------------------


def any_name(host: str, port: int) -> list[str]:
    """A resolver for tests about the shape of a name, not what it resolves to."""
    return [PUBLIC_V4]


@pytest.mark.parametrize(
    ("url", "policy", "message"),
    [
        (
            "https://hooks.example.com/\n",
            DEFAULT,
            "URL contains whitespace, control characters or backslashes",
        ),
        ("ftp://hooks.example.com/", DEFAULT, "URL scheme must be https"),
        (
            "ftp://hooks.example.com/",
            URLPolicy(allow_http=True),
            "URL scheme must be https or http",
        ),
        (
            "https://user@hooks.example.com/",
            DEFAULT,
            "URL must not contain credentials (user:password@)",
        ),
        ("https:///hook", DEFAULT, "URL has no host"),
        ("https://hooks.example.com:0/", DEFAULT, "URL port must be between 1 and 65535"),
        (
            "https://bücher.example/",
            DEFAULT,
            "URL host must be ASCII (use the punycode form of the name)",
        ),
        ("https://[v1.fe]/", DEFAULT, "URL host is not a valid IPv6 address"),
        ("https://-hooks.example.com/", DEFAULT, "URL host is not a valid hostname"),
        # The URL's own spelling of the host, then why: what the client needs to fix it.
        ("https://127.1/", DEFAULT, "URL host 127.1 is a loopback address 127.0.0.1"),
        ("https://[::1]/", DEFAULT, "URL host [::1] is a loopback address ::1"),
        (
            "https://localhost/",
            DEFAULT,
            "URL host localhost resolves to a loopback address 127.0.0.1",
        ),
    ],
)
def test_refusals_say_exactly_why(url: str, policy: URLPolicy, message: str) -> None:
    with pytest.raises(UnsafeURLError) as excinfo:
        check_url(url, policy)
    assert str(excinfo.value) == message


def test_a_url_that_is_not_text_is_refused_as_such() -> None:
    with pytest.raises(UnsafeURLError) as excinfo:
        check_url(None, DEFAULT)  # type: ignore[arg-type]
    assert str(excinfo.value) == "URL must be a string"


def test_port_one_is_the_lowest_accepted() -> None:
    assert check_url("https://hooks.example.com:1/", DEFAULT) == [PUBLIC_V4]


def test_a_host_name_may_have_253_characters_and_no_more() -> None:
    # Four labels of 63, 63, 63 and 61 characters with their dots: 253 characters.
    longest = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
    assert len(longest) == 253
    policy = URLPolicy(resolver=any_name)
    assert check_url(f"https://{longest}/", policy) == [PUBLIC_V4]
    assert check_url(f"https://{longest}./", policy) == [PUBLIC_V4]  # the root's dot is free
    with pytest.raises(UnsafeURLError) as excinfo:
        check_url(f"https://{longest}d/", policy)
    assert str(excinfo.value) == "URL host is not a valid hostname"


# Each special-purpose range (IANA's IPv4 and IPv6 special-purpose registries), with the
# reason the client is told. The IPv6 reserved blocks (::/8 outside ::/96, 400::/6, ...) are
# caught by the ipaddress module's own judgement, not by a range we list.
@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("0.1.2.3", "a 'this network' address"),
        ("10.20.30.40", "a private address"),
        ("100.100.0.1", "a shared (carrier-grade NAT) address"),
        ("127.8.8.8", "a loopback address"),
        ("169.254.1.1", "a link-local address"),
        ("172.20.0.1", "a private address"),
        ("192.0.0.1", "an IETF protocol assignment address"),
        ("192.0.0.9", "an IETF protocol assignment address"),
        ("192.0.2.7", "a documentation address"),
        ("192.88.99.1", "a 6to4 relay address"),
        ("192.168.7.7", "a private address"),
        ("198.19.0.1", "a benchmarking address"),
        ("198.51.100.7", "a documentation address"),
        ("203.0.113.7", "a documentation address"),
        ("233.252.0.1", "a multicast address"),
        ("250.1.2.3", "a reserved address"),
        ("::", "an unspecified address"),
        ("::1", "a loopback address"),
        ("::2", "an IPv4-compatible address"),
        ("64:ff9b:1::1", "a local-use NAT64 address"),
        ("100::1", "a discard-only address"),
        ("2001::1", "a Teredo address"),
        ("2001:2::1", "an IETF protocol assignment address"),
        ("2001:10::1", "an IETF protocol assignment address"),
        ("2001:db8::7", "a documentation address"),
        ("3fff::1", "a documentation address"),
        ("fc00::1", "a private address"),
        ("fd12::1", "a private address"),
        ("fe80::7", "a link-local address"),
        ("fec0::1", "a site-local address"),
        ("ff05::2", "a multicast address"),
        ("4::1", "a reserved address"),
        ("::1:2:3:4", "a reserved address"),
        ("400::1", "a reserved address"),
        ("5f00::1", "a reserved address"),
    ],
)
def test_special_purpose_addresses_are_refused_by_name(address: str, reason: str) -> None:
    spelled = f"[{address}]" if ":" in address else address
    with pytest.raises(UnsafeURLError) as excinfo:
        check_url(f"https://{spelled}/hook", URLPolicy(resolver=no_dns))
    assert str(excinfo.value) == f"URL host {spelled} is {reason} {address}"
    assert not is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://[fe80::1%25eth0]/", "URL host [fe80::1%25eth0] is a link-local address fe80::1"),
        (
            "https://scoped.example.com/",
            "URL host scoped.example.com resolves to a link-local address fe80::1",
        ),
    ],
)
def test_a_zone_id_is_never_part_of_the_vetted_address(url: str, message: str) -> None:
    with pytest.raises(UnsafeURLError) as excinfo:
        check_url(url, DEFAULT)
    assert str(excinfo.value) == message
    # Allowed, the address handed to the sender carries no zone either.
    policy = URLPolicy(allowed_networks=("fe80::/10",), resolver=stub_resolver())
    assert check_url(url, policy) == ["fe80::1"]


def test_an_allowed_network_written_with_host_bits_means_its_network() -> None:
    # "10.0.0.1/8" as `ip addr` prints it: the site means the network 10.0.0.0/8.
    policy = URLPolicy(allowed_networks=("10.0.0.1/8",), resolver=no_dns)
    assert check_url("https://10.9.9.9/hook", policy) == ["10.9.9.9"]


def test_a_half_bracketed_allowed_host_exempts_no_address() -> None:
    # "[::1" is a typo, not an address: it must not exempt ::1, nor anything near it.
    policy = URLPolicy(allowed_hosts=frozenset({"[::1"}), resolver=no_dns)
    for url, message in [
        ("https://[::]/", "URL host [::] is an unspecified address ::"),
        ("https://[::1]/", "URL host [::1] is a loopback address ::1"),
    ]:
        with pytest.raises(UnsafeURLError) as excinfo:
            check_url(url, policy)
        assert str(excinfo.value) == message


def test_the_real_resolver_resolves_the_host_it_is_given() -> None:
    # A numeric host is answered by getaddrinfo itself: no network, yet the real code path.
    assert resolve_host("203.0.113.7", 443) == ["203.0.113.7"]
    assert resolve_host("2001:db8::7", 443) == ["2001:db8::7"]


def test_the_default_policy_uses_the_real_resolver() -> None:
    with pytest.raises(UnsafeURLError) as excinfo:
        check_url("https://localhost/hook", URLPolicy())
    assert str(excinfo.value).startswith("URL host localhost resolves to a loopback address ")


# --- each layer on its own ------------------------------------------------------------
# The guard's list names every range it refuses, so that a Python release that changes
# ipaddress's judgement (is_global, is_private) changes nothing; ipaddress's properties
# then catch what the list does not name. Each layer is tested with the other one off.

LISTED = [
    ("0.0.0.1", "a 'this network' address"),
    ("10.0.0.1", "a private address"),
    ("100.64.0.1", "a shared (carrier-grade NAT) address"),
    ("127.0.0.1", "a loopback address"),
    ("169.254.0.1", "a link-local address"),
    ("172.16.0.1", "a private address"),
    ("192.0.0.1", "an IETF protocol assignment address"),
    ("192.0.2.1", "a documentation address"),
    ("192.88.99.1", "a 6to4 relay address"),
    ("192.168.0.1", "a private address"),
    ("198.18.0.1", "a benchmarking address"),
    ("198.51.100.1", "a documentation address"),
    ("203.0.113.1", "a documentation address"),
    ("224.0.0.1", "a multicast address"),
    ("240.0.0.1", "a reserved address"),
    ("::", "an unspecified address"),
    ("::1", "a loopback address"),
    ("::5", "an IPv4-compatible address"),
    ("64:ff9b:1::1", "a local-use NAT64 address"),
    ("100::1", "a discard-only address"),
    ("2001::1", "a Teredo address"),
    ("2001:2::1", "an IETF protocol assignment address"),
    ("2001:db8::1", "a documentation address"),
    ("3fff::1", "a documentation address"),
    ("fc00::1", "a private address"),
    ("fe80::1", "a link-local address"),
    ("fec0::1", "a site-local address"),
    ("ff02::1", "a multicast address"),
]


@pytest.fixture
def everything_global(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python whose ipaddress calls every address public: only the guard's list is left."""
    monkeypatch.setattr(ssrf, "_FALLBACK_CHECKS", ())
    for cls in (ipaddress.IPv4Address, ipaddress.IPv6Address):
        monkeypatch.setattr(cls, "is_global", property(lambda self: True))


@pytest.mark.parametrize(("address", "reason"), LISTED)
def test_the_list_alone_refuses_every_range_it_names(
    everything_global: None, address: str, reason: str
) -> None:
    assert ssrf._blocked(ipaddress.ip_address(address)) == f"{reason} {address}"


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700::1111", "192.88.100.1", "fe00::1"])
def test_the_list_alone_lets_public_addresses_through(
    everything_global: None, address: str
) -> None:
    assert ssrf._blocked(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("0.0.0.0", "an unspecified address"),
        ("::", "an unspecified address"),
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("169.254.0.1", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("224.0.0.1", "a multicast address"),
        ("ff02::1", "a multicast address"),
        ("10.0.0.1", "a private address"),
        ("fc00::1", "a private address"),
        ("4::1", "a reserved address"),
        ("100.64.0.1", "a non-public address"),
        ("8.8.8.8", None),
    ],
)
def test_ipaddress_alone_catches_what_the_list_does_not_name(
    monkeypatch: pytest.MonkeyPatch, address: str, reason: str | None
) -> None:
    monkeypatch.setattr(ssrf, "BLOCKED_NETWORKS", ())
    expected = None if reason is None else f"{reason} {address}"
    assert ssrf._blocked(ipaddress.ip_address(address)) == expected
