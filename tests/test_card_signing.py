"""The signed agent card (spec §8.4): verified by the official a2a-sdk's own resolver and
verifier, tampering caught, keys rotated, the JWKS served, keys made and checked.

The SDK (a test-only dependency) fetches the card and the JWKS from this site through an
httpx transport that hands each request to Django's test client.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
import rfc8785
from a2a.client import A2ACardResolver
from a2a.client.card_resolver import parse_agent_card
from a2a.types import AgentCard
from a2a.utils._jcs import canonicalize
from a2a.utils.signing import InvalidSignaturesError, create_signature_verifier
from asgiref.sync import async_to_sync, sync_to_async
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from google.api import field_behavior_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.json_format import MessageToDict

from a2a_app import card_signing, checks
from a2a_app.models import Skill
from a2a_app.protocol.card_payload import MESSAGES, CardPayloadError, payloads, spec_payload
from a2a_app.skills.registry import SkillSpec, registered

pytestmark = pytest.mark.django_db

CARD_URL = "/.well-known/agent-card.json"
JWKS_URL = "/.well-known/jwks.json"
BASE = "http://testserver"


def new_pem(curve: ec.EllipticCurve | None = None) -> str:
    key = ec.generate_private_key(curve or ec.SECP256R1())
    return card_signing.private_pem(key)


def signing(*keys: tuple[str, str], **more: Any):
    """The test project's A2A_APP with these (kid, PEM) keys signing the card."""
    from django.conf import settings

    entries = [{"kid": kid, "private_key": pem} for kid, pem in keys]
    return override_settings(A2A_APP={**settings.A2A_APP, "CARD_SIGNING_KEYS": entries, **more})


@pytest.fixture
def public_skill():
    spec = SkillSpec(
        key="menu", handler=lambda ctx: ctx.complete("ok"), name="Menu", description=""
    )
    with registered(spec):
        Skill.objects.create(
            id="menu",
            handler="menu",
            name="Menü du jour",  # non-ASCII: RFC 8785 writes it as UTF-8, not \\u escapes
            description="Today's menu.",
            tags=["menu"],
        )
        yield


# --- the official SDK, fetching from this site ----------------------------------------------


def _transport(client: Client) -> httpx.MockTransport:
    async def handle(request: httpx.Request) -> httpx.Response:
        response = await sync_to_async(client.get)(request.url.path)
        return httpx.Response(
            response.status_code, headers=dict(response.items()), content=response.content
        )

    return httpx.MockTransport(handle)


def sdk_resolve(client: Client, *, trusted_kids: set[str] | None = None) -> AgentCard:
    """The card as ``A2ACardResolver`` returns it with the SDK's signature verifier; the
    verifier's keys come from the ``jku`` in each signature (only ``trusted_kids``)."""

    async def resolve() -> AgentCard:
        async with httpx.AsyncClient(transport=_transport(client)) as http:
            jwks_response = await http.get(BASE + JWKS_URL)
            assert jwks_response.status_code == 200
            key_set = jwks_response.json()

            def key_provider(kid: str | None, jku: str | None) -> jwt.PyJWK:
                assert jku == BASE + JWKS_URL
                if trusted_kids is not None and kid not in trusted_kids:
                    raise jwt.PyJWKError(f"{kid} is not trusted")
                return jwt.PyJWKSet.from_dict(key_set)[kid]

            verifier = create_signature_verifier(key_provider, ["ES256"])
            return await A2ACardResolver(http, BASE).get_agent_card(signature_verifier=verifier)

    return async_to_sync(resolve)()


def sdk_verify(card_json: dict[str, Any], key_set: dict[str, Any]) -> None:
    """What ``A2ACardResolver`` does with a fetched card: parse it, verify it."""
    verifier = create_signature_verifier(
        lambda kid, jku: jwt.PyJWKSet.from_dict(key_set)[kid], ["ES256"]
    )
    verifier(parse_agent_card(copy.deepcopy(card_json)))


