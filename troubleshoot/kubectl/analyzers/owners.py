"""One finding for the pods of one owner that share a problem.

Replicas of a Deployment usually fail for the same reason, and often only one
of them carries the event that says why (the scheduler reports a reason once
per pod, and uploads are cut). So:

* pods of one owner (ReplicaSet/Deployment, StatefulSet, DaemonSet, Job,
  ReplicationController; Karpenter NodeClaims of one NodePool) with the same
  problem become one finding: "3 of 3 pods of deployment api ...";
* a sibling whose own finding says only *that* it is stuck (Pending with no
  scheduling event, CrashLoopBackOff with no termination detail, ...) takes
  the explanation a sibling's event gives, and is listed as inferred.

The owner comes from ``Controlled By`` / ``ownerReferences`` when the upload
shows it, else from the name the controller gave the pod.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..models import Finding, severity_rank
from ..resources import Inventory, Resource

# problem codes that only say a pod is stuck, and the codes that explain it
_WEAK = {
    "Pod.Pending": ("FailedScheduling.", "Karpenter."),
    "CrashLoopBackOff": ("CrashLoopBackOff.",),
    "ImagePull.Other": ("ImagePull.",),
    "CreateContainerConfigError.Other": ("CreateContainerConfigError.",),
    "Pod.ContainerCreating": ("Pod.SandboxCreationFailed", "Pod.FailedMount"),
    "NodeClaim.NotReady": ("NodeClaim.",),
}
_SUFFIXED = re.compile(r"^(?P<base>[a-z0-9][a-z0-9.-]*?)-(?P<pod>[a-z0-9]{5})$")
_OWNER_WORDS = {"Deployment": "deployment", "StatefulSet": "statefulset", "DaemonSet": "daemonset",
                "Job": "job", "ReplicationController": "replicationcontroller", "ReplicaSet": "replicaset",
                "NodePool": "NodePool", "": "owner"}


class Owner(NamedTuple):
    kind: str       # Deployment, StatefulSet, ...; "" when only the shared name prefix is known
    namespace: str
    name: str


def owner_of(res: Resource) -> Owner | None:
    if res.anonymous:
        return None
    if res.kind == "NodeClaim":
        pool = res.fields.get("nodepool") or res.labels.get("karpenter.sh/nodepool", "")
        if not pool:
            m = _SUFFIXED.match(res.name)
            pool = m.group("base") if m else ""
        return Owner("NodePool", "", pool) if pool else None
    if res.kind != "Pod":
        return None
    known = res.fields.get("owner")
    if known:
        kind, name = known
        if kind == "ReplicaSet":
            m = re.match(r"^(?P<base>.+)-[a-z0-9]{6,10}$", name)
            return Owner("Deployment", res.ns, m.group("base")) if m else Owner("ReplicaSet", res.ns, name)
        return Owner(kind, res.ns, name)
    # string operations rather than a regex: this runs for every pod of a 10 MB session
    base, _, last = res.name.rpartition("-")
    if not base or not last.isalnum() or not last.islower() and not last.isdigit():
        return None
    namespace = res.namespace or ""
    if last.isdigit() and len(last) <= 4:
        return Owner("StatefulSet", namespace, base)
    if len(last) != 5:
        return None
    head, _, template_hash = base.rpartition("-")
    if head and 6 <= len(template_hash) <= 10 and template_hash.isalnum() and template_hash == template_hash.lower():
        return Owner("Deployment", namespace, head)
    return Owner("", namespace, base)


def _family_match(weak: str, code: str) -> bool:
    return any(code.startswith(prefix) or code == prefix for prefix in _WEAK[weak])


def group(inv: Inventory, findings: list[Finding]) -> list[Finding]:
    by_object: dict[tuple[str, str, str], list[Finding]] = {}
    for f in findings:
        if f.kind in ("Pod", "NodeClaim") and f.name:
            by_object.setdefault((f.kind, f.namespace, f.name), []).append(f)
    # Owners with at least two members that have a finding; only their members are counted
    # (a session with thousands of healthy pods pays for the pods with findings only).
    with_findings: dict[Owner, int] = {}
    for kind, ns, name in by_object:
        res = inv.get(kind, ns, name)
        owner = owner_of(res) if res is not None else None
        if owner is not None:
            with_findings[owner] = with_findings.get(owner, 0) + 1
    wanted = {o for o, n in with_findings.items() if n >= 2}
    if not wanted:
        return findings
    prefixes = tuple({o.name + "-" for o in wanted})
    members: dict[Owner, list[Resource]] = {}
    for res in inv.of_kind("Pod", "NodeClaim"):
        if not res.name.startswith(prefixes) and res.kind == "Pod" and not res.fields.get("owner"):
            continue
        owner = owner_of(res)
        if owner in wanted:
            members.setdefault(owner, []).append(res)
    replaced: set[int] = set()
    grouped: list[Finding] = []
    for owner, pods in members.items():
        if len(pods) < 2:
            continue
        own = {p.name: by_object.get((p.kind, p.namespace or "", p.name), []) for p in pods}
        # what siblings explain, most common first
        explained: dict[str, int] = {}
        for fs in own.values():
            for f in fs:
                if f.problem not in _WEAK:
                    explained[f.problem] = explained.get(f.problem, 0) + 1
        ranked = sorted(explained, key=lambda c: -explained[c])
        best_for = {weak: [c for c in ranked if _family_match(weak, c)] for weak in _WEAK} if ranked else {}
        per_problem: dict[str, list[tuple[str, Finding, bool]]] = {}
        for name, fs in own.items():
            for f in fs:
                code, inferred = f.problem, False
                if code in _WEAK:
                    better = best_for.get(code)
                    if better:
                        if any(_family_match(code, g.problem) for g in fs if g is not f):
                            replaced.add(id(f))    # its own stronger finding says more
                            continue
                        code, inferred = better[0], True
                per_problem.setdefault(code, []).append((name, f, inferred))
        for code, rows in per_problem.items():
            if len(rows) < 2:
                continue
            grouped.append(_merge(owner, code, rows, len(pods), pods[0].kind))
            replaced.update(id(f) for _, f, _ in rows)
    return [f for f in findings if id(f) not in replaced] + grouped


def _owner_text(owner: Owner, kind: str) -> str:
    noun = "NodeClaims" if kind == "NodeClaim" else "pods"
    if not owner.kind:
        return f"{noun} named {owner.name}-*"
    return f"{noun} of {_OWNER_WORDS.get(owner.kind, owner.kind.lower())} {owner.name}"


def _explaining(rows: list[tuple[str, Finding, bool]]) -> Finding:
    own = [f for _, f, inferred in rows if not inferred]
    return max(own or [f for _, f, _ in rows], key=lambda f: (len(f.evidence), len(f.detail)))


def _merge(owner: Owner, code: str, rows: list[tuple[str, Finding, bool]], total: int, kind: str) -> Finding:
    lead = _explaining(rows)
    names = sorted({name for name, _, _ in rows})
    inferred = sorted({name for name, _, inf in rows if inf})
    detail = f"{len(names)} of {total} {_owner_text(owner, kind)}: {lead.detail}"
    if inferred:
        detail += (f" {', '.join(inferred)} show no event of their own; the explanation is inferred from "
                   f"{'a sibling' if len(names) - len(inferred) == 1 else 'their siblings'}.")
    severity = min((f.severity for _, f, _ in rows), key=severity_rank)
    merged = Finding(kind=owner.kind or kind, namespace=owner.namespace, name=owner.name, problem=code,
                     detail=detail, severity=severity, members=names, inferred=inferred)
    merged.add_evidence(lead.evidence)
    for _, f, _ in rows:
        merged.add_evidence(f.evidence[:1])
    return merged
