"""Readiness checks for /readyz."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db import connection


def _timed(check) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    try:
        detail = check()
        result = {"ok": True, **(detail or {})}
    except Exception as exc:  # noqa: BLE001 - report, don't raise
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


def _database() -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {}


def _index() -> dict[str, Any]:
    from troubleshoot.models import KBState
    from troubleshoot.search import _state, article_index, index_sync

    index_sync()
    if not article_index().exists():
        raise RuntimeError("the search index does not exist")
    current = KBState.current()
    if _state["version"] != current:
        raise RuntimeError(f"the index is at KB version {_state['version']}, the database at {current}")
    return {"kb_version": current}


def _broker() -> dict[str, Any]:
    from kbapp.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return {}


def readiness() -> dict[str, dict[str, Any]]:
    checks = {"database": _timed(_database), "index": _timed(_index)}
    if settings.KB_BROKER_CONFIGURED:
        checks["broker"] = _timed(_broker)
    return checks
