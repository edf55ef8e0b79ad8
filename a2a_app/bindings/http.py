"""HTTP plumbing shared by the JSON-RPC and REST bindings: body size, media type, extensions."""

from __future__ import annotations

import re

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest

from a2a_app.conf import a2a_settings
from a2a_app.protocol.errors import (
    ContentTypeNotSupportedError,
    ExtensionSupportRequiredError,
    InvalidParamsError,
    RequestTooLargeError,
)

JSON_MEDIA_TYPES = ("application/json", "application/a2a+json")

# An escaped NUL in JSON text (not preceded by an escaping backslash). PostgreSQL cannot
# store U+0000 in text or jsonb, and no A2A field needs it: refuse it up front.
_ESCAPED_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def check_no_nul(body: bytes) -> None:
    if b"\x00" in body or _ESCAPED_NUL.search(body):
        raise InvalidParamsError("Strings must not contain NUL (U+0000) characters")


def read_body(request: HttpRequest) -> bytes:
    limit = a2a_settings.MAX_REQUEST_BYTES
    too_large = RequestTooLargeError(
        f"Request body exceeds the limit of {limit} bytes",
        metadata={"maxBytes": limit},
    )
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        raise too_large
    try:
        body = request.body
    except RequestDataTooBig:
        raise too_large from None
    if len(body) > limit:
        raise too_large
    check_no_nul(body)
    return body


def check_media_type(request: HttpRequest) -> None:
    media_type = (request.content_type or "").lower()
    if media_type not in JSON_MEDIA_TYPES:
        shown = request.META.get("CONTENT_TYPE") or "none"
        raise ContentTypeNotSupportedError(
            f"Content-Type must be application/json (got {shown})",
            metadata={"contentType": shown},
        )


def requested_extensions(request: HttpRequest) -> set[str]:
    header = request.headers.get("A2A-Extensions", "")
    return {uri.strip() for uri in header.split(",") if uri.strip()}


def activate_extensions(request: HttpRequest) -> list[str]:
    requested = requested_extensions(request)
    declared = a2a_settings.EXTENSIONS
    for extension in declared:
        if extension.get("required") and extension.get("uri") not in requested:
            raise ExtensionSupportRequiredError(
                f"This agent requires extension {extension.get('uri')}; "
                "send it in the A2A-Extensions header",
                metadata={"extension": extension.get("uri", "")},
            )
    return [e["uri"] for e in declared if e.get("uri") in requested]
