"""Container logs captured with ``kubectl logs``."""

from __future__ import annotations

from ..models import Finding
from ..resources import Inventory, Resource
from .common import make, ref


def analyze(inv: Inventory) -> list[Finding]:
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
