"""`Status` bodies shaped like the real API server's, and the exception that carries one to the client."""

from __future__ import annotations

from typing import Any

from tests.fakes.kube_schema import InvalidObjectError

_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    410: "Expired",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


def status_body(
    code: int, message: str, *, reason: str | None = None, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason if reason is not None else _REASONS.get(code, ""),
    }
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


def _details(group: str, plural: str, name: str = "") -> dict[str, Any]:
    """Go's omitempty: empty name and group are left out."""
    details: dict[str, Any] = {}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    details["kind"] = plural
    return details


def _qualified(group: str, plural: str) -> str:
    return f"{plural}.{group}" if group else plural


class KubeStatusError(Exception):
    """An answer with a Status body; the server turns it into the HTTP response."""

    def __init__(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(body["message"])
        self.body = body
        self.code: int = body["code"]
        self.headers = headers or {}

    @classmethod
    def not_found(cls, group: str, plural: str, name: str) -> KubeStatusError:
        message = f'{_qualified(group, plural)} "{name}" not found'
        return cls(status_body(404, message, details=_details(group, plural, name)))

    @classmethod
    def no_route(cls) -> KubeStatusError:
        return cls(status_body(404, "the server could not find the requested resource", details={}))

    @classmethod
    def already_exists(cls, group: str, plural: str, name: str) -> KubeStatusError:
        message = f'{_qualified(group, plural)} "{name}" already exists'
        return cls(status_body(409, message, reason="AlreadyExists", details=_details(group, plural, name)))

    @classmethod
    def conflict(cls, group: str, plural: str, name: str) -> KubeStatusError:
        message = (
            f'Operation cannot be fulfilled on {_qualified(group, plural)} "{name}": the object has been '
            "modified; please apply your changes to the latest version and try again"
        )
        return cls(status_body(409, message, details=_details(group, plural, name)))

    @classmethod
    def forbidden(cls, group: str, resource: str, name: str, why: str) -> KubeStatusError:
        subject = _qualified(group, resource)
        message = f'{subject} "{name}" is forbidden: {why}' if name else f"{subject} is forbidden: {why}"
        return cls(status_body(403, message, details=_details(group, resource, name)))

    @classmethod
    def unauthorized(cls) -> KubeStatusError:
        return cls(status_body(401, "Unauthorized"))

    @classmethod
    def invalid(cls, error: InvalidObjectError) -> KubeStatusError:
        details = _details(error.group, error.kind, error.name)
        details["causes"] = [{"reason": e.reason, "message": e.detail, "field": e.field} for e in error.errors]
        return cls(status_body(422, str(error), details=details))

    @classmethod
    def bad_request(cls, message: str) -> KubeStatusError:
        return cls(status_body(400, message))

    @classmethod
    def expired(cls, message: str) -> KubeStatusError:
        return cls(status_body(410, message))

    @classmethod
    def injected(cls, code: int, message: str | None, retry_after: int | None) -> KubeStatusError:
        """A failure asked for by a test (500, 503, 429, ...)."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        if code == 429:
            text = message or "Too many requests, please try again later."
            details = {"retryAfterSeconds": retry_after} if retry_after is not None else {}
            return cls(status_body(code, text, details=details), headers)
        if code == 500:
            text = message or "fake failure"
            body = status_body(code, f"Internal error occurred: {text}", details={"causes": [{"message": text}]})
            return cls(body, headers)
        return cls(status_body(code, message or f"injected failure ({code})"), headers)
