"""What an agent card's signatures cover: the card as a v1.0 verifier rebuilds it.

A verifier does not check the bytes it was served. It parses the card into the
``AgentCard`` proto (unknown fields, such as the v0.3 ones, are dropped), writes it back
as JSON under the proto's field presence, drops ``signatures``, and canonicalizes that
(RFC 8785). A signer has to sign the same thing, so this module rebuilds the card the
way the proto would, from a table of the proto's fields (``tests/test_card_signing.py``
checks the table against the official SDK's descriptors).

Two readings of spec §8.4.1 are in use, and they differ only when a card holds an empty
value (A2A issue #2122 is open about it):

* :func:`spec_payload`, the rules as written: a field with the ``optional`` keyword is
  kept when it is set (even to its default), a message field when it is set (even
  empty), a REQUIRED field whenever it is there (``"skills": []``, ``"description":
  ""``), every other field only when it is not its default. The section's worked example
  comes out byte for byte. (A REQUIRED field missing from the card is not made up: the
  example leaves several out. The cards a2a_app builds always hold every one.)
* :func:`sdk_payload`, what the official SDKs (a2a-python 1.3, a2a-js) verify: the same,
  then every empty string, list and object removed at every depth, REQUIRED or not.

A card signed over both (when they differ) verifies with either kind of verifier.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2a_app.protocol.wire import JSON, snake


@dataclass(frozen=True, slots=True)
class Field:
    #: scalar (omitted at its default), optional (kept when set), message (kept when
    #: set), struct (google.protobuf.Struct: any JSON object), repeated, map.
    kind: str
    #: The message type of a message field, or of a repeated or map field's items
    #: (None: strings).
    of: str | None = None
    required: bool = False


def _scalar(*, required: bool = False) -> Field:
    return Field("scalar", required=required)


def _message(of: str, *, required: bool = False) -> Field:
    return Field("message", of, required)


def _repeated(of: str | None = None, *, required: bool = False) -> Field:
    return Field("repeated", of, required)


def _map(of: str | None = None, *, required: bool = False) -> Field:
    return Field("map", of, required)


OPTIONAL = Field("optional")
STRUCT = Field("struct")

_SCOPES = {"refreshUrl": _scalar(), "scopes": _map(required=True)}

#: The messages an AgentCard is made of (``lf.a2a.v1``, a2a.proto), by ProtoJSON name.
MESSAGES: dict[str, dict[str, Field]] = {
    "AgentCard": {
        "name": _scalar(required=True),
        "description": _scalar(required=True),
        "supportedInterfaces": _repeated("AgentInterface", required=True),
        "provider": _message("AgentProvider"),
        "version": _scalar(required=True),
        "documentationUrl": OPTIONAL,
        "capabilities": _message("AgentCapabilities", required=True),
        "securitySchemes": _map("SecurityScheme"),
        "securityRequirements": _repeated("SecurityRequirement"),
        "defaultInputModes": _repeated(required=True),
        "defaultOutputModes": _repeated(required=True),
        "skills": _repeated("AgentSkill", required=True),
        "signatures": _repeated("AgentCardSignature"),
        "iconUrl": OPTIONAL,
    },
    "AgentInterface": {
        "url": _scalar(required=True),
        "protocolBinding": _scalar(required=True),
        "tenant": _scalar(),
        "protocolVersion": _scalar(required=True),
    },
    "AgentProvider": {
        "url": _scalar(required=True),
        "organization": _scalar(required=True),
    },
    "AgentCapabilities": {
        "streaming": OPTIONAL,
        "pushNotifications": OPTIONAL,
        "extensions": _repeated("AgentExtension"),
        "extendedAgentCard": OPTIONAL,
    },
    "AgentExtension": {
        "uri": _scalar(),
        "description": _scalar(),
        "required": _scalar(),
        "params": STRUCT,
    },
    "SecurityScheme": {  # a oneof: each member is a message, kept when set
        "apiKeySecurityScheme": _message("APIKeySecurityScheme"),
        "httpAuthSecurityScheme": _message("HTTPAuthSecurityScheme"),
        "oauth2SecurityScheme": _message("OAuth2SecurityScheme"),
        "openIdConnectSecurityScheme": _message("OpenIdConnectSecurityScheme"),
        "mtlsSecurityScheme": _message("MutualTlsSecurityScheme"),
    },
    "APIKeySecurityScheme": {
        "description": _scalar(),
        "location": _scalar(required=True),
        "name": _scalar(required=True),
    },
    "HTTPAuthSecurityScheme": {
        "description": _scalar(),
        "scheme": _scalar(required=True),
        "bearerFormat": _scalar(),
    },
    "OAuth2SecurityScheme": {
        "description": _scalar(),
        "flows": _message("OAuthFlows", required=True),
        "oauth2MetadataUrl": _scalar(),
    },
    "OAuthFlows": {  # a oneof
        "authorizationCode": _message("AuthorizationCodeOAuthFlow"),
        "clientCredentials": _message("ClientCredentialsOAuthFlow"),
        "implicit": _message("ImplicitOAuthFlow"),
        "password": _message("PasswordOAuthFlow"),
        "deviceCode": _message("DeviceCodeOAuthFlow"),
    },
    "AuthorizationCodeOAuthFlow": {
        "authorizationUrl": _scalar(required=True),
        "tokenUrl": _scalar(required=True),
        **_SCOPES,
        "pkceRequired": _scalar(),
    },
    "ClientCredentialsOAuthFlow": {"tokenUrl": _scalar(required=True), **_SCOPES},
    "ImplicitOAuthFlow": {"authorizationUrl": _scalar(), **_SCOPES, "scopes": _map()},
    "PasswordOAuthFlow": {"tokenUrl": _scalar(), **_SCOPES, "scopes": _map()},
    "DeviceCodeOAuthFlow": {
        "deviceAuthorizationUrl": _scalar(required=True),
        "tokenUrl": _scalar(required=True),
        **_SCOPES,
    },
    "OpenIdConnectSecurityScheme": {
        "description": _scalar(),
        "openIdConnectUrl": _scalar(required=True),
    },
    "MutualTlsSecurityScheme": {"description": _scalar()},
    "SecurityRequirement": {"schemes": _map("StringList")},
    "StringList": {"list": _repeated()},
    "AgentSkill": {
        "id": _scalar(required=True),
        "name": _scalar(required=True),
        "description": _scalar(required=True),
        "tags": _repeated(required=True),
        "examples": _repeated(),
        "inputModes": _repeated(),
        "outputModes": _repeated(),
        "securityRequirements": _repeated("SecurityRequirement"),
    },
    "AgentCardSignature": {
        "protected": _scalar(required=True),
        "signature": _scalar(required=True),
        "header": STRUCT,
    },
}


class CardPayloadError(ValueError):
    """The card holds a value its proto field cannot (a verifier could not parse it)."""


def spec_payload(card: JSON) -> JSON:
    """The card as spec §8.4.1 says a verifier rebuilds it, ``signatures`` removed."""
    payload = _read(card, "AgentCard", "")
    payload.pop("signatures", None)
    return payload


def sdk_payload(card: JSON) -> JSON:
    """:func:`spec_payload` less every empty string, list and object, as the official
    SDKs rebuild the card they verify."""
    return _without_empties(spec_payload(card)) or {}


def payloads(card: JSON) -> list[JSON]:
    """The payloads to sign so that both kinds of verifier succeed: the SDKs' first."""
    spec = spec_payload(card)
    sdk = _without_empties(spec) or {}
    return [sdk] if sdk == spec else [sdk, spec]


