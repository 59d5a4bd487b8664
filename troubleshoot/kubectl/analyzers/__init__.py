"""Rule units.  Each module exposes ``analyze(inventory) -> list[Finding]``."""

from __future__ import annotations

from collections.abc import Callable

from ..models import Finding
from ..resources import Inventory
from . import containers, events, karpenter, logs, nodes, owners, pods, scheduling, storage, taints, workloads

Analyzer = Callable[[Inventory], list[Finding]]
PostPass = Callable[[Inventory, list[Finding]], list[Finding]]

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

# Run in order over all findings once every analyser is done.
POST_PASSES: tuple[tuple[str, PostPass], ...] = (
    ("unexplained warning events", events.unexplained),
    ("pods of one owner", owners.group),
)

__all__ = ["ANALYZERS", "POST_PASSES", "Analyzer", "PostPass"]
