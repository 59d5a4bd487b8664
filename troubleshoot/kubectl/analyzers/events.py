"""Warning events that no other rule explained.

An upload of ``Events:`` rows or a ``kubectl get events`` table must still give
a finding for each distinct warning, even when no rule knows its reason
(``SyncLoadBalancerFailed``, ``FailedSync``, a webhook's own events). This runs
after the other analysers and only adds what they did not use as evidence.
"""

from __future__ import annotations

import re

from ..models import Finding
from ..resources import Event, Inventory, Resource
from .common import fully_ready, make, ref

_VARIABLE = re.compile(r'(?<=[=: ])"[^"]*"|\b[0-9a-f]{12,}\b|\d+')


def template(message: str) -> str:
    """The message with quoted values, ids and numbers masked (one finding per template). A quoted
    string that opens the message is its text (klog's structured ``"Error getting node" err=...``)."""
    return _VARIABLE.sub("#", message)[:160]


def _owner_key(f: Finding) -> tuple[str, str, str]:
    return (f.kind, f.namespace, f.name or f.subject)


def _healthy(res: Resource) -> bool:
    return res.kind == "Pod" and res.phase == "Running" and fully_ready(res) and not res.anonymous


def unexplained(inv: Inventory, findings: list[Finding]) -> list[Finding]:
    used: dict[tuple[str, str, str], set[str]] = {}
    for f in findings:
        used.setdefault(_owner_key(f), set()).update(f.evidence)
    added: list[Finding] = []
    for res in inv:
        warnings = [e for e in res.events if e.is_warning]
        if not warnings or _healthy(res):
            continue     # a pod that runs and is ready now: its warnings are history
        seen = used.get((res.kind, res.ns, res.name), set())
        groups: dict[tuple[str, str], list[Event]] = {}
        for event in warnings:
            if any(line in seen for line in event.evidence):
                continue
            groups.setdefault((event.reason, template(event.message)), []).append(event)
        for (reason, _), events in groups.items():
            first = events[0]
            count = sum(e.count for e in events)
            times = f" ({count} times)" if count > 1 else ""
            message = first.message or "(no message in the upload)"
            detail = f"{res.kind} {ref(res)}: warning event {reason or '(no reason)'}{times}: {message[:400]}"
            lines = [line for e in events for line in e.evidence][:6]
            finding = make(res, "Event.Warning", detail, lines, "warning")
            finding.subject = f"{finding.subject}|{reason}|{template(first.message)}"
            added.append(finding)
    return findings + added
