"""Pending pods: classify FailedScheduling messages (scheduler, Karpenter, Fargate)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..models import Finding
from ..resources import Event, Inventory, Resource
from ..taints import Taint, taints_in_scheduler_message
from .common import event_lines, is_scheduled, known_pending, make, only_from_events, ref, waiting

_TOTAL = re.compile(r"(\d+)/(\d+) nodes are available")
_CLAUSE_SPLIT = re.compile(r",\s+(?=\d+\s)")
_CLAUSE = re.compile(r"^(\d+)\s+(.*)$")
_INSUFFICIENT = re.compile(r"Insufficient ([\w./-]+)")
_NODEPOOL = re.compile(r'(?:nodepool|provisioner)\s+"([^"]+)"', re.I)
_KARPENTER = re.compile(r"incompatible with (?:nodepool|provisioner)|could not schedule pod|"
                        r"failed to schedule pod", re.I)


@dataclass
class Cause:
    code: str
    nodes: int | None = None
    resources: list[str] = field(default_factory=list)
    taints: list[Taint] = field(default_factory=list)
    text: str = ""


# Predicate names the scheduler printed before Kubernetes 1.10
# ("Failed for reason PodFitsResources", "... predicates: Insufficient cpu (19), PodToleratesNodeTaints (10)").
_PREDICATES = (
    ("podtoleratesnodetaints", "FailedScheduling.UntoleratedTaint"),
    ("podfitsresources", "FailedScheduling.InsufficientResources"),
    ("podexceedsfree", "FailedScheduling.InsufficientResources"),
    ("podfitshostports", "FailedScheduling.PortConflict"),
    ("podfitsports", "FailedScheduling.PortConflict"),
    ("matchnodeselector", "FailedScheduling.NodeAffinity"),
    ("novolumezoneconflict", "FailedScheduling.VolumeNodeAffinityConflict"),
    ("maxebsvolumecount", "FailedScheduling.VolumeLimits"),
)
_OLD_CLAUSE = re.compile(r"^(.*?)\s*\((\d+)\)$")


def _clause_cause(count: int | None, text: str) -> Cause:
    low = text.lower()
    for predicate, code in _PREDICATES:
        if predicate in low and not ("insufficient" in low and code.endswith("UntoleratedTaint")):
            return Cause(code, count, resources=_INSUFFICIENT.findall(text), text=text)
    if "taint" in low and ("untolerated" in low or "didn't tolerate" in low or "had taint" in low):
        return Cause("FailedScheduling.UntoleratedTaint", count, taints=taints_in_scheduler_message(text),
                     text=text)
    if "insufficient" in low:
        return Cause("FailedScheduling.InsufficientResources", count,
                     resources=_INSUFFICIENT.findall(text), text=text)
    if "too many pods" in low:
        return Cause("FailedScheduling.TooManyPods", count, text=text)
    if "volume node affinity conflict" in low:
        return Cause("FailedScheduling.VolumeNodeAffinityConflict", count, text=text)
    if "unbound immediate persistentvolumeclaims" in low or (
            "persistentvolumeclaim" in low and "not found" in low):
        return Cause("FailedScheduling.UnboundPVC", count, text=text)
    if "node affinity" in low or "node selector" in low or "nodeselector" in low:
        return Cause("FailedScheduling.NodeAffinity", count, text=text)
    if "anti-affinity" in low or "pod affinity" in low:
        return Cause("FailedScheduling.PodAffinity", count, text=text)
    if "topology spread" in low:
        return Cause("FailedScheduling.TopologySpread", count, text=text)
    if "were unschedulable" in low:
        return Cause("FailedScheduling.NodeUnschedulable", count, text=text)
    if "free ports" in low:
        return Cause("FailedScheduling.PortConflict", count, text=text)
    if "max volume count" in low:
        return Cause("FailedScheduling.VolumeLimits", count, text=text)
    if "no nodes available" in low or "no minions available" in low:
        return Cause("FailedScheduling.NoNodes", 0, text=text)
    return Cause("FailedScheduling.Other", count, text=text)


def classify_scheduling(message: str) -> list[Cause]:
    """Causes named in one FailedScheduling message, in message order."""
    if _KARPENTER.search(message):
        return [Cause("Karpenter.IncompatibleNodePool", text=message)]
    if "fargate" in message.lower():
        return [Cause("FailedScheduling.FargateProfile", text=message)]
    main = re.split(r"\s*preemption:", message, maxsplit=1)[0].strip()
    _, sep, rest = main.partition("nodes are available:")
    old = False
    if not sep:
        _, sep, rest = main.partition("match all of the predicates:")
        if not sep:
            _, sep, rest = main.partition("match all of the following predicates:")
        old = bool(sep)
    if not sep:
        return [_clause_cause(None, main)]
    causes: dict[str, Cause] = {}
    clauses = re.split(r",\s+", rest.strip().rstrip(".")) if old else _CLAUSE_SPLIT.split(rest.strip().rstrip("."))
    for clause in clauses:
        clause = clause.strip()
        m = _OLD_CLAUSE.match(clause) if old else _CLAUSE.match(clause)
        if m and old:
            count, text = int(m.group(2)), m.group(1)
        else:
            count, text = (int(m.group(1)), m.group(2)) if m else (None, clause)
        cause = _clause_cause(count, text)
        if cause.code in causes:
            prev = causes[cause.code]
            prev.nodes = max(prev.nodes or 0, cause.nodes or 0)
            prev.resources += [r for r in cause.resources if r not in prev.resources]
            prev.taints += [t for t in cause.taints if t not in prev.taints]
            prev.text += f", {cause.text}"
        else:
            causes[cause.code] = cause
    return list(causes.values()) or [Cause("FailedScheduling.Other", text=main)]


_TAINT_WITH_EFFECT = re.compile(r"([\w./-]+)=([\w./-]*):(NoSchedule|NoExecute|PreferNoSchedule)")


def _node_taint_effects(inv: Inventory) -> dict[tuple[str, str], set[str]]:
    """Effects of taints known from nodes, NodeClaims, NodePools or Karpenter's messages."""
    effects: dict[tuple[str, str], set[str]] = {}
    for node in inv.of_kind("Node", "NodeClaim", "NodePool"):
        for t in node.taints or []:
            effects.setdefault((t.key, t.value), set()).add(t.effect)
    for pod in inv.of_kind("Pod"):
        for e in pod.events:
            if "taint" in e.message and ":No" in e.message:
                for key, value, effect in _TAINT_WITH_EFFECT.findall(e.message):
                    effects.setdefault((key, value), set()).add(effect)
    return effects