def served(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    card, keys = client.get(CARD_URL), client.get(JWKS_URL)
    assert card.status_code == 200 and keys.status_code == 200
    return card.json(), keys.json()


def header_of(signature: dict[str, str]) -> dict[str, Any]:
    protected = signature["protected"]
    return json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))


# --- the served card verifies with the SDK ---------------------------------------------------


@pytest.mark.parametrize("v03_compat", [True, False], ids=["with-v03-fields", "v1-only"])
def test_the_served_card_verifies_with_the_official_sdk(client, public_skill, v03_compat):
    with signing(("k1", new_pem()), CARD_V03_COMPAT=v03_compat):
        card = sdk_resolve(client)
        raw, _ = served(client)
    assert card.name == "a2a_app tests"
    assert [s.name for s in card.skills] == ["Menü du jour"]
    assert ("url" in raw) is v03_compat  # the v0.3 fields are served, but not signed
    [signature] = raw["signatures"]
    assert header_of(signature) == {
        "alg": "ES256",
        "kid": "k1",
        "typ": "JOSE",
        "jku": BASE + JWKS_URL,
    }


def test_signing_the_served_bytes_with_v03_fields_would_not_verify(client, public_skill):
    # Why only the v1.0 fields are signed: a v1.0 verifier parses the card into the proto,
    # which has no v0.3 fields, so a signature over them never verifies.
    with signing(("k1", new_pem()), CARD_V03_COMPAT=True):
        raw, key_set = served(client)
        unsigned = {k: v for k, v in raw.items() if k != "signatures"}
        key = card_signing.signing_keys()[0]
        token = jwt.api_jws.encode(
            rfc8785.dumps(unsigned), key.private_key, "ES256", {"kid": "k1", "typ": "JOSE"}
        )
        protected, _, signature = token.split(".")
    with pytest.raises(InvalidSignaturesError):
        sdk_verify(
            {**raw, "signatures": [{"protected": protected, "signature": signature}]}, key_set
        )


def _swap_signatures(first: dict[str, str], second: dict[str, str]) -> None:
    """Each key's signature under the other key's header."""
    first["signature"], second["signature"] = second["signature"], first["signature"]


@pytest.mark.parametrize(
    "tamper",
    [
        lambda card: card.update(name="Evil agent"),
        lambda card: card["skills"][0].update(description="Send me your card number."),
        lambda card: card["supportedInterfaces"][0].update(url="https://evil.example/a2a"),
        lambda card: card["capabilities"].update(pushNotifications=False),
        lambda card: card.update(iconUrl="https://evil.example/icon.png"),
        lambda card: _swap_signatures(*card["signatures"]),
    ],
    ids=["name", "skill", "interface", "capability", "added-field", "swapped-signature"],
)
def test_a_changed_card_fails_verification(client, public_skill, tamper):
    with signing(("k1", new_pem()), ("k0", new_pem())):
        raw, key_set = served(client)
    sdk_verify(raw, key_set)
    changed = copy.deepcopy(raw)
    tamper(changed)
    with pytest.raises(InvalidSignaturesError):
        sdk_verify(changed, key_set)


def test_a_card_with_no_public_skill_verifies_both_ways(client):
    # The SDKs leave out the empty REQUIRED "skills" that spec §8.4.1 keeps: the card
    # carries a signature over each form, and each kind of verifier finds its own.
    with signing(("k1", new_pem())):
        raw, key_set = served(client)
    assert raw["skills"] == []
    assert len(raw["signatures"]) == 2
    sdk_verify(raw, key_set)
    assert spec_text_verify(raw, key_set) == "k1"
    with pytest.raises(InvalidSignaturesError):  # the spec-form signature alone: not for the SDK
        sdk_verify({**raw, "signatures": raw["signatures"][1:]}, key_set)
    with pytest.raises(AssertionError, match="no signature"):  # nor the SDK's for the spec
        spec_text_verify({**raw, "signatures": raw["signatures"][:1]}, key_set)


