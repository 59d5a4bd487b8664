"""How the kubectl analysis does on real uploads (plain Python, no Django).

``tests/fixtures/real_uploads/`` holds text people pasted into public issues and
Q&A pages, one file each, and ``manifest.yaml`` says for each one where it came
from, whether it shows something broken (``problem``), which articles a reader
judges right for it (``expected``, empty when none fits) and which half it
belongs to (``tuning`` was looked at while building the analysers, ``held-out``
only measured).

Figures, per half and overall:

* findings: the share of uploads that show a problem and produce at least one
  finding;
* quiet: the share of uploads that show nothing broken and produce no warning
  or critical finding (a healthy table must not raise an alarm);
* right article first: among uploads with an expected article, the share whose
  report ranks one of them first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HALVES = ("tuning", "held-out")


@dataclass
class Upload:
    path: Path
    source: str
    shape: str
    expected: list[str]
    problem: bool
    half: str

    @property
    def text(self) -> str:
        return self.path.read_bytes().decode("utf-8", errors="replace")


@dataclass
class Outcome:
    """What the analysis made of one upload."""

    problems: list[str]        # problem codes of the findings
    severities: list[str]      # their severities, same order
    articles: list[str]        # the report's articles, best first
    confidences: list[str] = field(default_factory=list)   # theirs, same order


@dataclass
class Result:
    upload: Upload
    outcome: Outcome

    @property
    def found(self) -> bool:
        return bool(self.outcome.problems)

    @property
    def alarmed(self) -> bool:
        return any(s in ("critical", "warning") for s in self.outcome.severities)

    @property
    def right_first(self) -> bool:
        return bool(self.outcome.articles) and self.outcome.articles[0] in self.upload.expected

    @property
    def confident_first(self) -> bool:
        return bool(self.outcome.confidences) and self.outcome.confidences[0] in ("high", "medium")


@dataclass
class Figures:
    results: list[Result] = field(default_factory=list)

    def _share(self, rows: list[Result], ok: Callable[[Result], bool]) -> tuple[int, int]:
        return sum(1 for r in rows if ok(r)), len(rows)

    def findings(self) -> tuple[int, int]:
        return self._share([r for r in self.results if r.upload.problem], lambda r: r.found)

    def quiet(self) -> tuple[int, int]:
        return self._share([r for r in self.results if not r.upload.problem], lambda r: not r.alarmed)

    def right_first(self) -> tuple[int, int]:
        return self._share([r for r in self.results if r.upload.expected], lambda r: r.right_first)

    def any_finding(self) -> tuple[int, int]:
        return self._share(self.results, lambda r: r.found)

    def confident_without_article(self) -> tuple[int, int]:
        """Uploads no article fits whose report still leads with a confident (medium/high) article."""
        return self._share([r for r in self.results if not r.upload.expected], lambda r: r.confident_first)

    def half(self, name: str) -> Figures:
        return Figures([r for r in self.results if r.upload.half == name])

    def misses(self) -> list[tuple[Result, str]]:
        out = []
        for r in self.results:
            if r.upload.problem and not r.found:
                out.append((r, "no finding"))
            if not r.upload.problem and r.alarmed:
                out.append((r, "alarm on a healthy upload"))
            if r.upload.expected and not r.right_first:
                out.append((r, f"first article {r.outcome.articles[0] if r.outcome.articles else '-'}, "
                               f"expected {' or '.join(r.upload.expected)}"))
        return out


def ratio(pair: tuple[int, int]) -> float:
    done, total = pair
    return done / total if total else 1.0


def load_uploads(root: Path) -> list[Upload]:
    manifest = yaml.safe_load((root / "manifest.yaml").read_text(encoding="utf-8"))
    uploads = []
    for item in manifest["uploads"]:
        half = item["half"]
        if half not in HALVES:
            raise ValueError(f"{item['file']}: half must be one of {', '.join(HALVES)}")
        uploads.append(Upload(path=root / item["file"], source=item["source"], shape=item["shape"],
                              expected=list(item.get("expected") or []), problem=bool(item["problem"]),
                              half=half))
    return uploads


def evaluate(uploads: list[Upload], analyse: Callable[[str], Outcome]) -> Figures:
    return Figures([Result(upload=u, outcome=analyse(u.text)) for u in uploads])


def summary(figures: Figures) -> str:
    def line(name: str, f: Figures) -> str:
        parts = []
        for label, pair in (("findings", f.findings()), ("quiet", f.quiet()),
                            ("right article first", f.right_first())):
            parts.append(f"{label} {pair[0]}/{pair[1]} ({ratio(pair):.0%})")
        return f"{name:9} " + ", ".join(parts)

    found, total = figures.any_finding()
    wrong, none = figures.confident_without_article()
    return "\n".join([line("all", figures)] + [line(h, figures.half(h)) for h in HALVES]
                     + [f"uploads with any finding: {found}/{total} (healthy ones included)",
                        f"uploads no article fits that still lead with a confident article: {wrong}/{none}"])
