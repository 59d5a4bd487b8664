"""Scores, confidence and ordering of the matched articles.

Per symptom (signature) hit::

    strength  = phrase coverage            (0..1, IDF-weighted, in order)
              | max(coverage, 0.80) + 0.15 for a pattern hit (capped at 1)
              | 0.85 * fuzzy strength      (fuzzy strength >= 0.72)
              (a phrase hit x0.8 when the symptom's own pattern fails on that line, x0.7 on an info line,
               see matcher.PATTERN_MISS)
    symptom   = strength ** 1.3
              * g(weight)                  g(w) = min(1, 0.25 + 0.6 * w)
              * (0.55 + 0.45 * specificity)
                        specificity = mean normalised IDF of its distinct words
                                      * min(1, their IDF mass / 1.2)
              * severity weight            error/warning 1.0, neutral .96, info/debug .9
              * 0.6 when the signature has nothing but generic phrases

Per article: the best symptom, plus corroboration from other distinct
symptoms found on *other* lines (``s1 + (1 - s1) * min(0.5, 0.4 * sum(rest))``),
plus a small bonus (at most 0.08) for how firmly a FailedScheduling
reason pins the pod when the line names several (a volume's zone over a
full node over missing cpu over a selector or taint exclusion).  Results obtained only through the
fuzzy stage are capped just under HIGH when nearly every word of the
signature is there, and kept LOW otherwise, bonuses and relevance included
(:func:`fuzzy_cap`; only on a line the reader glued back from a wrap may they
lift it, see ``Matcher._rank``).

Thresholds (chosen so that one full, specific phrase hit of a normal
weight-1.0 signature on an error line lands in HIGH (0.85 x ~0.95), a
pattern hit always does, a 70 % phrase coverage or a strong fuzzy hit
lands in MEDIUM, and a generic low-weight symptom such as ``Back-off
restarting failed container`` (weight 0.3) stays LOW even when matched
verbatim):

* ``HIGH``   score >= 0.70
* ``MEDIUM`` score >= 0.50 (raised from 0.45 on the tuning half of the representative audit: between
  0.45 and 0.50 four answers in five were wrong; see README, "Answer quality on real pastes")
* ``LOW``    anything above ``MIN_SCORE`` (0.12); recall-only results are
  always LOW and never ``best``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "HIGH",
    "MEDIUM",
    "MIN_SCORE",
    "MIN_COVERAGE",
    "SymptomHit",
    "symptom_score",
    "article_score",
    "confidence",
    "node_share",
    "pick_language",
    "weight_factor",
    "fuse",
    "fuzzy_cap",
    "relevance_only",
    "scheduled_after",
    "discount_resolved_scheduling",
]

HIGH = 0.70
MEDIUM = 0.55
MIN_SCORE = 0.12
MIN_COVERAGE = 0.34  # phrase coverage below this is noise
FUZZY_CAP = HIGH - 0.01
# Fuzzy-only evidence is a near miss: it stays LOW unless the line carries nearly all of
# the signature's words (raw fuzzy strength >= 0.9). Generic shared vocabulary
# ("connect: connection refused", "http", "timeout") otherwise made unrelated errors
# (an nginx upstream failure) look like a medium match.
STRONG_FUZZY = 0.85 * 0.9
WEAK_FUZZY_CAP = MEDIUM - 0.01
NODE_BONUS = 0.08
GENERIC_FACTOR = 0.6  # a symptom made only of generic phrases

# Fusion with the article-text relevance (see :mod:`relevance`) and attribution (:mod:`attribution`).
REL_BONUS = 0.04  # an article whose whole text fits the paste best gains up to +0.02, one sharing nothing -0.02
CONFLICT_FACTOR = 0.6  # an article for another specific controller than the one that printed / was denied
AGREE_BONUS = 0.03  # an article for a specific controller the paste mentions (a role, a tag, a logger ...)
OWNER_BONUS = 0.08  # ... written for the controller that printed the line or was denied: it beats a family article
REL_ONLY_WEIGHT = 0.3  # relevance alone, without any signature evidence: always LOW
EVIDENCE_EDGE = 0.01  # an article with evidence over one with the same relevance and none
REL_ONLY_MIN = 0.5  # share of the best relevance a topic needs to be suggested on relevance alone

_SEVERITY = {3: 1.0, 2: 0.98, 1: 0.96, 0: 0.9}  # an error line is closer to the cause than a warning event
_AVAILABLE = re.compile(r"(\d+)/(\d+) nodes are available:\s*", re.IGNORECASE)
_CLAUSE = re.compile(r"(\d+)\s+([^,]+?)(?=,\s*\d+\s|\.\s*preemption:|\.?\s*$|,\s*$)", re.IGNORECASE)


@dataclass
class SymptomHit:
    """Best evidence found for one signature."""

    sig: int
    strength: float
    how: str  # phrase | pattern | fuzzy
    region: int  # template / window index the evidence came from
    line: int  # index (into the Line list) of the first line of the evidence
    severity: int = 1
    span: tuple[int, int] | None = None  # pattern span in ``text``
    text: str | None = None  # text the pattern ran on
    captures: dict[str, str] = field(default_factory=dict)
    window: int = 1  # number of lines the evidence spans


def weight_factor(weight: float) -> float:
    return max(0.1, min(1.0, 0.25 + 0.6 * weight))


def symptom_score(strength: float, weight: float, specificity: float, severity: int, generic: bool = False) -> float:
    s = max(0.0, min(1.0, strength)) ** 1.3 * (GENERIC_FACTOR if generic else 1.0)
    spec = 0.55 + 0.45 * max(0.0, min(1.0, specificity))
    return s * weight_factor(weight) * spec * _SEVERITY.get(severity, 0.96)


def article_score(scored: list[tuple[float, int]], bonus: float = 0.0, fuzzy_only: bool = False,
                  fuzzy_strength: float = 1.0) -> float:
    """Combine (symptom score, evidence line) pairs of one article into 0..1.

    ``fuzzy_strength`` is the best strength of a fuzzy-only article's hits."""
    if not scored:
        return 0.0
    ordered = sorted(scored, reverse=True)
    top, top_line = ordered[0]
    seen_lines = {top_line}
    rest = 0.0
    for s, line in ordered[1:]:
        if line in seen_lines:
            continue
        seen_lines.add(line)
        rest += s
    score = top + (1.0 - top) * min(0.5, 0.4 * rest) + min(NODE_BONUS, max(0.0, bonus))
    return max(0.0, min(fuzzy_cap(fuzzy_only, fuzzy_strength), score))


