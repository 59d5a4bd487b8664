"""Node health from conditions, the STATUS column and node events."""

from __future__ import annotations

from ..models import Finding
from ..resources import Condition, Inventory, Resource
from .common import event_lines, make, only_from_events, ref

PRESSURE = {
    "MemoryPressure": ("Node.MemoryPressure", "is low on memory"),
    "DiskPressure": ("Node.DiskPressure", "is low on disk space"),
    "PIDPressure": ("Node.PIDPressure", "is running out of process IDs"),
    "NetworkUnavailable": ("Node.NetworkUnavailable", "has no working pod network"),
}


def _cond_text(cond: Condition) -> str:
    parts = [f"{cond.type}={cond.status}"]
    if cond.reason:
        parts.append(f"reason {cond.reason}")
    text = ", ".join(parts)
    if cond.message:
        text += f": {cond.message}"
    return text


def _ready(node: Resource) -> list[Finding]:
    events = [e for e in node.events if e.reason in ("NodeNotReady", "NodeNotSchedulable")
              or (e.is_warning and e.reason not in ("FailedDraining", "DisruptionBlocked"))]
    cond = node.conditions.get("Ready")
    status_word = node.status.split(",")[0] if node.status else ""
    if cond is not None and cond.status == "True":
        return []
    if cond is not None:
        unknown = cond.status == "Unknown"
        code = "Node.Unknown" if unknown else "Node.NotReady"
        lead = ("the kubelet stopped posting node status (node unreachable or kubelet down)"
                if unknown else "the kubelet reports it NotReady")
        detail = f"Node {ref(node)} is {'Unknown' if unknown else 'NotReady'}: {lead}. {_cond_text(cond)}"
        evidence = node.evidence[:1] + cond.evidence + event_lines(events, 4)
        return [make(node, code, detail, evidence, "critical")]
    if status_word in ("NotReady", "Unknown"):
        code = "Node.Unknown" if status_word == "Unknown" else "Node.NotReady"
        detail = f"Node {ref(node)} is {status_word} (from kubectl get nodes; no condition details in the input)."
        return [make(node, code, detail, node.evidence[:1] + event_lines(events, 4), "critical")]
    notready_events = [e for e in node.events if e.reason == "NodeNotReady"]
    if notready_events and only_from_events(node):
        return [make(node, "Node.NotReady",
                     f"Node {ref(node)} was reported NotReady: {notready_events[0].message}",
                     event_lines(notready_events, 3), "warning")]
    return []


def _pressure(node: Resource) -> list[Finding]:
    findings = []
    for ctype, (code, words) in PRESSURE.items():
        cond = node.conditions.get(ctype)
        if cond is None or cond.status != "True":
            continue
        detail = f"Node {ref(node)} {words}: {_cond_text(cond)}"
        findings.append(make(node, code, detail, node.evidence[:1] + cond.evidence,
                             "critical" if ctype == "NetworkUnavailable" else "warning"))
    return findings


def _cordoned(node: Resource) -> list[Finding]:
    if not node.fields.get("unschedulable"):
        return []
    return [make(node, "Node.Unschedulable",
                 f"Node {ref(node)} is cordoned (SchedulingDisabled): no new pods will be placed on it.",
                 node.evidence[:1], "info")]


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for node in inv.of_kind("Node"):
        findings += _ready(node)
        findings += _pressure(node)
        findings += _cordoned(node)
    return findings