RICH = {
    "SECURITY_SCHEMES": {
        "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}},
        "basic": {"httpAuthSecurityScheme": {"scheme": "Basic", "description": ""}},
        "mtls": {"mtlsSecurityScheme": {}},
        "oauth": {
            "oauth2SecurityScheme": {
                "flows": {
                    "clientCredentials": {
                        "tokenUrl": "https://auth.example/token",
                        "scopes": {"read": "Read", "write": ""},
                    }
                }
            }
        },
    },
    "SECURITY_REQUIREMENTS": [
        {"schemes": {"key": {"list": []}}},
        {"schemes": {"oauth": {"list": ["read"]}}},
    ],
    "EXTENSIONS": [
        {
            "uri": "urn:a2a:ext:x",
            "required": False,
            "description": "",
            "params": {"n": 1, "deep": {"e": ""}},
        }
    ],
    "DOCUMENTATION_URL": "https://docs.example",
    "ICON_URL": "https://docs.example/icon.png",
}


@pytest.mark.parametrize("v03_compat", [True, False], ids=["with-v03-fields", "v1-only"])
def test_a_card_with_every_kind_of_field_verifies_both_ways(client, public_skill, v03_compat):
    with signing(("k1", new_pem()), CARD_V03_COMPAT=v03_compat, **RICH):
        raw, key_set = served(client)
        card = sdk_resolve(client)
    assert ("security" in raw) is v03_compat
    assert set(card.security_schemes) == {"key", "basic", "mtls", "oauth"}
    assert len(raw["signatures"]) == 2  # empty values in the schemes and the extension
    sdk_verify(raw, key_set)
    assert spec_text_verify(raw, key_set) == "k1"


def test_a_card_with_public_skills_has_one_signature_per_key(client, public_skill):
    with signing(("k1", new_pem()), ("k0", new_pem())):
        raw, key_set = served(client)
    assert [header_of(s)["kid"] for s in raw["signatures"]] == ["k1", "k0"]
    assert spec_text_verify(raw, key_set) == "k1"


# --- rotation ---------------------------------------------------------------------------------


def test_two_live_keys_are_published_and_either_one_verifies(client, public_skill):
    old, new = new_pem(), new_pem()
    with signing(("old", old)):
        before = client.get(JWKS_URL)
        assert [k["kid"] for k in before.json()["keys"]] == ["old"]
    with signing(("new", new), ("old", old)):
        raw, key_set = served(client)
        assert [k["kid"] for k in key_set["keys"]] == ["new", "old"]
        assert {k["kty"] for k in key_set["keys"]} == {"EC"}
        assert all("d" not in k for k in key_set["keys"])  # public halves only
        # A client that trusts only the old key, or only the new one, verifies the card.
        assert sdk_resolve(client, trusted_kids={"old"}).name == raw["name"]
        assert sdk_resolve(client, trusted_kids={"new"}).name == raw["name"]
        with pytest.raises(Exception, match="signature"):
            sdk_resolve(client, trusted_kids={"someone-else"})
    with signing(("new", new)):
        raw, key_set = served(client)
        assert [k["kid"] for k in key_set["keys"]] == ["new"]
        assert {header_of(s)["kid"] for s in raw["signatures"]} == {"new"}
        with pytest.raises(Exception, match="signature"):
            sdk_resolve(client, trusted_kids={"old"})


# --- the JWKS and the card's caching ----------------------------------------------------------


