"""Reading and matching are open when KB_PUBLIC_READ is true; writes need model permissions."""

from __future__ import annotations

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS, BasePermission, DjangoModelPermissions


class ReadOrModelPermission(BasePermission):
    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        authenticated = bool(request.user and request.user.is_authenticated)
        if request.method in SAFE_METHODS or getattr(view, "read_like", False):
            return settings.KB_PUBLIC_READ or authenticated
        if not authenticated:
            return False
        if getattr(view, "queryset", None) is None and not hasattr(view, "get_queryset"):
            return True
        return DjangoModelPermissions().has_permission(request, view)