def _read(obj: Any, message: str, path: str) -> JSON:
    if not isinstance(obj, dict):
        raise CardPayloadError(f"{path or 'the card'}: must be a JSON object ({message})")
    fields = MESSAGES[message]
    out: JSON = {}
    for name, field in fields.items():
        key = name if name in obj else snake(name)
        value = obj.get(key)
        where = f"{path}.{name}" if path else name
        if value is None:  # absent, or null: ProtoJSON leaves the field unset
            continue
        if field.kind == "scalar":
            if value or field.required:
                out[name] = value
        elif field.kind == "optional":
            out[name] = value
        elif field.kind == "message":
            out[name] = _read(value, field.of or "", where)
        elif field.kind == "struct":
            out[name] = _struct(value)
        elif field.kind == "repeated":
            items = _items(value, list, where)
            if items or field.required:
                out[name] = [
                    item if field.of is None else _read(item, field.of, f"{where}[{i}]")
                    for i, item in enumerate(items)
                ]
        else:  # map
            entries = _items(value, dict, where)
            if entries or field.required:
                out[name] = {
                    k: v if field.of is None else _read(v, field.of, f"{where}.{k}")
                    for k, v in entries.items()
                }
    return out


def _items(value: Any, kind: type, where: str) -> Any:
    if not isinstance(value, kind):
        raise CardPayloadError(f"{where}: must be a JSON {'array' if kind is list else 'object'}")
    return value


def _struct(value: Any) -> Any:
    """A Struct's JSON as the proto holds it: numbers are doubles."""
    if isinstance(value, dict):
        return {k: _struct(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_struct(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _without_empties(value: Any) -> Any:
    """``value`` with empty strings, lists and objects (and nulls) removed, recursively;
    None when nothing is left."""
    if isinstance(value, dict):
        kept = {k: c for k, v in value.items() if (c := _without_empties(v)) is not None}
        return kept or None
    if isinstance(value, list):
        kept_items = [c for v in value if (c := _without_empties(v)) is not None]
        return kept_items or None
    if value == "":
        return None
    return value
