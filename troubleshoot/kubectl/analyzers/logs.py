"""Logs: ``kubectl logs`` output, controller logs (klog, JSON, logfmt) and kubelet journal lines."""

from __future__ import annotations

from ..models import Finding
from ..resources import Inventory, Resource
from .common import make, ref
from .events import template

MAX_LOG_FINDINGS = 50


def _exec_format(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for namespace, pod_name, text in inv.log_texts:
        if not pod_name or "exec format error" not in text:
            continue
        line = next(l for l in text.split("\n") if "exec format error" in l)
        pod = inv.get("Pod", namespace, pod_name) or Resource("Pod", namespace, pod_name)
        findings.append(make(
            pod, "ImagePull.WrongArchitecture",
            f"Pod {ref(pod)} logs 'exec format error': the image was built for another CPU "
            "architecture than the node's (e.g. arm64 image on amd64 nodes).",
            [line], "critical"))
    return findings


def _errors(inv: Inventory) -> list[Finding]:
    """One finding per component and distinct error message (numbers and names masked).

    Error lines that name an object were already read as that object's events.
    """
    groups: dict[tuple[str, str], list] = {}   # type: ignore[type-arg]
    for record in inv.log_records:
        if not record.is_error or record.refs:
            continue
        groups.setdefault((record.component, template(record.message)), []).append(record)
    findings: list[Finding] = []
    for (component, _), records in list(groups.items())[:MAX_LOG_FINDINGS]:
        first = records[0]
        fatal = any(r.level == "fatal" for r in records)
        times = f"{len(records)} times" if len(records) > 1 else "once"
        where = "a log" if component == "log" else f"the {component} log"
        detail = f"{'Fatal error' if fatal else 'Error'} in {where} ({times}): {first.message[:400]}"
        source = Resource(kind="Log", namespace="", name=component)
        finding = make(source, "Log.Error", detail, [r.line for r in records[:3]],
                       "critical" if fatal else "warning")
        finding.subject = template(first.message)
        findings.append(finding)
    return findings


def analyze(inv: Inventory) -> list[Finding]:
    return _exec_format(inv) + _errors(inv)