def test_the_jwks_is_cacheable(client):
    with signing(("k1", new_pem())):
        response = client.get(JWKS_URL)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/jwk-set+json"
        assert response["Cache-Control"] == "public, max-age=300"
        etag = response["ETag"]
        again = client.get(JWKS_URL, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again["ETag"] == etag
        assert client.post(JWKS_URL).status_code == 405
    assert client.get(JWKS_URL).status_code == 404  # no keys: nothing to publish


def test_the_card_is_signed_once_and_the_same_in_every_process(client, public_skill):
    pem = new_pem()
    with signing(("k1", pem)):
        first = client.get(CARD_URL)
        card_signing.clear_cache()  # a new process reads the keys again...
        from a2a_app.bindings import card as card_view

        card_view.clear_cache()
        second = client.get(CARD_URL)
    # ...and deterministic ECDSA (RFC 6979) signs the same card with the same bytes.
    assert first.content == second.content
    assert first["ETag"] == second["ETag"]
    assert client.get(CARD_URL).json().get("signatures") is None  # keys gone: unsigned


def test_the_signature_is_not_remade_per_request(client, public_skill, monkeypatch):
    calls = []
    original = card_signing.sign_card

    def counting(card: dict[str, Any], jwks_url: str | None = None) -> dict[str, Any]:
        calls.append(jwks_url)
        return original(card, jwks_url)

    from a2a_app.bindings import card as card_view

    monkeypatch.setattr(card_view, "sign_card", counting)
    with signing(("k1", new_pem())):
        for _ in range(3):
            assert client.get(CARD_URL).status_code == 200
    assert calls == [BASE + JWKS_URL]


# --- keys: the management command and the system check ---------------------------------------


def test_generate_makes_a_key_that_signs(client, public_skill, tmp_path):
    out = tmp_path / "card.pem"
    err = StringIO()
    call_command("a2a_card_keys", "generate", "--kid", "2026-12", "--out", str(out), stderr=err)
    assert out.stat().st_mode & 0o777 == 0o600
    entry = json.loads(err.getvalue().split(": ", 1)[1])
    assert entry == {"kid": "2026-12", "private_key": f"file:{out}"}
    from django.conf import settings

    with override_settings(A2A_APP={**settings.A2A_APP, "CARD_SIGNING_KEYS": [entry]}):
        assert checks.check_card_signing_keys() == []
        card = sdk_resolve(client)
        assert card.signatures[0].protected
        printed = StringIO()
        call_command("a2a_card_keys", "jwks", stdout=printed)
        assert [k["kid"] for k in json.loads(printed.getvalue())["keys"]] == ["2026-12"]
    with pytest.raises(CommandError, match="cannot create"):  # never overwrites a key
        call_command("a2a_card_keys", "generate", "--out", str(out), stderr=StringIO())


def test_generate_prints_the_pem_and_a_thumbprint_kid():
    out, err = StringIO(), StringIO()
    call_command("a2a_card_keys", "generate", stdout=out, stderr=err)
    key = serialization.load_pem_private_key(out.getvalue().encode(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1"
    entry = json.loads(err.getvalue().split(": ", 1)[1])
    assert entry["kid"] == card_signing.thumbprint(key)
    with pytest.raises(CommandError, match="empty"):
        call_command("a2a_card_keys", "jwks", stdout=StringIO())


def test_rfc7638_thumbprint_example():
    # RFC 7638 §3.1 computes its example's thumbprint over an RSA key; the EC members are
    # put together the same way: required members only, sorted, no whitespace.
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = jwt.algorithms.ECAlgorithm.to_jwk(key.public_key(), as_dict=True)
    members = f'{{"crv":"P-256","kty":"EC","x":"{jwk["x"]}","y":"{jwk["y"]}"}}'
    digest = hashlib.sha256(members.encode()).digest()
    assert card_signing.thumbprint(key) == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _encrypted_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret"),
    ).decode()


def _rsa_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"kid": "k1"}, "must be a list"),
        (["k1"], r"\[0\] must be a dict"),
        ([{"private_key": "PEM"}], r"\[0\] has no 'kid'"),
        ([{"kid": " ", "private_key": "PEM"}], r"\[0\] has no 'kid'"),
        ([{"kid": "k1"}], r"kid 'k1'\) has no 'private_key'"),
        ([{"kid": "k1", "private_key": "not a PEM"}], "not an unencrypted PEM private key"),
        ([{"kid": "k1", "private_key": "file:/nonexistent/k.pem"}], "cannot read"),
        ([{"kid": "k1", "private_key": _encrypted_pem()}], "not an unencrypted PEM"),
        (
            [{"kid": "k1", "private_key": _rsa_pem()}],
            "RSAPrivateKey key; card signing uses EC P-256",
        ),
        ([{"kid": "k1", "private_key": new_pem(ec.SECP384R1())}], "secp384r1 key"),
        (
            [{"kid": "k1", "private_key": new_pem()}, {"kid": "k1", "private_key": new_pem()}],
            r"\[1\]: kid 'k1' is used twice",
        ),
    ],
    ids=[
        "not-a-list",
        "not-a-dict",
        "no-kid",
        "blank-kid",
        "no-key",
        "unparseable",
        "missing-file",
        "encrypted",
        "rsa",
        "p384",
        "duplicate-kid",
    ],
)
def test_a_bad_key_setting_fails_the_system_check(entries, message):
    from django.conf import settings

    with override_settings(A2A_APP={**settings.A2A_APP, "CARD_SIGNING_KEYS": entries}):
        errors = checks.check_card_signing_keys()
        assert [e.id for e in errors] == ["a2a_app.E060"]
        assert errors[0].msg.startswith("A2A_APP['CARD_SIGNING_KEYS']")
        assert re.search(message, errors[0].msg), errors[0].msg
        with pytest.raises(card_signing.SigningKeyError):  # and the card is never half-signed
            card_signing.sign_card({"name": "x"})


