"""Deployments and ReplicaSets that do not reach their desired replicas."""

from __future__ import annotations

from ..models import Finding
from ..resources import Inventory, Resource
from .common import event_lines, make, ref


def _deployment(dep: Resource) -> list[Finding]:
    findings: list[Finding] = []
    progressing = dep.conditions.get("Progressing")
    if progressing is not None and progressing.status == "False":
        findings.append(make(
            dep, "Deployment.ProgressDeadlineExceeded",
            f"Deployment {ref(dep)} stopped progressing ({progressing.reason}): {progressing.message}".strip(),
            dep.evidence[:1] + progressing.evidence, "critical"))
    failure = dep.conditions.get("ReplicaFailure")
    if failure is not None and failure.status == "True":
        findings.append(make(
            dep, "Deployment.ReplicaFailure",
            f"Deployment {ref(dep)} cannot create pods ({failure.reason}): {failure.message}".strip(),
            dep.evidence[:1] + failure.evidence, "critical"))
    want = dep.fields.get("replicas")
    have = dep.fields.get("available_replicas")
    if isinstance(want, int) and isinstance(have, int) and have < want and not findings:
        findings.append(make(
            dep, "Deployment.Unavailable",
            f"Deployment {ref(dep)} has {have} of {want} replicas available.",
            dep.evidence[:2], "warning"))
    return findings


def _replicaset(rs: Resource) -> list[Finding]:
    failed = [e for e in rs.events if e.reason == "FailedCreate"]
    if not failed:
        return []
    return [make(rs, "ReplicaSet.FailedCreate",
                 f"ReplicaSet {ref(rs)} cannot create pods: {failed[-1].message[:400]}",
                 rs.evidence[:1] + event_lines(failed, 3), "critical")]


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for dep in inv.of_kind("Deployment"):
        findings += _deployment(dep)
    for rs in inv.of_kind("ReplicaSet"):
        findings += _replicaset(rs)
    return findings
