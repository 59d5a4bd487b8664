"""Reads of the learning loop: the editors' queue."""

from __future__ import annotations

from django.db.models import QuerySet

from troubleshoot.models import UnansweredTemplate

KINDS = [k.value for k in UnansweredTemplate.Kind]
STATUSES = [s.value for s in UnansweredTemplate.Status]


def unanswered_list(*, kind: str | None = None, status: str | None = UnansweredTemplate.Status.OPEN
                    ) -> QuerySet[UnansweredTemplate]:
    """The queue, most widespread first: distinct clients, then occurrences. ``status=None``: all rows."""
    qs = UnansweredTemplate.objects.all()
    if status:
        qs = qs.filter(status=status)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-clients", "-count", "-last_seen", "id")


def unanswered_get(*, entry_id: int) -> UnansweredTemplate | None:
    return UnansweredTemplate.objects.filter(pk=entry_id).first()