def test_a_key_file_is_read(tmp_path: Path):
    path = tmp_path / "k.pem"
    path.write_text(new_pem())
    key = card_signing.read_key({"kid": "k1", "private_key": f"file:{path}"})
    assert key.kid == "k1" and key.public_jwk()["crv"] == "P-256"


# --- the payload: the spec's example, and the proto the table describes --------------------


def test_the_spec_worked_example_comes_out_byte_for_byte():
    # Spec §8.4.1, "Example of Default Value Removal".
    fragment = {
        "name": "Example Agent",
        "description": "",
        "capabilities": {"streaming": False, "pushNotifications": False, "extensions": []},
        "skills": [],
    }
    assert rfc8785.dumps(spec_payload(fragment)) == (
        b'{"capabilities":{"pushNotifications":false,"streaming":false},'
        b'"description":"","name":"Example Agent","skills":[]}'
    )
    sdk, spec = payloads(fragment)
    assert sdk == {
        "capabilities": {"pushNotifications": False, "streaming": False},
        "name": "Example Agent",
    }
    assert spec == spec_payload(fragment)


def test_defaults_unknown_fields_and_proto_names_are_read_as_the_proto_reads_them():
    card = {
        "name": "A",
        "protocolVersion": "0.3.0",  # not in the v1.0 proto: dropped
        "capabilities": {
            "extensions": [
                {"uri": "urn:x", "required": False, "description": "", "params": {"n": 1}}
            ]
        },
        "provider": {"organization": "O", "url": "https://o"},
        "icon_url": "https://o/i.png",  # the proto name is read too
        "documentationUrl": None,  # null: unset
        "securitySchemes": {"m": {"mtlsSecurityScheme": {}}},
        "signatures": [{"protected": "x", "signature": "y"}],
    }
    assert spec_payload(card) == {
        "name": "A",
        "capabilities": {"extensions": [{"uri": "urn:x", "params": {"n": 1.0}}]},
        "provider": {"organization": "O", "url": "https://o"},
        "iconUrl": "https://o/i.png",
        "securitySchemes": {"m": {"mtlsSecurityScheme": {}}},
    }
    assert sdk_form(card) == payloads(card)[0]


def sdk_form(card: dict[str, Any]) -> dict[str, Any]:
    """The payload the official SDK rebuilds from ``card`` (its own private helper)."""
    from a2a.utils.signing import _canonicalize_agent_card

    return json.loads(_canonicalize_agent_card(parse_agent_card(copy.deepcopy(card))))


