"""Who may do what through the API.

Reading, matching, analyses and feedback ("read-like" views) are open to anyone when
KB_PUBLIC_READ is true, else to any logged-in user or token. Writes to articles need
the matching Django model permission (add / change / delete article).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS, BasePermission

WRITE_PERMS = {"POST": "add", "PUT": "change", "PATCH": "change", "DELETE": "delete"}


class ReadOrModelPermission(BasePermission):
    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        authenticated = bool(request.user and request.user.is_authenticated)
        if not (settings.KB_PUBLIC_READ or authenticated):
            return False
        if request.method in SAFE_METHODS or getattr(view, "read_like", False):
            return True
        if not authenticated:
            return False
        action = WRITE_PERMS.get(request.method)
        return bool(action) and request.user.has_perm(f"troubleshoot.{action}_article")
