"""Karpenter objects: NodeClaim lifecycle, NodePool and EC2NodeClass readiness.

Covers the ``karpenter.sh/v1`` and ``v1beta1`` NodeClaim conditions (Launched,
Registered, Initialized, Ready, Drifted, ConsolidationBlocked and the DisruptionBlocked events),
the ``UnregisteredTaintNotFound`` reason Karpenter v1 sets on Registered when a
node joins without the ``karpenter.sh/unregistered`` taint, v1alpha5 Machines
(``MachineLaunched`` ...), NodePool / EC2NodeClass conditions and NodePool
limits (``spec.limits`` against ``status.resources``).
"""

from __future__ import annotations

import re

from ..models import Finding
from ..resources import Condition, Inventory, Resource
from .common import event_lines, make, ref

_LAUNCH_WORDS = re.compile(r"insufficient capacity|InsufficientInstanceCapacity|creating instance|"
                           r"launch(?:ing)? (?:instance|nodeclaim)|UnauthorizedOperation", re.I)

_LIFECYCLE = (
    ("Launched", "NodeClaim.NotLaunched", "no EC2 instance was launched for it"),
    ("Registered", "NodeClaim.NotRegistered", "its instance launched but the node never joined the cluster"),
    ("Initialized", "NodeClaim.NotInitialized", "its node joined but is not initialized"),
    ("Ready", "NodeClaim.NotReady", "it is not Ready"),
)


def _cond_text(cond: Condition) -> str:
    text = f"{cond.type}={cond.status or 'Unknown'}"
    if cond.reason:
        text += f" ({cond.reason})"
    if cond.message:
        text += f": {cond.message}"
    return text


def _condition(claim: Resource, ctype: str) -> Condition | None:
    return claim.conditions.get(ctype) or claim.conditions.get(f"Machine{ctype}")   # v1alpha5 Machine


def _nodeclaim(claim: Resource) -> list[Finding]:
    warnings = [e for e in claim.events if e.is_warning and e.reason not in _DISRUPTION_REASONS]
    registered = _condition(claim, "Registered")
    if registered is not None and registered.reason == "UnregisteredTaintNotFound":
        detail = (f"NodeClaim {ref(claim)}: its node joined the cluster without the karpenter.sh/unregistered "
                  "taint, so Karpenter never marks it registered and replaces it. The kubelet must register with "
                  f"that taint (custom AMI or userData). {_cond_text(registered)}")
        return [make(claim, "NodeClaim.UnregisteredTaintNotFound", detail,
                     claim.evidence[:1] + registered.evidence + event_lines(warnings, 3), "critical")]
    for ctype, code, words in _LIFECYCLE:
        cond = _condition(claim, ctype)
        if cond is None or cond.status == "True":
            continue
        detail = f"NodeClaim {ref(claim)}: {words}. {_cond_text(cond)}"
        if warnings and not cond.message:
            detail += f" Event: {warnings[0].message[:300]}"
        evidence = claim.evidence[:1] + cond.evidence + event_lines(warnings, 4)
        severity = "warning" if cond.status == "Unknown" and not cond.message else "critical"
        return [make(claim, code, detail, evidence, severity)]
    if claim.conditions:
        return []
    if claim.ready and claim.ready != "True":
        where = f"node {claim.node_name}" if claim.node_name else "no node yet"
        detail = f"NodeClaim {ref(claim)} is not Ready (READY={claim.ready}, {where})."
        if warnings:
            detail += f" Event: {warnings[0].message[:300]}"
        code = "NodeClaim.NotReady"
        if warnings and any(_LAUNCH_WORDS.search(e.message) for e in warnings):
            code = "NodeClaim.NotLaunched"
        return [make(claim, code, detail, claim.evidence[:1] + event_lines(warnings, 4), "warning")]
    if warnings and any(_LAUNCH_WORDS.search(e.message) for e in warnings):
        return [make(claim, "NodeClaim.NotLaunched",
                     f"NodeClaim {ref(claim)} could not launch an instance: {warnings[0].message[:300]}",
                     event_lines(warnings, 4), "warning")]
    if warnings:
        return [make(claim, "NodeClaim.Warning",
                     f"NodeClaim {ref(claim)} has warning events: {warnings[0].message[:300]}",
                     event_lines(warnings, 4), "warning")]
    return []


