"""The v0.3 fields of the agent card, which let v0.3 clients read the v1.0 card."""

from __future__ import annotations

from a2a_app.protocol.wire import JSON


def card_v03_fields(v1_card: JSON, *, jsonrpc_url: str, extra_interfaces: list[JSON]) -> JSON:
    """The v0.3 top-level card fields to merge into the v1.0 card (spec reference §6.3).

    ``extra_interfaces`` are v1.0 AgentInterfaces (``protocolBinding``) or v0.3 ones
    (``transport``). Each ``securitySchemes`` entry keeps its v1.0 member and gains the
    v0.3 keys (``type``, ``in``...) beside it, as the reference SDK serves them: a v0.3
    client reads a scheme by its ``type`` and fails on an entry without one.
    """
    out: JSON = {
        "protocolVersion": "0.3.0",
        "url": jsonrpc_url,
        "preferredTransport": "JSONRPC",
    }
    if extra_interfaces:
        out["additionalInterfaces"] = [
            {"url": i["url"], "transport": i.get("transport") or i["protocolBinding"]}
            for i in extra_interfaces
        ]
    capabilities = v1_card.get("capabilities") or {}
    out["supportsAuthenticatedExtendedCard"] = bool(capabilities.get("extendedAgentCard"))
    schemes = v1_card.get("securitySchemes")
    if schemes:
        out["securitySchemes"] = {
            name: {**scheme, **scheme_to_v03(scheme)} for name, scheme in schemes.items()
        }
    requirements = v1_card.get("securityRequirements")
    if requirements is not None:
        out["security"] = requirements_to_v03(requirements)
    return out


def requirements_to_v03(requirements: list[JSON]) -> list[JSON]:
    """v1.0 ``SecurityRequirement`` objects as v0.3 (and OpenAPI) ones: name → scopes."""
    return [
        {name: list(scopes.get("list", [])) for name, scopes in r.get("schemes", {}).items()}
        for r in requirements
    ]


def scheme_to_v03(scheme: JSON) -> JSON:
    """A v1.0 ``SecurityScheme`` (one wrapper member) as a v0.3 one (``type`` discriminated)."""
    if "apiKeySecurityScheme" in scheme:
        body = scheme["apiKeySecurityScheme"]
        out: JSON = {"type": "apiKey", "in": body.get("location"), "name": body.get("name")}
    elif "httpAuthSecurityScheme" in scheme:
        body = scheme["httpAuthSecurityScheme"]
        out = {"type": "http", "scheme": body.get("scheme")}
        if body.get("bearerFormat"):
            out["bearerFormat"] = body["bearerFormat"]
    elif "oauth2SecurityScheme" in scheme:
        body = scheme["oauth2SecurityScheme"]
        # The flow objects share their names and fields; deviceCode and pkceRequired
        # are new in v1.0 and mean nothing to a v0.3 client.
        flows = {
            flow: {k: v for k, v in fields.items() if k != "pkceRequired"}
            for flow, fields in (body.get("flows") or {}).items()
            if flow != "deviceCode"
        }
        out = {"type": "oauth2", "flows": flows}
        if body.get("oauth2MetadataUrl"):
            out["oauth2MetadataUrl"] = body["oauth2MetadataUrl"]
    elif "openIdConnectSecurityScheme" in scheme:
        body = scheme["openIdConnectSecurityScheme"]
        out = {"type": "openIdConnect", "openIdConnectUrl": body.get("openIdConnectUrl")}
    elif "mtlsSecurityScheme" in scheme:
        body = scheme["mtlsSecurityScheme"]
        out = {"type": "mutualTLS"}
    else:
        return {}
    if body.get("description"):
        out["description"] = body["description"]
    return out
