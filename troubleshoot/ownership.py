"""Who owns an analysis or a saved paste: a user, or the browser session that made it.

One rule for both, shared by the pages and the API."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


def owner_session_key(request: HttpRequest, *, user: Any = None) -> str:
    """The session key that owns what an anonymous visitor creates ("" for a logged-in user).

    Creates the session when there is none yet, so the response carries its cookie. ``user``
    is the API's authenticated user (token clients are anonymous to Django's middleware)."""
    if (user if user is not None else request.user).is_authenticated:
        return ""
    session = request.session
    if not session.session_key:
        session["kb"] = 1  # mark it modified so the middleware sends the cookie
        session.save()
    return session.session_key or ""


def visible_to(obj: Any, *, user: Any, session_key: str | None) -> bool:
    """Staff see everything; a user sees their own; an anonymous owner needs the same session."""
    if user is not None and user.is_authenticated:
        if user.is_staff or (obj.owner_id is not None and obj.owner_id == user.pk):
            return True
    return bool(obj.owner_id is None and session_key and obj.session_key == session_key)