def fuzzy_cap(fuzzy_only: bool, fuzzy_strength: float) -> float:
    """The highest score an article found only through the fuzzy stage may reach, bonuses included."""
    if not fuzzy_only:
        return 1.0
    return FUZZY_CAP if fuzzy_strength >= STRONG_FUZZY else WEAK_FUZZY_CAP


def fuse(score: float, rel_share: float, conflict: bool, bonus: float = 0.0, cap: float = 1.0) -> float:
    """Signature score adjusted by the article's text relevance (share of the best, 0..1) and by
    whether the article is written for another controller than the paste's, or for one it names; never
    above ``cap`` (see :func:`fuzzy_cap`): a near miss stays one whatever the paste mentions."""
    # Relevance orders the uncertain candidates; between strong signature matches (a FailedScheduling
    # line naming several reasons) the evidence alone decides, so the bonus fades out towards HIGH.
    fade = max(0.0, min(1.0, (HIGH - score) / 0.05))
    s = score + REL_BONUS * (max(0.0, min(1.0, rel_share)) - 0.5) * fade
    if conflict:
        s *= CONFLICT_FACTOR
    else:
        s += bonus  # AGREE_BONUS or OWNER_BONUS
    # Some evidence (a weak, generic symptom such as a bare BackOff event) never ranks an article below
    # where its text relevance alone would put it (see relevance_only): both stay LOW.
    s = max(min(s, cap), relevance_only(rel_share, conflict) + EVIDENCE_EDGE)
    return max(0.0, min(1.0, s))


