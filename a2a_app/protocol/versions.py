"""Protocol version negotiation (spec §3.6): which dialect a request speaks."""

from __future__ import annotations

from a2a_app.protocol.errors import VersionNotSupportedError

V0_3 = "0.3"
V1_0 = "1.0"
SUPPORTED_VERSIONS = (V0_3, V1_0)


def negotiate(header_value: str | None, *, method_version: str = V1_0) -> str:
    """Check the ``A2A-Version`` header against the dialect of the method called.

    The method's name decides the dialect (``SendMessage`` is v1.0, ``message/send`` is
    v0.3). An absent header means v0.3 by the letter of the spec, but v1.0 clients that
    forget it are common: a v1.0 method with no header is served as v1.0 (spec reference
    A2). Patch numbers are ignored (``1.0.1`` is ``1.0``). A v1.0 method under another
    version, or an unknown version, is VersionNotSupportedError; a v0.3 method under
    ``1.0`` is a method v1.0 does not have (MethodNotFound, raised by the caller).
    """
    value = (header_value or "").strip()
    if not value:
        return method_version
    major_minor = ".".join(value.split(".")[:2])
    if major_minor not in SUPPORTED_VERSIONS:
        raise _unsupported(value)
    if method_version == V1_0 and major_minor != V1_0:
        raise _unsupported(value)
    return major_minor


def _unsupported(requested: str) -> VersionNotSupportedError:
    supported = ", ".join(SUPPORTED_VERSIONS)
    return VersionNotSupportedError(
        f"A2A-Version {requested!r} is not supported; supported versions: {supported}",
        metadata={"requestedVersion": requested, "supportedVersions": supported},
    )
