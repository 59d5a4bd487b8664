"""Answer quality on the labelled cases under tests/matcher_cases (plain Python).

``tests/matcher_cases/<slug>/*.txt`` are pastes whose right top answer is <slug>;
``tests/matcher_cases/_none/*.txt`` are unrelated errors that must get no confident
answer. Metrics: top-1, top-3 and MRR over the labelled pastes, and the rate of
confident wrong answers (a confident ``best`` that is not the expected article,
or any confident ``best`` for an unrelated paste).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from troubleshoot.rewrap import Wrapper

NONE_DIR = "_none"


@dataclass
class Case:
    path: Path
    expected: str | None  # None: must get no confident match
    text: str


@dataclass
class Ranked:
    slugs: list[str]
    best: str | None
    top_score: float = 0.0


@dataclass
class CaseResult:
    case: Case
    ranked: Ranked

    @property
    def rank(self) -> int | None:
        if self.case.expected is None or self.case.expected not in self.ranked.slugs:
            return None
        return self.ranked.slugs.index(self.case.expected) + 1

    @property
    def confident_wrong(self) -> bool:
        return self.ranked.best is not None and self.ranked.best != self.case.expected


@dataclass
class Report:
    results: list[CaseResult] = field(default_factory=list)

    def _labelled(self) -> list[CaseResult]:
        return [r for r in self.results if r.case.expected is not None]

    def _none(self) -> list[CaseResult]:
        return [r for r in self.results if r.case.expected is None]

    @property
    def top1(self) -> float:
        rows = self._labelled()
        return sum(r.rank == 1 for r in rows) / len(rows) if rows else 0.0

    @property
    def top3(self) -> float:
        rows = self._labelled()
        return sum(r.rank is not None and r.rank <= 3 for r in rows) / len(rows) if rows else 0.0

    @property
    def mrr(self) -> float:
        rows = self._labelled()
        return sum(1.0 / r.rank for r in rows if r.rank) / len(rows) if rows else 0.0

    @property
    def confident_wrong_rate(self) -> float:
        return sum(r.confident_wrong for r in self.results) / len(self.results) if self.results else 0.0

    @property
    def unrelated_confident(self) -> int:
        return sum(r.confident_wrong for r in self._none())

    @property
    def answered_labelled(self) -> float:
        rows = self._labelled()
        return sum(r.ranked.best is not None for r in rows) / len(rows) if rows else 0.0

    def failures(self) -> list[CaseResult]:
        return [r for r in self.results if (r.case.expected is not None and r.rank != 1) or r.confident_wrong]

    def summary(self) -> str:
        labelled, unrelated = len(self._labelled()), len(self._none())
        return "\n".join([
            f"cases: {labelled} labelled, {unrelated} unrelated",
            f"top-1: {self.top1:.3f}",
            f"top-3: {self.top3:.3f}",
            f"MRR: {self.mrr:.3f}",
            f"confident answers on labelled cases: {self.answered_labelled:.3f}",
            f"confident wrong answers: {self.confident_wrong_rate:.3f} "
            f"({sum(r.confident_wrong for r in self.results)} of {len(self.results)}; "
            f"{self.unrelated_confident} of {unrelated} unrelated)",
        ])


def load_cases(root: Path) -> list[Case]:
    cases = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        expected = None if folder.name == NONE_DIR else folder.name
        for path in sorted(folder.glob("*.txt")):
            cases.append(Case(path=path, expected=expected,
                              text=path.read_bytes().decode("utf-8", errors="replace")))
    return cases


def evaluate(cases: list[Case], match: Callable[[str], Ranked]) -> Report:
    return Report(results=[CaseResult(case=c, ranked=match(c.text)) for c in cases])


# ---------------------------------------------------------------- representative audit

AUDIT_HALVES = ("tuning", "heldout")


@dataclass
class AuditCase:
    id: str
    half: str
    source: str
    labels: list[str]  # articles that fix it; empty: the KB has none (see ``topic``)
    topic: str  # short name of the failure kind
    text: str


@dataclass
class AuditRow:
    case: AuditCase
    ranked: Ranked
    plain: list[str]  # plain full-text search's ranking of the same paste

    @property
    def covered(self) -> bool:
        return bool(self.case.labels)

    @property
    def useful(self) -> bool:
        return self.ranked.best is not None and self.ranked.best in self.case.labels

    def top(self, k: int) -> bool:
        return any(s in self.case.labels for s in self.ranked.slugs[:k])

    @property
    def confident_wrong(self) -> bool:
        return self.ranked.best is not None and self.ranked.best not in self.case.labels

    @property
    def plain_top1(self) -> bool:
        return bool(self.plain) and self.plain[0] in self.case.labels


@dataclass
class AuditReport:
    half: str
    rows: list[AuditRow] = field(default_factory=list)

    def _rate(self, hits: int, total: int) -> float:
        return hits / total if total else 0.0

    @property
    def covered(self) -> list[AuditRow]:
        return [r for r in self.rows if r.covered]

    def figures(self) -> dict[str, float | int]:
        rows, cov = self.rows, self.covered
        confident = [r for r in rows if r.ranked.best is not None]
        return {
            "pastes": len(rows),
            "covered": len(cov),
            "useful": self._rate(sum(r.useful for r in rows), len(rows)),
            "coverage": self._rate(len(cov), len(rows)),
            "top1": self._rate(sum(r.top(1) for r in cov), len(cov)),
            "top3": self._rate(sum(r.top(3) for r in cov), len(cov)),
            "confident_right": self._rate(sum(r.useful for r in cov), len(cov)),
            "confident": len(confident),
            "confident_wrong": sum(r.confident_wrong for r in rows),
            "confident_wrong_rate": self._rate(sum(r.confident_wrong for r in rows), len(confident)),
            "plain_top1": self._rate(sum(r.plain_top1 for r in cov), len(cov)),
        }

    def summary(self) -> str:
        f = self.figures()
        return "\n".join([
            f"[{self.half}] {f['pastes']} pastes, {f['covered']} covered by an article",
            f"  useful answers (confident and right) / all: {f['useful']:.3f}",
            f"  coverage: {f['coverage']:.3f}",
            f"  covered: top-1 {f['top1']:.3f}, top-3 {f['top3']:.3f}, confident-right {f['confident_right']:.3f}",
            f"  confident-wrong: {f['confident_wrong']} of {f['confident']} confident answers "
            f"({f['confident_wrong_rate']:.3f})",
            f"  plain full-text search, covered: top-1 {f['plain_top1']:.3f}",
        ])


def load_audit(root: Path) -> list[AuditCase]:
    """``<root>/tuning.yaml`` and ``<root>/heldout.yaml``: lists of labelled real pastes."""
    import yaml

    cases: list[AuditCase] = []
    for half in AUDIT_HALVES:
        path = root / f"{half}.yaml"
        if not path.exists():
            continue
        for i, entry in enumerate(yaml.safe_load(path.read_text(encoding="utf-8")) or []):
            labels = entry.get("labels") or []
            if isinstance(labels, str):
                labels = [labels]
            cases.append(AuditCase(
                id=str(entry.get("id") or f"{half}-{i + 1}"), half=half, source=str(entry.get("source", "")),
                labels=[str(x) for x in labels], topic=str(entry.get("topic") or entry.get("kind") or ""),
                text=str(entry["text"]),
            ))
    return cases


def evaluate_audit(cases: list[AuditCase], match: Callable[[str], Ranked],
                   plain: Callable[[str], list[str]]) -> dict[str, AuditReport]:
    reports = {half: AuditReport(half=half) for half in AUDIT_HALVES}
    for case in cases:
        reports[case.half].rows.append(AuditRow(case=case, ranked=match(case.text), plain=plain(case.text)))
    return {half: report for half, report in reports.items() if report.rows}


def threshold_sweep(rows: list[AuditRow], thresholds: list[float]) -> list[tuple[float, float, int, int]]:
    """(threshold, useful rate, confident answers, confident-wrong) if ``best`` were the top match whenever its
    score reaches the threshold: how the confidence cut trades useful answers for wrong ones."""
    out = []
    for t in thresholds:
        confident = [r for r in rows if r.ranked.slugs and r.ranked.top_score >= t]
        right = sum(r.ranked.slugs[0] in r.case.labels for r in confident)
        out.append((t, right / len(rows) if rows else 0.0, len(confident), len(confident) - right))
    return out


@dataclass
class WrappedReport:
    """How one way of dressing pastes (see :mod:`troubleshoot.rewrap`) changes the answers: of the labelled
    cases it fits, how many keep their right first answer and their confident right answer, and how many
    unrelated cases become a confident answer."""
    name: str
    what: str
    cases: int = 0
    first: int = 0  # right first unwrapped
    kept_first: int = 0
    confident: int = 0  # confident and right unwrapped
    kept_confident: int = 0
    unrelated: int = 0
    unrelated_confident: int = 0
    lost: list[str] = field(default_factory=list)

    def line(self) -> str:
        def rate(a: int, b: int) -> str:
            return f"{a / b:.3f}" if b else "  -  "
        return (f"  {self.name:15} {self.cases:5d}  {rate(self.kept_first, self.first)} "
                f"({self.kept_first}/{self.first})  {rate(self.kept_confident, self.confident)} "
                f"({self.kept_confident}/{self.confident})  {self.unrelated_confident}/{self.unrelated}")


def evaluate_wrapped(cases: list[Case], match: Callable[[str], Ranked],
                     wrappers: Iterable[Wrapper]) -> list[WrappedReport]:
    """Run every case fitted by each wrapper both as written and dressed; compare the answers."""
    plain = {id(c): match(c.text) for c in cases}
    reports = []
    for wrapper in wrappers:
        report = WrappedReport(wrapper.name, wrapper.what)
        for case in cases:
            if not wrapper.applies(case.text):
                continue
            before, after = plain[id(case)], match(wrapper.apply(case.text))
            name = f"{case.path.parent.name}/{case.path.name}"
            if case.expected is None:
                report.unrelated += 1
                if after.best is not None:
                    report.unrelated_confident += 1
                    report.lost.append(f"{name}: unrelated, now best={after.best}")
                continue
            report.cases += 1
            if before.slugs[:1] == [case.expected]:
                report.first += 1
                report.kept_first += after.slugs[:1] == [case.expected]
            if before.best == case.expected:
                report.confident += 1
                report.kept_confident += after.best == case.expected
                if after.best != case.expected:
                    report.lost.append(f"{name}: got [{', '.join(after.slugs[:3]) or '-'}] best={after.best or '-'}")
        reports.append(report)
    return reports


# ---------------------------------------------------------------- leave the article out

@dataclass
class LeftOut:
    """One labelled paste matched by a KB without the article(s) that fix it."""

    id: str
    labels: frozenset[str]
    ranked: Ranked


@dataclass
class LeaveOutReport:
    """How the matcher answers failures the KB has no article for, simulated on labelled pastes: each is
    matched without its own article(s). Any confident answer then names another article, so the share of
    confident answers estimates confident-wrong on the long tail of real failures the KB does not cover."""

    name: str
    rows: list[LeftOut] = field(default_factory=list)

    @property
    def confident(self) -> list[LeftOut]:
        return [r for r in self.rows if r.ranked.best is not None]

    def summary(self, top: int = 8) -> str:
        n, conf = len(self.rows), self.confident
        rate = len(conf) / n if n else 0.0
        answered = Counter(r.ranked.best for r in conf)
        most = ", ".join(f"{slug} {k}" for slug, k in sorted(answered.items(), key=lambda kv: (-kv[1], kv[0]))[:top])
        lines = [f"[{self.name}] {n} pastes matched without their own article(s): "
                 f"{len(conf)} still got a confident answer ({rate:.3f})"]
        if most:
            lines.append(f"  confident answers most often given instead: {most}")
        return "\n".join(lines)


def evaluate_leave_out(name: str, cases: Iterable[tuple[str, frozenset[str], str]],
                       ranker_without: Callable[[frozenset[str]], Callable[[str], Ranked]],
                       progress: Callable[[int, int], None] | None = None) -> LeaveOutReport:
    """Match each (id, labels, text) with a matcher built without ``labels`` (one build per label set)."""
    groups: dict[frozenset[str], list[tuple[str, str]]] = {}
    for cid, labels, text in cases:
        if labels:
            groups.setdefault(labels, []).append((cid, text))
    report = LeaveOutReport(name)
    for done, (labels, items) in enumerate(sorted(groups.items(), key=lambda kv: sorted(kv[0])), 1):
        rank = ranker_without(labels)
        report.rows.extend(LeftOut(cid, labels, rank(text)) for cid, text in items)
        if progress is not None:
            progress(done, len(groups))
    return report
