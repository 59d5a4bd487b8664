"""Helpers shared by the analysers."""

from __future__ import annotations

from collections.abc import Iterable

from ..models import Finding
from ..resources import Container, Event, Resource

# Pod STATUS words that are really the reason of a waiting container.
CONTAINER_REASONS = frozenset({
    "CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "InvalidImageName",
    "ErrImageNeverPull", "CreateContainerConfigError", "CreateContainerError",
    "RunContainerError", "ContainerCreating", "PodInitializing", "OOMKilled", "Error",
    "ContainerStatusUnknown", "StartError",
})


NOT_IN_UPLOAD = "(object not in the upload)"


def make(res: Resource, problem: str, detail: str, evidence: Iterable[str],
         severity: str) -> Finding:
    f = Finding(kind=res.kind, namespace=res.ns, name="" if res.anonymous else res.name, problem=problem,
                detail=detail, severity=severity, subject=res.name if res.anonymous else "")
    f.add_evidence([e for e in evidence if e])
    return f


def ref(res: Resource) -> str:
    if res.anonymous:
        return NOT_IN_UPLOAD
    return f"{res.namespace}/{res.name}" if res.namespace else res.name


def event_lines(events: Iterable[Event], limit: int = 6) -> list[str]:
    out: list[str] = []
    for e in events:
        for line in e.evidence:
            if line not in out:
                out.append(line)
        if len(out) >= limit:
            break
    return out[:limit]


def is_scheduled(pod: Resource) -> bool:
    """True when the pod is known to have been bound to a node."""
    if pod.node_name or pod.fields.get("scheduled"):
        return True
    cond = pod.conditions.get("PodScheduled")
    if cond is not None:
        return cond.status == "True"
    if pod.phase in ("Running", "Succeeded", "Failed"):
        return True
    return bool(pod.containers) and any(c.state for c in pod.containers.values())


def known_pending(pod: Resource) -> bool:
    return pod.phase == "Pending" or pod.status == "Pending"


def only_from_events(res: Resource) -> bool:
    return res.sources == {"event"}


def waiting(pod: Resource) -> list[tuple[Container | None, str]]:
    """(container, reason) for containers stuck waiting.

    Falls back to the table's STATUS word when no container detail is known.
    """
    found = [(c, c.reason) for c in pod.containers.values() if c.state == "Waiting" and c.reason]
    if found:
        return found
    word = pod.status
    if word.startswith("Init:"):
        word = word[5:]
    if word in CONTAINER_REASONS:
        return [(None, word)]
    return []


def fully_ready(pod: Resource) -> bool:
    if "/" in pod.ready:
        have, _, want = pod.ready.partition("/")
        return have == want and have != "0"
    cond = pod.conditions.get("Ready")
    return cond is not None and cond.status == "True"


def not_ready(pod: Resource) -> bool:
    if "/" in pod.ready:
        have, _, want = pod.ready.partition("/")
        return have != want
    cond = pod.conditions.get("Ready")
    if cond is not None:
        return cond.status != "True"
    return any(c.ready is False for c in pod.containers.values() if not c.init)


def container_label(c: Container | None) -> str:
    if c is None or not c.name:
        return "a container"
    return f"{'init container' if c.init else 'container'} {c.name}"
