"""The v0.3 fields of the agent card, which let v0.3 clients read the v1.0 card."""

from __future__ import annotations

from a2a_app.protocol.wire import JSON


def card_v03_fields(v1_card: JSON, *, jsonrpc_url: str, extra_interfaces: list[JSON]) -> JSON:
    """The v0.3 top-level card fields to merge into the v1.0 card (spec reference §6.3).

    ``extra_interfaces`` are v1.0 AgentInterfaces (``protocolBinding``) or v0.3 ones
    (``transport``). ``securitySchemes`` are left in their v1.0 form.
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
    requirements = v1_card.get("securityRequirements")
    if requirements is not None:
        out["security"] = [
            {name: list(scopes.get("list", [])) for name, scopes in r.get("schemes", {}).items()}
            for r in requirements
        ]
    return out
