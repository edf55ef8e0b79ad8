"""Protocol version negotiation (spec §3.6): which dialect a request speaks."""

from __future__ import annotations

from .errors import VersionNotSupportedError

V1_0 = "1.0"
SUPPORTED_VERSIONS = (V1_0,)


def negotiate(header_value: str | None, *, method_is_v1: bool) -> str:
    """Return the ``Major.Minor`` version to serve, or raise VersionNotSupportedError.

    An absent header means v0.3 by the letter of the spec, but v1.0 clients that forget
    it are common: a v1.0 method name with no header is served as v1.0 (spec reference A2).
    Patch numbers are ignored (``1.0.1`` is ``1.0``).
    """
    value = (header_value or "").strip()
    if not value:
        if method_is_v1:
            return V1_0
        raise _unsupported("0.3")
    major_minor = ".".join(value.split(".")[:2])
    if major_minor in SUPPORTED_VERSIONS:
        return major_minor
    raise _unsupported(value)


def _unsupported(requested: str) -> VersionNotSupportedError:
    supported = ", ".join(SUPPORTED_VERSIONS)
    return VersionNotSupportedError(
        f"A2A-Version {requested!r} is not supported; supported versions: {supported}",
        metadata={"requestedVersion": requested, "supportedVersions": supported},
    )
