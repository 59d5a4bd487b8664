"""Format-independent model of the Kubernetes objects found in the input.

Every parser (tables, describe, YAML/JSON) produces ``Resource`` objects and
``Event`` objects; the ``Inventory`` merges what several views say about the
same object so that analysers see one object with all the facts, and the
findings are naturally de-duplicated.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .taints import Taint, Toleration

# Priority of a source: a richer view wins over a poorer one when both set a
# field.  Tables < events < describe < structured objects.
PRIORITY = {"table": 1, "event": 0, "describe": 2, "structured": 3}

CLUSTER_SCOPED = frozenset(
    {"Node", "NodeClaim", "NodePool", "EC2NodeClass", "PersistentVolume", "StorageClass",
     "Namespace", "Machine", "Provisioner", "AWSNodeTemplate"}
)

KIND_ALIASES = {
    "pod": "Pod", "pods": "Pod", "po": "Pod",
    "node": "Node", "nodes": "Node", "no": "Node",
    "nodeclaim": "NodeClaim", "nodeclaims": "NodeClaim",
    "nodepool": "NodePool", "nodepools": "NodePool",
    "ec2nodeclass": "EC2NodeClass", "ec2nodeclasses": "EC2NodeClass", "ec2nc": "EC2NodeClass",
    "persistentvolumeclaim": "PersistentVolumeClaim", "persistentvolumeclaims": "PersistentVolumeClaim",
    "pvc": "PersistentVolumeClaim",
    "persistentvolume": "PersistentVolume", "pv": "PersistentVolume",
    "deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment",
    "replicaset": "ReplicaSet", "replicasets": "ReplicaSet", "rs": "ReplicaSet",
    "statefulset": "StatefulSet", "sts": "StatefulSet",
    "daemonset": "DaemonSet", "ds": "DaemonSet",
    "job": "Job", "cronjob": "CronJob", "service": "Service", "svc": "Service",
    "event": "Event", "events": "Event", "ev": "Event",
}


# Event reasons that are warnings, for layouts that print no TYPE column
# (kubectl before 1.14, pasted event rows without their header).
_WARNING_REASONS = frozenset({
    "BackOff", "Unhealthy", "Evicted", "Preempted", "OOMKilling", "ProbeWarning", "NetworkNotReady",
    "SystemOOM", "Rebooted", "ContainerGCFailed", "ImageGCFailed", "EvictionThresholdMet",
    "FreeDiskSpaceFailed", "InvalidDiskCapacity", "ExceededGracePeriod", "NodeNotSchedulable",
    "SandboxChanged", "DisruptionBlocked", "InsufficientCapacityError", "TerminationGracePeriodExpiring",
})
_WARNING_PREFIXES = ("Failed", "Err", "Invalid", "Insufficient", "Unable", "Error", "Missing")


def normal_reason(reason: str) -> str:
    """``failedScheduling`` (kubectl 0.x/1.0) reads as ``FailedScheduling``."""
    reason = reason.strip()
    if reason[:1].islower() and reason.isalnum():
        return reason[0].upper() + reason[1:]
    return reason


def event_type_for(reason: str) -> str:
    """Warning or Normal, judged from the reason alone."""
    reason = normal_reason(reason)
    if reason in _WARNING_REASONS or reason.startswith(_WARNING_PREFIXES):
        return "Warning"
    return "Normal"


def canonical_kind(kind: str) -> str:
    """Map ``pod``/``pods``/``nodeclaim.karpenter.sh`` to the API kind name."""
    base = kind.strip().split(".", 1)[0]
    return KIND_ALIASES.get(base.lower(), base[:1].upper() + base[1:] if base else base)


@dataclass
class Condition:
    type: str
    status: str
    reason: str = ""
    message: str = ""
    evidence: list[str] = field(default_factory=list)


@dataclass
class Container:
    name: str
    init: bool = False
    image: str = ""
    state: str = ""          # Running / Waiting / Terminated
    reason: str = ""
    message: str = ""
    exit_code: int | None = None
    last_state: str = ""
    last_reason: str = ""
    last_message: str = ""
    last_exit_code: int | None = None
    ready: bool | None = None
    restart_count: int | None = None
    evidence: list[str] = field(default_factory=list)

    def merge(self, other: Container, override: bool) -> None:
        for name in ("image", "state", "reason", "message", "last_state", "last_reason",
                     "last_message"):
            new = getattr(other, name)
            if new and (override or not getattr(self, name)):
                setattr(self, name, new)
        for name in ("exit_code", "last_exit_code", "ready", "restart_count"):
            new = getattr(other, name)
            if new is not None and (override or getattr(self, name) is None):
                setattr(self, name, new)
        self.init = self.init or other.init
        _extend_unique(self.evidence, other.evidence)


@dataclass
class Event:
    type: str
    reason: str
    message: str
    kind: str = ""
    namespace: str | None = None
    name: str = ""
    source: str = ""
    age: str = ""
    count: int = 1
    evidence: list[str] = field(default_factory=list)

    @property
    def is_warning(self) -> bool:
        return self.type.lower() == "warning"


@dataclass
class Resource:
    kind: str
    namespace: str | None
    name: str
    priority: int = 0
    status: str = ""         # the word a table prints (STATUS column) or a phase
    phase: str = ""
    reason: str = ""
    message: str = ""
    node_name: str = ""
    ready: str = ""          # "1/2" for pods, "True"/"False" for CRD tables
    restarts: int | None = None
    deleting: bool = False
    conditions: dict[str, Condition] = field(default_factory=dict)
    containers: dict[str, Container] = field(default_factory=dict)
    taints: list[Taint] | None = None
    tolerations: list[Toleration] | None = None
    node_selector: dict[str, str] | None = None
    labels: dict[str, str] = field(default_factory=dict)
    claims: list[str] = field(default_factory=list)       # PVC names a pod mounts
    fields: dict[str, Any] = field(default_factory=dict)  # kind-specific extras
    events: list[Event] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    sources: set[str] = field(default_factory=set)
    # True for an object the upload shows only in part (a describe fragment or
    # event rows without their ``Name:``): ``name`` is then a placeholder.
    anonymous: bool = False

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.kind, self.namespace, self.name)

    @property
    def ns(self) -> str:
        return self.namespace or ""

    def condition(self, ctype: str) -> Condition | None:
        return self.conditions.get(ctype)

    def warning_events(self, *reasons: str) -> list[Event]:
        wanted = set(reasons)
        return [e for e in self.events if e.is_warning and (not wanted or e.reason in wanted)]

    def events_with(self, *reasons: str) -> list[Event]:
        wanted = set(reasons)
        return [e for e in self.events if e.reason in wanted]

    def add_event(self, event: Event) -> None:
        for existing in self.events:
            if existing.reason == event.reason and existing.message == event.message:
                _extend_unique(existing.evidence, event.evidence)
                existing.count = max(existing.count, event.count)
                return
        self.events.append(event)

    def merge(self, other: Resource) -> None:
        override = other.priority >= self.priority
        # A table's STATUS word that names a container's trouble (CrashLoopBackOff) says more than a
        # describe's phase (Running) when the describe shows no container state (it was cut short).
        keep_status = (self.status not in ("", "Running", "Pending") and other.status in ("Running", "Pending")
                       and not any(c.state for c in other.containers.values()))
        for name in ("status", "phase", "reason", "message", "node_name", "ready"):
            new = getattr(other, name)
            if name == "status" and keep_status:
                continue
            if new and (override or not getattr(self, name)):
                setattr(self, name, new)
        if (other.status not in ("", "Running", "Pending") and self.status in ("Running", "Pending")
                and not any(c.state for c in self.containers.values())):
            self.status = other.status
        if other.restarts is not None and (override or self.restarts is None):
            self.restarts = other.restarts
        self.deleting = self.deleting or other.deleting
        for ctype, cond in other.conditions.items():
            if override or ctype not in self.conditions:
                self.conditions[ctype] = cond
        for cname, cont in other.containers.items():
            if cname in self.containers:
                self.containers[cname].merge(cont, override)
            else:
                self.containers[cname] = cont
        for name in ("taints", "tolerations", "node_selector"):
            new = getattr(other, name)
            if new is not None and (override or getattr(self, name) is None):
                setattr(self, name, new)
        for k, v in other.labels.items():
            self.labels.setdefault(k, v)
        _extend_unique(self.claims, other.claims)
        for k, v in other.fields.items():
            if v not in (None, "") and (override or k not in self.fields):
                self.fields[k] = v
        for event in other.events:
            self.add_event(event)
        _extend_unique(self.evidence, other.evidence)
        self.sources |= other.sources
        self.priority = max(self.priority, other.priority)


def _extend_unique(target: list[Any], items: list[Any], limit: int = 50) -> None:
    if not items:
        return
    seen = set(target)
    for item in items:
        if len(target) >= limit:
            return
        if item not in seen:
            target.append(item)
            seen.add(item)


class Inventory:
    """All objects and events read from the input, merged by identity."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str | None, str], Resource] = {}
        self.orphan_events: list[Event] = []
        self.log_texts: list[tuple[str, str, str]] = []   # (namespace, pod, text)
        self.log_records: list[Any] = []                  # textscan.LogRecord

    # -- adding -------------------------------------------------------------
    def add(self, res: Resource) -> Resource:
        if res.kind in CLUSTER_SCOPED or res.anonymous:
            res.namespace = ""
        existing = self._items.get(res.key)
        if existing is None:
            self._items[res.key] = res
            return res
        existing.merge(res)
        return existing

    def add_event(self, event: Event) -> None:
        if not event.kind or not event.name:
            self.orphan_events.append(event)
            return
        kind = canonical_kind(event.kind)
        stub = Resource(kind=kind, namespace=event.namespace, name=event.name,
                        priority=PRIORITY["event"], sources={"event"})
        stub.events.append(event)
        self.add(stub)

    # -- finishing ----------------------------------------------------------
    def resolve_namespaces(self) -> None:
        """Give objects read without a namespace (``kubectl get pods`` without
        ``-A``) the namespace of a same-named object, else ``default``."""
        unknown = [key for key in self._items if key[1] is None]
        if not unknown:
            return
        by_name: dict[tuple[str, str], list[tuple[str, str | None, str]]] = {}
        for key in self._items:
            if key[1] is not None:
                by_name.setdefault((key[0], key[2]), []).append(key)
        for key in unknown:
            res = self._items.pop(key)
            candidates = by_name.get((key[0], key[2]), [])
            if len(candidates) == 1:
                self._items[candidates[0]].merge(res)
                continue
            res.namespace = "default"
            self.add(res)

    # -- reading ------------------------------------------------------------
    def __iter__(self) -> Iterator[Resource]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)

    def of_kind(self, *kinds: str) -> list[Resource]:
        wanted = set(kinds)
        return [r for r in self._items.values() if r.kind in wanted]

    def get(self, kind: str, namespace: str | None, name: str) -> Resource | None:
        if kind in CLUSTER_SCOPED:
            namespace = ""
        return self._items.get((kind, namespace, name))

    def counts(self) -> dict[str, int]:
        result: dict[str, int] = {}
        for res in self._items.values():
            if res.sources == {"event"}:
                continue
            result[res.kind] = result.get(res.kind, 0) + 1
        return dict(sorted(result.items()))
