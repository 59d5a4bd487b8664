""""Did this fix it?" votes, and the small ranking prior they give.

Each voter (user, browser session or, failing both, a hash of the client address)
has one vote per article; voting again replaces it, so one person voting a hundred
times counts once. The prior is bounded to ±PRIOR_MAX of score: enough to order
near-ties, never enough to lift a weak match over a strong signature match.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from typing import Any

from django.db.models import Count, Q

from troubleshoot.models import Article, Feedback

PRIOR_MAX = 0.03
PRIOR_SCALE = 5.0  # net votes at which the prior reaches ~76% of its maximum
_CACHE_SECONDS = 30.0
_lock = threading.Lock()
_cache: dict[str, Any] = {"at": 0.0, "priors": {}}


def voter_key(*, user: Any, session_key: str | None, address: str | None) -> str:
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    if session_key:
        return f"session:{session_key}"
    digest = hashlib.sha256((address or "unknown").encode()).hexdigest()[:32]
    return f"ip:{digest}"


def feedback_record(*, slug: str, language: str, helpful: bool, voter: str, user: Any = None, query: str = "",
                    symptoms: list[str] | None = None) -> Feedback:
    from troubleshoot.redact import redact

    vote, _ = Feedback.objects.update_or_create(
        slug=slug, voter=voter,
        defaults={"language": language, "helpful": helpful, "query": redact(query or "")[0][:2000],
                  "symptoms": [str(s)[:120] for s in (symptoms or [])][:20],
                  "user": user if user is not None and getattr(user, "is_authenticated", False) else None},
    )
    _cache["at"] = 0.0
    return vote


def feedback_counts(*, slug: str) -> dict[str, int]:
    row = Feedback.objects.filter(slug=slug).aggregate(up=Count("pk", filter=Q(helpful=True)),
                                                       down=Count("pk", filter=Q(helpful=False)))
    return {"helpful": row["up"] or 0, "unhelpful": row["down"] or 0}


def feedback_by_symptom(*, slug: str) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for helpful, symptoms in Feedback.objects.filter(slug=slug).values_list("helpful", "symptoms"):
        for key in symptoms or []:
            row = counts.setdefault(key, {"helpful": 0, "unhelpful": 0})
            row["helpful" if helpful else "unhelpful"] += 1
    return counts


def prior_for(net: int) -> float:
    return PRIOR_MAX * math.tanh(net / PRIOR_SCALE)


def feedback_priors() -> dict[str, float]:
    """slug → score adjustment in [-PRIOR_MAX, PRIOR_MAX], cached for a few seconds per process."""
    now = time.monotonic()
    if now - _cache["at"] < _CACHE_SECONDS:
        return _cache["priors"]
    with _lock:
        rows = (Feedback.objects.values("slug")
                .annotate(up=Count("pk", filter=Q(helpful=True)), down=Count("pk", filter=Q(helpful=False))))
        _cache["priors"] = {r["slug"]: prior_for(r["up"] - r["down"]) for r in rows}
        _cache["at"] = now
        return _cache["priors"]


def article_exists(slug: str) -> bool:
    return Article.objects.published().filter(slug=slug).exists()
