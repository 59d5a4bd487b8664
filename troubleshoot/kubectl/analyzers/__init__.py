"""Rule units.  Each module exposes ``analyze(inventory) -> list[Finding]``."""

from __future__ import annotations

from collections.abc import Callable

from ..models import Finding
from ..resources import Inventory
from . import containers, karpenter, logs, nodes, pods, scheduling, storage, taints, workloads

Analyzer = Callable[[Inventory], list[Finding]]

ANALYZERS: tuple[tuple[str, Analyzer], ...] = (
    ("scheduling", scheduling.analyze),
    ("containers", containers.analyze),
    ("pods", pods.analyze),
    ("nodes", nodes.analyze),
    ("taints", taints.analyze),
    ("karpenter", karpenter.analyze),
    ("storage", storage.analyze),
    ("workloads", workloads.analyze),
    ("logs", logs.analyze),
)

__all__ = ["ANALYZERS", "Analyzer"]
