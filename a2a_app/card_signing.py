"""Signed agent cards (spec §8.4): the keys, the signatures and the public key set.

``A2A_APP["CARD_SIGNING_KEYS"]`` lists EC P-256 keys, newest first, as
``{"kid": "...", "private_key": "<PEM>" or "file:/path/to/key.pem"}``. Every listed key
signs the card, and every listed key's public half is published at the JWKS URL: during a
rotation both keys are live, so a client holding either key verifies the card; removing
the old entry stops both its signature and its publication.

Each signature is a JWS (ES256) with a detached payload: the protected header carries
``alg``, ``kid``, ``typ: "JOSE"`` and ``jku`` (the JWKS URL), and the payload is the
RFC 8785 canonical form of the card as a v1.0 verifier rebuilds it
(:mod:`a2a_app.protocol.card_payload`, which says why there may be two payloads).
Signatures use RFC 6979 deterministic nonces, so one card signed by one key gives the
same bytes in every process, and the card's ETag stays the same across web processes.

:func:`sign_card` signs any card (the public one, an extended one); the card view calls
it once per rendering, not per request.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jwt
import rfc8785
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from jwt.algorithms import ECAlgorithm
from jwt.utils import der_to_raw_signature

from a2a_app.conf import SETTING_NAME, a2a_settings
from a2a_app.protocol.card_payload import CardPayloadError, payloads

JSON = dict[str, Any]
ALGORITHM = "ES256"
SETTING = f"{SETTING_NAME}['CARD_SIGNING_KEYS']"
FILE_PREFIX = "file:"

try:
    _ECDSA = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)
except (UnsupportedAlgorithm, TypeError):
    # OpenSSL before 3.2, or cryptography before 44: random nonces, so each process
    # signs (and tags) the card differently. Verification is the same.
    _ECDSA = ec.ECDSA(hashes.SHA256())


class _ES256(ECAlgorithm):
    """PyJWT's ES256 with the nonce above."""

    def __init__(self) -> None:
        super().__init__(ECAlgorithm.SHA256)

    def sign(self, msg: bytes, key: ec.EllipticCurvePrivateKey) -> bytes:
        return der_to_raw_signature(key.sign(msg, _ECDSA), key.curve)


_JWS = jwt.PyJWS(algorithms=[])
_JWS.register_algorithm(ALGORITHM, _ES256())


class SigningKeyError(ImproperlyConfigured):
    """A ``CARD_SIGNING_KEYS`` entry that cannot sign; the message names the entry."""


@dataclass(frozen=True, slots=True)
class CardKey:
    kid: str
    private_key: ec.EllipticCurvePrivateKey

    def public_jwk(self) -> JSON:
        """The public key as a JWK (RFC 7517) for the JWKS."""
        jwk = ECAlgorithm.to_jwk(self.private_key.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "use": "sig", "alg": ALGORITHM}


def read_key(entry: Any, index: int = 0) -> CardKey:
    """One ``CARD_SIGNING_KEYS`` entry read and checked, or :class:`SigningKeyError`."""
    where = f"{SETTING}[{index}]"
    if not isinstance(entry, dict):
        raise SigningKeyError(f'{where} must be a dict {{"kid": ..., "private_key": ...}}.')
    kid = entry.get("kid")
    if not isinstance(kid, str) or not kid.strip():
        raise SigningKeyError(f"{where} has no 'kid' (the key id verifiers look keys up by).")
    where = f"{where} (kid {kid!r})"
    pem = entry.get("private_key")
    if isinstance(pem, str) and pem.startswith(FILE_PREFIX):
        path = pem.removeprefix(FILE_PREFIX)
        try:
            pem = Path(path).read_bytes()
        except OSError as exc:
            raise SigningKeyError(f"{where}: cannot read {path}: {exc.strerror}.") from exc
    if not isinstance(pem, str | bytes) or not pem:
        raise SigningKeyError(f"{where} has no 'private_key' (a PEM, or 'file:/path').")
    try:
        key = serialization.load_pem_private_key(
            pem.encode() if isinstance(pem, str) else pem, password=None
        )
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        # TypeError: the PEM is encrypted; a key the process must unlock is not supported.
        raise SigningKeyError(f"{where}: not an unencrypted PEM private key ({exc}).") from exc
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        kind = key.curve.name if isinstance(key, ec.EllipticCurvePrivateKey) else type(key).__name__
        raise SigningKeyError(f"{where}: a {kind} key; card signing uses EC P-256 ({ALGORITHM}).")
    return CardKey(kid, key)


def key_problems(entries: Any) -> list[str]:
    """Every problem of the setting ``entries`` (for the system check), [] when it signs."""
    if not isinstance(entries, list | tuple):
        return [f'{SETTING} must be a list of {{"kid": ..., "private_key": ...}}.']
    problems, kids = [], set()
    for index, entry in enumerate(entries):
        try:
            key = read_key(entry, index)
        except SigningKeyError as exc:
            problems.append(str(exc))
            continue
        if key.kid in kids:
            problems.append(f"{SETTING}[{index}]: kid {key.kid!r} is used twice.")
        kids.add(key.kid)
    return problems


@lru_cache(maxsize=1)
def signing_keys() -> tuple[CardKey, ...]:
    """The configured keys, newest first, read once per process."""
    entries = a2a_settings.CARD_SIGNING_KEYS or []
    problems = key_problems(entries)
    if problems:
        raise SigningKeyError(problems[0])
    return tuple(read_key(entry, index) for index, entry in enumerate(entries))


def signing_enabled() -> bool:
    return bool(a2a_settings.CARD_SIGNING_KEYS)


def sign_card(card: JSON, jwks_url: str | None = None) -> JSON:
    """``card`` with ``signatures``: one per configured key and payload (none configured:
    ``card`` as it is). ``jwks_url``, the absolute URL of the JWKS, goes in ``jku``."""
    keys = signing_keys()
    if not keys:
        return card
    signatures = []
    for payload in payloads(card):
        try:
            canonical = rfc8785.dumps(payload)
        except rfc8785.CanonicalizationError as exc:
            raise CardPayloadError(f"the card has no RFC 8785 form: {exc}") from exc
        for key in keys:
            header = {"kid": key.kid, "typ": "JOSE"}
            if jwks_url:
                header["jku"] = jwks_url
            token = _JWS.encode(canonical, key.private_key, algorithm=ALGORITHM, headers=header)
            # Compact JWS is header.payload.signature; the card carries no payload.
            protected, _, signature = token.split(".")
            signatures.append({"protected": protected, "signature": signature})
    return {**card, "signatures": signatures}


def jwks() -> JSON:
    """The JSON Web Key Set of the configured keys' public halves."""
    return {"keys": [key.public_jwk() for key in signing_keys()]}


@dataclass(frozen=True, slots=True)
class PublishedKeys:
    body: bytes
    etag: str


@lru_cache(maxsize=1)
def published_jwks() -> PublishedKeys:
    """The JWKS response body and its ETag, made once per process."""
    body = json.dumps(jwks(), separators=(",", ":")).encode()
    return PublishedKeys(body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def private_pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def thumbprint(key: ec.EllipticCurvePrivateKey) -> str:
    """The RFC 7638 thumbprint of the public key: a kid derived from the key itself."""
    jwk = ECAlgorithm.to_jwk(key.public_key(), as_dict=True)
    members = {name: jwk[name] for name in ("crv", "kty", "x", "y")}
    digest = hashlib.sha256(rfc8785.dumps(members)).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def clear_cache(**kwargs: Any) -> None:
    signing_keys.cache_clear()
    published_jwks.cache_clear()


setting_changed.connect(clear_cache)