def _required(field: FieldDescriptor) -> bool:
    behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


def _shape(descriptor: Descriptor, seen: dict[str, Any]) -> None:
    """The proto's AgentCard messages in the table's terms, from the SDK's descriptors."""
    name = descriptor.name
    if name in seen or descriptor.full_name.startswith("google.protobuf."):
        return
    fields: dict[str, tuple[str, str | None, bool]] = {}
    seen[name] = fields
    for field in descriptor.fields:
        of = field.message_type
        if of is not None and of.GetOptions().map_entry:
            kind, of = "map", of.fields_by_name["value"].message_type
        elif field.is_repeated:
            kind = "repeated"
        elif of is not None and of.full_name == "google.protobuf.Struct":
            kind, of = "struct", None
        elif of is not None:
            kind = "message"
        else:
            kind = "optional" if field.has_presence else "scalar"
        fields[field.json_name] = (kind, of.name if of else None, _required(field))
        if of is not None:
            _shape(of, seen)


def test_the_field_table_is_the_official_proto():
    expected: dict[str, Any] = {}
    _shape(AgentCard.DESCRIPTOR, expected)
    ours = {
        message: {name: (f.kind, f.of, f.required) for name, f in fields.items()}
        for message, fields in MESSAGES.items()
    }
    assert ours == expected


def spec_text_verify(card_json: dict[str, Any], key_set: dict[str, Any]) -> str:
    """A verifier written from spec §8.4.1 on the SDK's proto, not on a2a_app's table:
    parse into the proto, write back under field presence, keep the REQUIRED fields the
    card holds even when empty, drop ``signatures``, canonicalize with the SDK's JCS.
    Returns the kid of the signature that verifies."""
    proto = parse_agent_card(copy.deepcopy(card_json))
    payload = MessageToDict(proto)
    payload.pop("signatures", None)
    _keep_required(card_json, payload, AgentCard.DESCRIPTOR)
    encoded = base64.urlsafe_b64encode(canonicalize(payload).encode()).rstrip(b"=").decode()
    for signature in card_json["signatures"]:
        token = f"{signature['protected']}.{encoded}.{signature['signature']}"
        kid = header_of(signature)["kid"]
        key = jwt.PyJWKSet.from_dict(key_set)[kid]
        try:
            jwt.api_jws.decode_complete(token, key, algorithms=["ES256"])
        except jwt.InvalidSignatureError:
            continue
        return kid
    raise AssertionError("no signature over the spec's payload")


def _keep_required(source: Any, out: dict[str, Any], descriptor: Descriptor) -> None:
    for field in descriptor.fields:
        if field.json_name not in source or field.json_name == "signatures":
            continue
        value = source[field.json_name]
        if _required(field) and field.json_name not in out:
            out[field.json_name] = value  # an empty REQUIRED value
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            if field.is_repeated:
                for item, written in zip(value, out.get(field.json_name, []), strict=True):
                    _keep_required(item, written, field.message_type)
            elif field.message_type.full_name != "google.protobuf.Struct":
                _keep_required(value, out[field.json_name], field.message_type)


def test_a_card_a_verifier_could_not_read_is_refused_with_the_field_named():
    with pytest.raises(CardPayloadError, match=r"^provider: must be a JSON object \(AgentP"):
        spec_payload({"name": "A", "provider": "Trattoria"})
    with pytest.raises(CardPayloadError, match=r"^skills: must be a JSON array"):
        spec_payload({"skills": {"id": "menu"}})
    with pytest.raises(CardPayloadError, match=r"^skills\[0\]\.securityRequirements\[1\]"):
        spec_payload({"skills": [{"securityRequirements": [{}, "key"]}]})
    with signing(("k1", new_pem())), pytest.raises(CardPayloadError, match="no RFC 8785 form"):
        card_signing.sign_card({"capabilities": {"extensions": [{"params": {"x": float("nan")}}]}})
