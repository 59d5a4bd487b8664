"""With KB_PUBLIC_READ=false, every page needs a logged-in user (the API checks tokens itself)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

OPEN_PREFIXES = ("/admin/", "/static/", "/healthz", "/readyz", "/metrics", "/i18n/", "/api/")


class LoginRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (not settings.KB_PUBLIC_READ and not request.path.startswith(OPEN_PREFIXES)
                and not request.user.is_authenticated):
            body = render_to_string("401.html", {"next": request.get_full_path()}, request=request)
            return HttpResponse(body, status=401)
        return self.get_response(request)
