"""Answer quality on the labelled cases under tests/matcher_cases (plain Python).

``tests/matcher_cases/<slug>/*.txt`` are pastes whose right top answer is <slug>;
``tests/matcher_cases/_none/*.txt`` are unrelated errors that must get no confident
answer. Metrics: top-1, top-3 and MRR over the labelled pastes, and the rate of
confident wrong answers (a confident ``best`` that is not the expected article,
or any confident ``best`` for an unrelated paste).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

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