def relevance_only(rel_share: float, conflict: bool) -> float:
    """Score of a topic suggested by its text alone (no symptom seen): LOW by construction."""
    return REL_ONLY_WEIGHT * max(0.0, min(1.0, rel_share)) * (CONFLICT_FACTOR if conflict else 1.0)


def confidence(score: float) -> str:
    if score >= HIGH:
        return "high"
    if score >= MEDIUM:
        return "medium"
    return "low"


# How firmly a FailedScheduling reason pins the pod, for a line that names several: nodes excluded by a
# selector or a taint were never candidates, while a volume's zone or a full node is why the candidates
# fail. The reason that pins the pod is the one to fix first.
_PINNING = [
    (re.compile(r"volume node affinity conflict|unbound immediate persistentvolumeclaims|exceed max volume count"
                r"|volume node affinity", re.IGNORECASE), 1.0),
    (re.compile(r"too many pods|insufficient pods", re.IGNORECASE), 0.75),
    (re.compile(r"insufficient [\w./-]+|free ports", re.IGNORECASE), 0.5),
    (re.compile(r"pod affinity|anti-affinity|topology spread", re.IGNORECASE), 0.4),
]
_EXCLUDING = 0.25  # node selector / affinity mismatches, taints, cordoned nodes


def node_share(text: str, pos: int) -> float | None:
    """How firmly the FailedScheduling reason around ``pos`` pins the pod (0..1), None outside such a line.

    ``0/5 nodes are available: 1 node(s) had volume node affinity conflict, 4 Insufficient cpu.`` gives 1.0
    for the first clause and 0.5 for the second.
    """
    m = _AVAILABLE.search(text)
    if not m or pos < m.end():
        return None
    total = int(m.group(2)) or 1
    end = text.lower().find("preemption:", m.end())
    body_end = end if end > 0 else len(text)
    if pos >= body_end:
        return None
    for c in _CLAUSE.finditer(text, m.end(), body_end):
        if c.start() <= pos < c.end() + 1:
            pinning = next((w for rx, w in _PINNING if rx.search(c.group(2))), _EXCLUDING)
            share = min(1.0, int(c.group(1)) / total)  # and, between equals, the reason most nodes give
            return pinning * (0.5 + 0.5 * share)
    return None


def pick_language(available: set[str] | frozenset[str], wanted: str) -> str:
    if wanted in available:
        return wanted
    if "en" in available:
        return "en"
    return sorted(available)[0] if available else wanted


_SCHEDULED = "Successfully assigned "
_UNSCHEDULABLE = ("FailedScheduling", "nodes are available")
STALE_SCHEDULING = 0.6  # strength factor of a scheduling failure the pod got past


def scheduled_after(texts: Sequence[str]) -> int | None:
    """The line of the last ``Scheduled`` event ("Successfully assigned ns/pod to node") when no scheduling
    failure follows it: the FailedScheduling events above it are history, the pod did get a node."""
    last = None
    for i, text in enumerate(texts):
        if _SCHEDULED in text:
            last = i
        elif last is not None and any(k in text for k in _UNSCHEDULABLE):
            last = None
    return last


def discount_resolved_scheduling(texts: Sequence[str], hits: Iterable[SymptomHit]) -> None:
    """Weaken hits on scheduling failures that a later ``Scheduled`` event resolved: history, not the failure."""
    cut = scheduled_after(texts)
    if cut is None:
        return
    for hit in hits:
        if hit.line < cut and any(k in texts[hit.line] for k in _UNSCHEDULABLE):
            hit.strength *= STALE_SCHEDULING