def _not_ready(res: Resource) -> list[Finding]:
    code = f"{res.kind}.NotReady"
    ready = res.conditions.get("Ready")
    failing = [c for c in res.conditions.values() if c.type != "Ready" and c.status == "False"
               and c.type not in ("Drifted",)]
    if ready is not None and ready.status == "True" and not failing:
        return []
    if ready is None and not failing:
        if res.ready and res.ready not in ("True", ""):
            return [make(res, code, f"{res.kind} {ref(res)} is not Ready (READY={res.ready}).",
                         res.evidence[:1] + event_lines(res.warning_events(), 3), "critical")]
        return []
    reasons = [_cond_text(c) for c in failing]
    if ready is not None and ready.status != "True" and not reasons:
        reasons.append(_cond_text(ready))
    detail = f"{res.kind} {ref(res)} is not Ready: " + "; ".join(reasons) + "."
    if res.kind == "NodePool":
        detail += " Karpenter will not launch nodes from it until this is fixed."
    evidence = res.evidence[:1]
    for c in failing + ([ready] if ready is not None else []):
        evidence += c.evidence
    return [make(res, code, detail, evidence + event_lines(res.warning_events(), 3), "critical")]


def _drifted(claim: Resource) -> list[Finding]:
    cond = _condition(claim, "Drifted")
    if cond is None or cond.status != "True":
        return []
    return [make(claim, "NodeClaim.Drifted",
                 f"NodeClaim {ref(claim)} has drifted from its NodePool/EC2NodeClass "
                 f"({cond.reason or 'drift'}) and will be replaced.", cond.evidence, "info")]


_DISRUPTION_REASONS = ("DisruptionBlocked", "Unconsolidatable")


def _consolidation_blocked(res: Resource) -> list[Finding]:
    """Karpenter may not consolidate or disrupt the node: a ConsolidationBlocked condition, or its
    DisruptionBlocked / Unconsolidatable events (a PDB, karpenter.sh/do-not-disrupt, ...)."""
    cond = res.conditions.get("ConsolidationBlocked")
    events = [e for e in res.events if e.reason in _DISRUPTION_REASONS]
    if (cond is None or cond.status != "True") and not events:
        return []
    why = (cond.message or cond.reason) if cond is not None and cond.status == "True" else ""
    why = why or (events[0].message if events else "")
    detail = f"{res.kind} {ref(res)}: Karpenter may not consolidate or disrupt it" + (f": {why[:300]}" if why else ".")
    evidence = (cond.evidence if cond is not None and cond.status == "True" else []) + event_lines(events, 3)
    return [make(res, "Karpenter.ConsolidationBlocked", detail, evidence, "info")]


_QUANTITY = re.compile(r"^(?P<n>\d+(?:\.\d+)?)(?P<unit>[munkMGTPE]i?|e\d+)?$")
_UNITS = {"": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
          "E": 1e18, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}


def quantity(text: str) -> float | None:
    """A Kubernetes resource quantity (``1000m``, ``64Gi``, ``16``) as a number."""
    m = _QUANTITY.match(str(text).strip())
    if not m:
        return None
    unit = m.group("unit") or ""
    if unit.startswith("e"):
        return float(m.group("n")) * 10 ** int(unit[1:])
    return float(m.group("n")) * _UNITS[unit]


def _limits(pool: Resource) -> list[Finding]:
    limits = pool.fields.get("limits") or {}
    used = pool.fields.get("resources") or {}
    reached = []
    for name, limit in limits.items():
        cap, have = quantity(limit), quantity(used.get(name, ""))
        if cap is not None and have is not None and have >= cap:
            reached.append(f"{name} {used[name]} of {limit}")
    if not reached:
        return []
    detail = (f"NodePool {ref(pool)} reached its limits ({', '.join(reached)}): Karpenter launches no more nodes "
              "from it until usage drops or spec.limits is raised.")
    return [make(pool, "NodePool.LimitReached", detail, pool.evidence[:1], "warning")]


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for claim in inv.of_kind("NodeClaim", "Machine"):
        findings += _nodeclaim(claim)
        findings += _drifted(claim)
        findings += _consolidation_blocked(claim)
    for node in inv.of_kind("Node"):
        findings += _consolidation_blocked(node)
    for res in inv.of_kind("NodePool", "EC2NodeClass"):
        findings += _not_ready(res)
    for pool in inv.of_kind("NodePool"):
        findings += _limits(pool)
    return findings
