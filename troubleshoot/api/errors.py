"""One error shape across the API: {"error": {"code", "message", "details"}}."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "payload_too_large"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The resource already exists."
    default_code = "conflict"


def _message(detail: Any) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            inner = _message(value)
            return inner if key in ("non_field_errors", "detail") else f"{key}: {inner}"
        return "Invalid request."
    if isinstance(detail, list):
        return _message(detail[0]) if detail else "Invalid request."
    return str(detail)


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details if details is not None else {}}}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        # Anything unexpected: log it with its traceback, answer in the API's shape, show nothing inside.
        logging.getLogger("troubleshoot.api").error("unhandled error in %s", context.get("view"), exc_info=exc)
        return Response(error_body("server_error", "Internal error; it was logged. Please try again later."),
                        status=500)
    detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
    if isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else getattr(exc, "default_code", "invalid")
    else:
        code = "error"
    if isinstance(exc, exceptions.ValidationError):
        code = "invalid"
    details = detail if isinstance(detail, (dict, list)) else {}
    response.data = error_body(str(code), _message(detail), details)
    return response