def _taint_names(taints: list[Taint], effects: dict[tuple[str, str], set[str]]) -> str:
    names = []
    for t in taints:
        known = sorted(e for e in effects.get((t.key, t.value), set()) if e)
        if known:
            names.extend(str(Taint(t.key, t.value, e)) for e in known)
        else:
            names.append(f"{t} (effect not shown in the event: NoSchedule or NoExecute)")
    return ", ".join(names)


def _detail(pod: Resource, cause: Cause, total: str, effects: dict[tuple[str, str], set[str]],
            inv: Inventory) -> str:
    who = f"Pod {ref(pod)} cannot be scheduled"
    n = f"{cause.nodes} node(s)" if cause.nodes is not None else "nodes"
    code = cause.code
    if code == "FailedScheduling.UntoleratedTaint":
        if not cause.taints:
            return f"{who}: {n}{total} have taints that the pod does not tolerate (the message does not name them)."
        return (f"{who}: {n}{total} have taint {_taint_names(cause.taints, effects)} "
                "that the pod does not tolerate.")
    if code == "FailedScheduling.InsufficientResources":
        return f"{who}: {n}{total} lack free {', '.join(cause.resources) or 'resources'} for the pod's requests."
    if code == "FailedScheduling.TooManyPods":
        return f"{who}: {n}{total} already run their maximum number of pods."
    if code == "FailedScheduling.NodeAffinity":
        sel = ", ".join(f"{k}={v}" for k, v in (pod.node_selector or {}).items())
        extra = f" (nodeSelector {sel})" if sel else ""
        return f"{who}: {n}{total} do not match the pod's node affinity/selector{extra}."
    if code == "FailedScheduling.UnboundPVC":
        pending = [c for c in pod.claims
                   if (pvc := inv.get("PersistentVolumeClaim", pod.namespace, c)) is not None
                   and pvc.phase != "Bound"]
        claims = f" ({', '.join(pending)})" if pending else ""
        return f"{who}: it uses PersistentVolumeClaims that are not bound{claims}."
    if code == "FailedScheduling.VolumeNodeAffinityConflict":
        return (f"{who}: {n}{total} are in a different zone/topology than the pod's "
                "PersistentVolume (volume node affinity conflict).")
    if code == "FailedScheduling.NoNodes":
        return f"{who}: the scheduler sees no node to place it on ({cause.text.strip().rstrip('.')})."
    if code == "FailedScheduling.FargateProfile":
        return f"{who} on Fargate: {cause.text}"
    if code == "Karpenter.IncompatibleNodePool":
        pools = sorted(set(_NODEPOOL.findall(cause.text)))
        names = ", ".join(pools) if pools else "any NodePool"
        return (f"Karpenter cannot provision a node for pod {ref(pod)}: it is incompatible with {names}. "
                f"Karpenter said: {cause.text[:400]}")
    if cause.nodes is not None:
        out_of = f" (out of {total[4:]} nodes)" if total else ""
        return f"{who}: {cause.nodes} {cause.text}{out_of}."
    return f"{who}: {cause.text}"


def _pending_without_reason(pod: Resource) -> Finding:
    return make(pod, "Pod.Pending",
                f"Pod {ref(pod)} is Pending and no scheduling event in the input explains why.",
                pod.evidence[:3], "warning")


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    effects = _node_taint_effects(inv)
    for pod in inv.of_kind("Pod"):
        if is_scheduled(pod) or pod.phase in ("Succeeded", "Failed"):
            continue
        events = [e for e in pod.events if e.reason == "FailedScheduling"
                  or (e.is_warning and e.message and _KARPENTER.search(e.message))]
        if not events:
            if known_pending(pod) and not waiting(pod) and not pod.deleting:
                findings.append(_pending_without_reason(pod))
            continue
        severity = "warning" if only_from_events(pod) else "critical"
        by_code: dict[str, tuple[Cause, list[Event], str]] = {}
        for event in events:
            m = _TOTAL.search(event.message)
            total = f" of {m.group(2)}" if m else ""
            for cause in classify_scheduling(event.message):
                if cause.code in by_code:
                    by_code[cause.code][1].append(event)
                else:
                    by_code[cause.code] = (cause, [event], total)
        for code, (cause, evs, total) in by_code.items():
            evidence = pod.evidence[:2] + event_lines(evs)
            findings.append(make(pod, code, _detail(pod, cause, total, effects, inv), evidence, severity))
    return findings
