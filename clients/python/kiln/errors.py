"""Typed errors: one class per error code of the Kiln API, each with the server's message."""

from typing import Any, Dict, Optional


class KilnError(Exception):
    """An error answered by Kiln (or the connection to it failing).

    ``code`` is the API's error code (``VALIDATION_FAILED``...), ``status`` the HTTP status,
    ``message`` the server's sentence, ``details`` its details (``errors``, ``limit``...).
    """

    code = "KILN_ERROR"

    def __init__(self, message: str, status: Optional[int] = None, details: Optional[Dict[str, Any]] = None,
                 request_id: Optional[str] = None, code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.details = details or {}
        self.request_id = request_id
        if code is not None:
            self.code = code

    @property
    def errors(self):
        """The field problems of a 422 (``[{path, message}]`` or ``[{row, column, message}]``)."""
        return self.details.get("errors", [])

    def __str__(self) -> str:
        text = f"{self.code}: {self.message}"
        problems = self.errors
        if problems:
            text += "".join(
                f"\n  {p.get('path', p.get('column', ''))}{' (row ' + str(p['row']) + ')' if 'row' in p else ''}: {p.get('message')}"
                for p in problems[:20])
        return text


class ConnectionFailed(KilnError):
    """Kiln could not be reached (refused, timed out, DNS)."""
    code = "CONNECTION_FAILED"


class RedirectRefused(KilnError):
    """Kiln's address answered with a redirect the client does not follow: to another host (the
    key is never sent there), or of a request that is not a GET (a 301, 302 or 303 would turn it
    into a GET and drop its body). Kiln itself never redirects its API: a proxy in front of it did.
    ``location`` is where it pointed."""
    code = "REDIRECT_REFUSED"

    def __init__(self, message: str, location: str, status: Optional[int] = None):
        super().__init__(message, status=status)
        self.location = location


class CampaignFailed(KilnError):
    """A loop (``Campaign.run``) ended with the campaign ``failed``; ``campaign`` is it, as it ended,
    so its results and logs can still be read."""
    code = "CAMPAIGN_FAILED"

    def __init__(self, message: str, campaign: Any):
        super().__init__(message)
        self.campaign = campaign


class BadRequest(KilnError):
    code = "BAD_REQUEST"


class Unauthenticated(KilnError):
    code = "UNAUTHENTICATED"


class InsufficientScope(KilnError):
    code = "INSUFFICIENT_SCOPE"


class IpNotAllowed(KilnError):
    code = "IP_NOT_ALLOWED"


class NotFound(KilnError):
    code = "NOT_FOUND"


class MethodNotAllowed(KilnError):
    code = "METHOD_NOT_ALLOWED"


class InvalidState(KilnError):
    code = "INVALID_STATE"


class ConcurrentCampaignLimit(KilnError):
    code = "CONCURRENT_CAMPAIGN_LIMIT"


class PayloadTooLarge(KilnError):
    code = "PAYLOAD_TOO_LARGE"


class UnsupportedMediaType(KilnError):
    code = "UNSUPPORTED_MEDIA_TYPE"


class ValidationFailed(KilnError):
    code = "VALIDATION_FAILED"


class DatasetInvalid(KilnError):
    code = "DATASET_INVALID"


class RateLimited(KilnError):
    code = "RATE_LIMITED"

    @property
    def retry_after(self) -> Optional[float]:
        value = self.details.get("retry_after")
        return float(value) if value is not None else None


class Internal(KilnError):
    code = "INTERNAL"


class NotImplementedByServer(KilnError):
    code = "NOT_IMPLEMENTED"


class ProviderUnavailable(KilnError):
    code = "PROVIDER_UNAVAILABLE"


class ServiceUnavailable(KilnError):
    code = "SERVICE_UNAVAILABLE"


class TooManySubscriptions(KilnError):
    code = "TOO_MANY_SUBSCRIPTIONS"


ERRORS_BY_CODE = {cls.code: cls for cls in (
    BadRequest, Unauthenticated, InsufficientScope, IpNotAllowed, NotFound, MethodNotAllowed, InvalidState,
    ConcurrentCampaignLimit, PayloadTooLarge, UnsupportedMediaType, ValidationFailed, DatasetInvalid, RateLimited,
    Internal, NotImplementedByServer, ProviderUnavailable, ServiceUnavailable, TooManySubscriptions,
)}


def error_from_response(status: int, body: Any, request_id: Optional[str]) -> KilnError:
    """The typed error of an error envelope (a plain KilnError for a code this client does not know)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return KilnError(f"HTTP {status} without an error envelope", status=status, request_id=request_id, code="HTTP_ERROR")
    code = str(error.get("code", "HTTP_ERROR"))
    cls = ERRORS_BY_CODE.get(code, KilnError)
    return cls(str(error.get("message", "")), status=status, details=error.get("details") or {}, request_id=request_id,
               code=None if cls is not KilnError else code)
