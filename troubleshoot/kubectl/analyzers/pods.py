"""Pod-level problems: eviction, readiness, volume mounts, stuck deletion."""

from __future__ import annotations

import re

from ..models import Finding
from ..resources import Inventory, Resource
from .common import event_lines, known_pending, make, not_ready, only_from_events, ref, waiting

_READINESS = re.compile(r"readiness probe failed", re.I)
_EVICT_RESOURCE = re.compile(r"low on resource: ([\w.-]+)")


def _evicted(pod: Resource) -> list[Finding]:
    events = [e for e in pod.events if e.reason == "Evicted"]
    if pod.reason != "Evicted" and pod.status != "Evicted" and not events:
        return []
    message = pod.message or next((e.message for e in events if e.message), "")
    m = _EVICT_RESOURCE.search(message)
    what = f"the node ran low on {m.group(1).rstrip('.')}" if m else "the kubelet evicted it"
    detail = f"Pod {ref(pod)} was evicted: {what}."
    if message:
        detail += f" Kubelet said: {message[:300]}"
    return [make(pod, "Pod.Evicted", detail, pod.evidence[:3] + event_lines(events, 3), "warning")]


def _readiness(pod: Resource) -> list[Finding]:
    events = [e for e in pod.events if e.reason == "Unhealthy" and _READINESS.search(e.message)]
    running = pod.phase == "Running" or pod.status == "Running"
    if events and (running or only_from_events(pod)) and (not_ready(pod) or only_from_events(pod)):
        probe = events[0].message
        detail = f"Pod {ref(pod)} is running but not ready: {probe[:300]}"
        return [make(pod, "Probe.NotReady", detail, pod.evidence[:2] + event_lines(events, 4),
                     "warning")]
    if running and not_ready(pod) and not waiting(pod) and not pod.deleting and not pod.events:
        return [make(pod, "Pod.NotReady",
                     f"Pod {ref(pod)} is Running but not all containers are ready ({pod.ready}).",
                     pod.evidence[:2], "warning")]
    return []


def _mounts(pod: Resource) -> list[Finding]:
    events = [e for e in pod.events if e.is_warning and e.reason in ("FailedMount", "FailedAttachVolume")]
    if not events or pod.phase == "Running" and not only_from_events(pod) and not waiting(pod):
        return []
    return [make(pod, "Pod.FailedMount",
                 f"Pod {ref(pod)} cannot mount a volume: {events[0].message[:300]}",
                 pod.evidence[:1] + event_lines(events, 4), "critical")]


def _sandbox(pod: Resource) -> list[Finding]:
    events = [e for e in pod.events if e.is_warning and e.reason == "FailedCreatePodSandBox"]
    if not events or (pod.phase == "Running" and not only_from_events(pod)):
        return []
    message = max((e.message for e in events), key=len)     # pasted rows are often cut short
    hint = ""
    if "assign an IP address" in message or "ipamd" in message.lower() or "no available IP" in message:
        hint = " The VPC CNI could not give the pod an IP address (subnet or ENI IPs exhausted, or ipamd down)."
    return [make(pod, "Pod.SandboxCreationFailed",
                 f"Pod {ref(pod)} cannot get its sandbox created: {message[:300]}{hint}",
                 pod.evidence[:1] + event_lines(events, 3), "critical")]


_CREATING_EXPLAINED = ("FailedMount", "FailedAttachVolume", "FailedCreatePodSandBox", "Failed", "BackOff")


def _creating(pod: Resource) -> list[Finding]:
    """Stuck in ContainerCreating with nothing in the upload that says why."""
    stuck = pod.status == "ContainerCreating" or (bool(pod.containers) and any(
        c.state == "Waiting" and c.reason == "ContainerCreating" for c in pod.containers.values()))
    # kubectl 0.x: Pending with a HOST, no container detail
    stuck = stuck or (bool(pod.node_name) and known_pending(pod) and not pod.containers and not waiting(pod))
    if not stuck or pod.deleting or any(e.is_warning and e.reason in _CREATING_EXPLAINED for e in pod.events):
        return []
    evidence = pod.evidence[:2] + [line for c in pod.containers.values() if c.reason == "ContainerCreating"
                                   for line in c.evidence]
    return [make(pod, "Pod.ContainerCreating",
                 f"Pod {ref(pod)} is stuck in ContainerCreating: it is on a node but its containers are not "
                 "created, and no event in the upload says why (its events usually name a volume that does "
                 "not mount or a sandbox/network that cannot be set up).", evidence, "warning")]


def _terminating(pod: Resource) -> list[Finding]:
    if not pod.deleting:
        return []
    return [make(pod, "Pod.Terminating",
                 f"Pod {ref(pod)} is being deleted (Terminating); if it stays there, check finalizers "
                 "and whether its node is still reachable.", pod.evidence[:2], "info")]


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for pod in inv.of_kind("Pod"):
        findings += _evicted(pod)
        findings += _readiness(pod)
        findings += _mounts(pod)
        findings += _sandbox(pod)
        findings += _creating(pod)
        findings += _terminating(pod)
    return findings
