"""Karpenter objects: NodeClaim lifecycle, NodePool and EC2NodeClass readiness."""

from __future__ import annotations

import re

from ..models import Finding
from ..resources import Condition, Inventory, Resource
from .common import event_lines, make

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


def _nodeclaim(claim: Resource) -> list[Finding]:
    warnings = [e for e in claim.events if e.is_warning]
    for ctype, code, words in _LIFECYCLE:
        cond = claim.conditions.get(ctype)
        if cond is None or cond.status == "True":
            continue
        detail = f"NodeClaim {claim.name}: {words}. {_cond_text(cond)}"
        if warnings and not cond.message:
            detail += f" Event: {warnings[0].message[:300]}"
        evidence = claim.evidence[:1] + cond.evidence + event_lines(warnings, 4)
        severity = "warning" if cond.status == "Unknown" and not cond.message else "critical"
        return [make(claim, code, detail, evidence, severity)]
    if claim.conditions:
        return []
    if claim.ready and claim.ready != "True":
        where = f"node {claim.node_name}" if claim.node_name else "no node yet"
        detail = f"NodeClaim {claim.name} is not Ready (READY={claim.ready}, {where})."
        if warnings:
            detail += f" Event: {warnings[0].message[:300]}"
        code = "NodeClaim.NotReady"
        if warnings and any(_LAUNCH_WORDS.search(e.message) for e in warnings):
            code = "NodeClaim.NotLaunched"
        return [make(claim, code, detail, claim.evidence[:1] + event_lines(warnings, 4), "warning")]
    if warnings and any(_LAUNCH_WORDS.search(e.message) for e in warnings):
        return [make(claim, "NodeClaim.NotLaunched",
                     f"NodeClaim {claim.name} could not launch an instance: {warnings[0].message[:300]}",
                     event_lines(warnings, 4), "warning")]
    if warnings:
        return [make(claim, "NodeClaim.Warning",
                     f"NodeClaim {claim.name} has warning events: {warnings[0].message[:300]}",
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
            return [make(res, code, f"{res.kind} {res.name} is not Ready (READY={res.ready}).",
                         res.evidence[:1] + event_lines(res.warning_events(), 3), "critical")]
        return []
    reasons = [_cond_text(c) for c in failing]
    if ready is not None and ready.status != "True" and not reasons:
        reasons.append(_cond_text(ready))
    detail = f"{res.kind} {res.name} is not Ready: " + "; ".join(reasons) + "."
    if res.kind == "NodePool":
        detail += " Karpenter will not launch nodes from it until this is fixed."
    evidence = res.evidence[:1]
    for c in failing + ([ready] if ready is not None else []):
        evidence += c.evidence
    return [make(res, code, detail, evidence + event_lines(res.warning_events(), 3), "critical")]


def _drifted(claim: Resource) -> list[Finding]:
    cond = claim.conditions.get("Drifted")
    if cond is None or cond.status != "True":
        return []
    return [make(claim, "NodeClaim.Drifted",
                 f"NodeClaim {claim.name} has drifted from its NodePool/EC2NodeClass "
                 f"({cond.reason or 'drift'}) and will be replaced.", cond.evidence, "info")]


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for claim in inv.of_kind("NodeClaim"):
        findings += _nodeclaim(claim)
        findings += _drifted(claim)
    for res in inv.of_kind("NodePool", "EC2NodeClass"):
        findings += _not_ready(res)
    return findings
