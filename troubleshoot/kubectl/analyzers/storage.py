"""PersistentVolumeClaims that are not bound."""

from __future__ import annotations

from ..models import Finding
from ..resources import Inventory, Resource
from .common import event_lines, make, ref


def _pending(pvc: Resource) -> list[Finding]:
    failed = [e for e in pvc.events if e.reason in ("ProvisioningFailed", "FailedBinding")]
    external = [e for e in pvc.events if e.reason in ("ExternalProvisioning", "Provisioning")]
    wffc = [e for e in pvc.events if e.reason == "WaitForFirstConsumer"]
    sc = pvc.fields.get("storage_class")
    base = pvc.evidence[:3]
    if failed:
        msg = failed[-1].message
        detail = f"PVC {ref(pvc)} is Pending: volume provisioning failed: {msg[:400]}"
        if not sc and "storage class" in msg.lower():
            detail += " (no StorageClass is set on the claim and there is no default StorageClass)"
        return [make(pvc, "PVC.Pending", detail, base + event_lines(failed, 4), "critical")]
    if external:
        prov = pvc.fields.get("provisioner", "")
        detail = (f"PVC {ref(pvc)} is Pending, waiting for the external provisioner"
                  f"{f' {prov}' if prov else ''} to create the volume: {external[-1].message[:300]}")
        return [make(pvc, "PVC.Pending", detail, base + event_lines(external, 3), "warning")]
    if wffc:
        detail = (f"PVC {ref(pvc)} is Pending because its StorageClass uses WaitForFirstConsumer: "
                  "it binds once a pod using it is scheduled (normal unless that pod is stuck).")
        return [make(pvc, "PVC.Pending", detail, base + event_lines(wffc, 2), "info")]
    if "storage_class" in pvc.fields and not sc:
        detail = (f"PVC {ref(pvc)} is Pending and has no StorageClass: it needs a matching "
                  "pre-created PersistentVolume or a default StorageClass.")
        return [make(pvc, "PVC.Pending", detail, base, "critical")]
    detail = f"PVC {ref(pvc)} is Pending (no provisioning events in the input)."
    return [make(pvc, "PVC.Pending", detail, base, "warning")]


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for pvc in inv.of_kind("PersistentVolumeClaim"):
        phase = pvc.phase or pvc.status
        if phase == "Pending" or (not phase and any(e.reason == "ProvisioningFailed" for e in pvc.events)):
            findings += _pending(pvc)
        elif phase == "Lost":
            findings.append(make(pvc, "PVC.Lost",
                                 f"PVC {ref(pvc)} is Lost: its PersistentVolume no longer exists.",
                                 pvc.evidence[:2], "critical"))
    return findings
