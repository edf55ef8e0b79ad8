"""The A2A error taxonomy: one class per error, each carrying its codes for every binding.

Views never build error JSON by hand; they catch :class:`A2AError` and ask it for the
JSON-RPC ``error`` member (:meth:`A2AError.to_jsonrpc`) or the REST body
(:meth:`A2AError.to_rest`). Codes follow the A2A v1.0.1 table (spec reference §4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ERROR_DOMAIN = "a2a-protocol.org"
ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One failing field of a request, named by its wire path (``message.parts[0]``)."""

    field: str
    description: str


class A2AError(Exception):
    """Base class. Subclasses set the class attributes; instances carry the details."""

    jsonrpc_code: int = -32603
    http_status: int = 500
    grpc_status: str = "INTERNAL"
    reason: str = "INTERNAL"
    default_message: str = "Internal error"
    # Standard JSON-RPC errors are not A2A errors and carry no ErrorInfo of their own.
    has_error_info: bool = True

    def __init__(
        self,
        message: str | None = None,
        *,
        metadata: dict[str, Any] | None = None,
        violations: list[FieldViolation] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.message = message or self.default_message
        # google.rpc.ErrorInfo.metadata is map<string, string>.
        self.metadata = {k: str(v) for k, v in (metadata or {}).items()}
        self.violations = list(violations or [])
        #: HTTP headers that go with the error's response (WWW-Authenticate, Allow).
        self.headers = dict(headers or {})
        super().__init__(self.message)

    def details(self) -> list[dict[str, Any]]:
        """The typed detail objects (``@type``) shared by JSON-RPC ``data`` and REST ``details``."""
        details: list[dict[str, Any]] = []
        if self.has_error_info:
            info: dict[str, Any] = {
                "@type": ERROR_INFO_TYPE,
                "reason": self.reason,
                "domain": ERROR_DOMAIN,
            }
            if self.metadata:
                info["metadata"] = self.metadata
            details.append(info)
        if self.violations:
            details.append(
                {
                    "@type": BAD_REQUEST_TYPE,
                    "fieldViolations": [
                        {"field": v.field, "description": v.description} for v in self.violations
                    ],
                }
            )
        return details

    def to_jsonrpc(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.jsonrpc_code, "message": self.message}
        details = self.details()
        if details:
            error["data"] = details
        return error

    def to_rest(self) -> dict[str, Any]:
        return {
            "error": {
                "code": self.http_status,
                "status": self.grpc_status,
                "message": self.message,
                "details": self.details(),
            }
        }


# --- Standard JSON-RPC 2.0 errors -------------------------------------------------------


class JSONParseError(A2AError):
    jsonrpc_code = -32700
    http_status = 400
    grpc_status = "INVALID_ARGUMENT"
    reason = "INVALID_JSON"
    default_message = "Invalid JSON payload"
    has_error_info = False


class InvalidRequestError(A2AError):
    jsonrpc_code = -32600
    http_status = 400
    grpc_status = "INVALID_ARGUMENT"
    reason = "INVALID_REQUEST"
    default_message = "Request payload validation error"
    has_error_info = False


class MethodNotFoundError(A2AError):
    jsonrpc_code = -32601
    http_status = 404
    grpc_status = "UNIMPLEMENTED"
    reason = "METHOD_NOT_FOUND"
    default_message = "Method not found"
    has_error_info = False


class InvalidParamsError(A2AError):
    jsonrpc_code = -32602
    http_status = 400
    grpc_status = "INVALID_ARGUMENT"
    reason = "INVALID_PARAMS"
    default_message = "Invalid parameters"
    has_error_info = False

    @classmethod
    def for_field(cls, field: str, description: str) -> InvalidParamsError:
        """The usual case: one field is wrong, and the message names it."""
        return cls(f"{field}: {description}", violations=[FieldViolation(field, description)])


class InternalError(A2AError):
    jsonrpc_code = -32603
    has_error_info = False


class RequestTooLargeError(A2AError):
    """The body is over ``A2A_APP["MAX_REQUEST_BYTES"]``; answered before parsing."""

    jsonrpc_code = -32600
    http_status = 413
    grpc_status = "RESOURCE_EXHAUSTED"
    reason = "REQUEST_TOO_LARGE"
    default_message = "Request body too large"


class AuthenticationRequiredError(A2AError):
    """Credentials were sent but are invalid, or a skill needs a signed-in caller.

    The spec leaves the JSON-RPC code to the implementation; -32000 is the generic
    JSON-RPC server-error code outside the range A2A reserves.
    """

    jsonrpc_code = -32000
    http_status = 401
    grpc_status = "UNAUTHENTICATED"
    reason = "UNAUTHENTICATED"
    default_message = "Authentication required"


class PermissionDeniedError(A2AError):
    """The caller is known but may not do this (its API key's scopes, a CSRF failure).

    Like authentication, authorization has no JSON-RPC code in the spec, and A2A
    reserves -32001…-32099 for its own errors: the one code left to implementations is
    -32000, shared with :class:`AuthenticationRequiredError` and told apart by the HTTP
    status (403 / 401) and ``ErrorInfo.reason``.
    """

    jsonrpc_code = -32000
    http_status = 403
    grpc_status = "PERMISSION_DENIED"
    reason = "PERMISSION_DENIED"
    default_message = "Permission denied"


# --- A2A errors (spec §5.4, v1.0.1 table) -------------------------------------------------


class TaskNotFoundError(A2AError):
    jsonrpc_code = -32001
    http_status = 404
    grpc_status = "NOT_FOUND"
    reason = "TASK_NOT_FOUND"
    default_message = "Task not found"


class TaskNotCancelableError(A2AError):
    jsonrpc_code = -32002
    http_status = 400
    grpc_status = "FAILED_PRECONDITION"
    reason = "TASK_NOT_CANCELABLE"
    default_message = "Task cannot be canceled"


class PushNotificationNotSupportedError(A2AError):
    jsonrpc_code = -32003
    http_status = 400
    grpc_status = "FAILED_PRECONDITION"
    reason = "PUSH_NOTIFICATION_NOT_SUPPORTED"
    default_message = "Push notifications are not supported"


class UnsupportedOperationError(A2AError):
    jsonrpc_code = -32004
    http_status = 400
    grpc_status = "FAILED_PRECONDITION"
    reason = "UNSUPPORTED_OPERATION"
    default_message = "This operation is not supported"


class ContentTypeNotSupportedError(A2AError):
    jsonrpc_code = -32005
    http_status = 400
    grpc_status = "INVALID_ARGUMENT"
    reason = "CONTENT_TYPE_NOT_SUPPORTED"
    default_message = "Content type not supported"


class InvalidAgentResponseError(A2AError):
    jsonrpc_code = -32006
    http_status = 500
    grpc_status = "INTERNAL"
    reason = "INVALID_AGENT_RESPONSE"
    default_message = "The agent produced an invalid response"


class ExtendedAgentCardNotConfiguredError(A2AError):
    jsonrpc_code = -32007
    http_status = 400
    grpc_status = "FAILED_PRECONDITION"
    reason = "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
    default_message = "The extended agent card is not configured"


class ExtensionSupportRequiredError(A2AError):
    jsonrpc_code = -32008
    http_status = 400
    grpc_status = "FAILED_PRECONDITION"
    reason = "EXTENSION_SUPPORT_REQUIRED"
    default_message = "A required extension was not requested"


class VersionNotSupportedError(A2AError):
    jsonrpc_code = -32009
    http_status = 400
    grpc_status = "FAILED_PRECONDITION"
    reason = "VERSION_NOT_SUPPORTED"
    default_message = "Protocol version not supported"


# --- limits (not in the A2A table) ---------------------------------------------------------

RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo"


class RateLimitedError(A2AError):
    """Too many requests from this caller (or client address): try again later.

    The spec lists rate limiting as a system error and recommends HTTP 429 /
    ``RESOURCE_EXHAUSTED`` without giving a JSON-RPC code. A2A reserves -32001..-32099,
    so this is -32000, the one server-error code left to implementations, like the other
    errors of ours; ``reason`` tells them apart.
    ``retry_after`` (seconds) becomes the ``Retry-After`` header and a
    ``google.rpc.RetryInfo`` detail.
    """

    jsonrpc_code = -32000
    http_status = 429
    grpc_status = "RESOURCE_EXHAUSTED"
    reason = "RATE_LIMIT_EXCEEDED"
    default_message = "Too many requests; try again later"

    def __init__(
        self,
        message: str | None = None,
        *,
        retry_after: int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        super().__init__(message, metadata=metadata, headers=headers)
        self.retry_after = retry_after

    def details(self) -> list[dict[str, Any]]:
        details = super().details()
        if self.retry_after is not None:
            details.append({"@type": RETRY_INFO_TYPE, "retryDelay": f"{self.retry_after}s"})
        return details


class TooManyAuthenticationFailuresError(RateLimitedError):
    """Too many failed sign-ins from this address or for this user: wait (Retry-After)."""

    reason = "TOO_MANY_AUTHENTICATION_FAILURES"
    default_message = "Too many failed sign-ins; try again later"


class TooManyStreamsError(RateLimitedError):
    """The caller already holds as many open streams as it may."""

    reason = "STREAM_LIMIT_EXCEEDED"
    default_message = "Too many open streams; close one first"


class LimitExceededError(A2AError):
    """A request would take a resource past a configured cap that waiting does not lift
    (push configs on one task). JSON-RPC -32000, told apart by ``reason``."""

    jsonrpc_code = -32000
    http_status = 400
    grpc_status = "FAILED_PRECONDITION"
    reason = "LIMIT_EXCEEDED"
    default_message = "A configured limit was reached"
