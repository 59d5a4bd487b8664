"""Node taints that pending pods in the same input do not tolerate."""

from __future__ import annotations

from ..models import Finding
from ..resources import Inventory, Resource
from ..taints import Taint, untolerated
from .common import event_lines, is_scheduled, make, ref


def _pending_pods(inv: Inventory) -> list[Resource]:
    return [p for p in inv.of_kind("Pod")
            if p.tolerations is not None and not is_scheduled(p)
            and p.phase not in ("Succeeded", "Failed") and not p.deleting]


def analyze(inv: Inventory) -> list[Finding]:
    pods = _pending_pods(inv)
    if not pods:
        return []
    findings: list[Finding] = []
    for node in inv.of_kind("Node"):
        if not node.taints:
            continue
        blocked: dict[Taint, list[Resource]] = {}
        for pod in pods:
            for taint in untolerated(node.taints, pod.tolerations or []):
                blocked.setdefault(taint, []).append(pod)
        if not blocked:
            continue
        parts = []
        evidence = list(node.fields.get("taint_lines") or [])
        if not evidence:
            evidence = [f"Taints: {t}" for t in blocked]
        for taint, victims in blocked.items():
            names = ", ".join(ref(p) for p in victims[:5])
            more = f" and {len(victims) - 5} more" if len(victims) > 5 else ""
            parts.append(f"{taint} is not tolerated by pending pod(s) {names}{more}")
            for pod in victims[:3]:
                taint_events = [e for e in pod.events
                                if e.reason == "FailedScheduling" and taint.key in e.message]
                evidence += event_lines(taint_events, 1)
        detail = f"Node {ref(node)}: " + "; ".join(parts) + "."
        findings.append(make(node, "Node.TaintNotTolerated", detail, evidence, "warning"))
    return findings
