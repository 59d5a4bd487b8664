"""Compare the versions a user runs with an article's version ranges.

Each ``versions:`` entry of an article (``component``, ``affected``,
``fixed_in``, ``note``) gets a status for the version of that component:

* ``affected``: every version the reading allows is in the affected range
  (or, without a range, before ``fixed_in``);
* ``fixed``: the reading is at or past ``fixed_in``;
* ``unaffected``: the reading lies wholly outside the affected range;
* ``unknown``: the range cannot be read, or the reading straddles it
  (``karpenter.sh/v1beta1`` spans releases on both sides).

The ranking uses the result as a small prior: ``affected`` raises an article
by ``AFFECTED_PRIOR``, ``fixed`` lowers it by ``FIXED_PRIOR`` of the 0..1
score. Both are smaller than the gap between a strong and a weak signature
match, so a version never overturns the evidence in the paste.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .numbers import Bound, Span, parse_version
from .ranges import parse_range, reading_span

AFFECTED_PRIOR = 0.02
FIXED_PRIOR = -0.03

STATUSES = ("affected", "fixed", "unaffected", "unknown")

# An entry about one of these may be judged with the version of the other.
_SAME_VERSION = {"kubelet": "Kubernetes", "Kubernetes": "kubelet"}


@dataclass(frozen=True)
class Entry:
    component: str
    affected: str = ""
    fixed_in: str = ""
    note: str = ""


def status(reading: str, affected: str, fixed_in: str) -> str:
    span = reading_span(reading)
    if span is None:
        return "unknown"
    fixed = parse_version(fixed_in) if fixed_in.strip() else None
    if fixed is not None and span.within(Span(Bound(fixed.version, True), None)):
        return "fixed"
    rng = parse_range(affected) if affected.strip() else None
    if affected.strip() and rng is None:
        return "unknown"
    if rng is not None:
        if any(span.within(s) for s in rng.spans):
            return "affected"
        if all(span.disjoint(s) for s in rng.spans):
            return "unaffected"
        return "unknown"
    if fixed is not None and span.within(Span(None, Bound(fixed.version, False))):
        return "affected"
    return "unknown"


def _lookup(versions: Mapping[str, str], name: str) -> tuple[str, str] | None:
    lowered = {k.lower(): (k, v) for k, v in versions.items()}
    for candidate in (name, _SAME_VERSION.get(name, "")):
        if candidate and candidate.lower() in lowered:
            return lowered[candidate.lower()]
    return None


def version_check(entries: Iterable[Entry], versions: Mapping[str, str]) -> list[dict[str, str]]:
    """One row per article entry whose component (or named part) has a known version."""
    rows = []
    for entry in entries:
        rng = parse_range(entry.affected)
        name = rng.product if rng is not None and rng.product else entry.component
        found = _lookup(versions, name)
        if found is None:
            continue
        _, version = found
        rows.append({
            "component": entry.component, "version": version,
            "status": status(version, entry.affected, entry.fixed_in),
            "affected": entry.affected, "fixed_in": entry.fixed_in, "note": entry.note,
        })
    return rows


def version_prior(rows: Iterable[Mapping[str, str]]) -> float:
    statuses = {r["status"] for r in rows}
    if "fixed" in statuses:
        return FIXED_PRIOR
    if "affected" in statuses:
        return AFFECTED_PRIOR
    return 0.0


def describe(row: Mapping[str, str]) -> str:
    """"You run Karpenter 1.1.1: affected, fixed in 1.1.2." for pages and chat."""
    head = f"You run {row['component']} {row['version']}"
    state, affected, fixed = row["status"], row.get("affected") or "", row.get("fixed_in") or ""
    if state == "fixed":
        return f"{head}: fixed in {fixed}."
    if state == "affected":
        return f"{head}: affected, fixed in {fixed}." if fixed else f"{head}: affected ({affected})."
    if state == "unaffected":
        return f"{head}: not affected ({affected})." if affected else f"{head}: not affected."
    return f"{head}: cannot tell from the range ({affected or fixed})."
