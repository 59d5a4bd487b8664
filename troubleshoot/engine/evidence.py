"""Where in the paste each symptom was seen: the evidence lines and the span to highlight.

Plain Python; used by :mod:`matcher` after ranking, so only the few answers shown pay for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .automaton import Fragment, PhraseIndex
from .rank import SymptomHit
from .types import Evidence, Line, Signature

__all__ = ["Locator", "anchor", "region_text"]


def region_text(lines: Sequence[Line], hit: SymptomHit) -> str:
    """The text a hit spans: its line, or the lines of its window joined."""
    if hit.window <= 1:
        return lines[hit.line].text
    return " ".join(lines[k].text.strip() for k in range(hit.line, hit.line + hit.window))


def anchor(lines: Sequence[Line], first: int, size: int, text: str,
           span: tuple[int, int]) -> tuple[int, int, str, tuple[int, int]]:
    """(line, window size, text, span) of a match at ``span`` in a window's joined ``text`` (see ``region_text``):
    the single line that holds the whole match when there is one, else the window as given."""
    pos = 0
    for k in range(first, first + size):
        piece = lines[k].text.strip()
        if pos <= span[0] and span[1] <= pos + len(piece):
            offset = pos - (len(lines[k].text) - len(lines[k].text.lstrip()))
            return k, 1, lines[k].text, (span[0] - offset, span[1] - offset)
        pos += len(piece) + 1
    return first, size, text, span


class Locator:
    """Finds the span of a symptom's phrases in a line (tolerant of quotes and spacing)."""

    def __init__(self, signatures: Sequence[Signature], phrases: PhraseIndex):
        self.signatures = signatures
        self.phrases = phrases
        self._locators: dict[str, re.Pattern[str]] = {}

    def _locator(self, fragment: str) -> re.Pattern[str]:
        rx = self._locators.get(fragment)
        if rx is None:
            parts = []
            for tok in fragment.split():
                esc = re.escape(tok)
                esc = esc.replace("'", "['\u2018\u2019`]").replace('"', '["\u201c\u201d]')
                parts.append(esc)
            rx = self._locators[fragment] = re.compile(r"\s+".join(parts), re.IGNORECASE)
        return rx

    def locate(self, text: str, frags: Sequence[Fragment]) -> tuple[int, int] | None:
        spans = []
        for f in sorted(frags, key=lambda f: f.value):
            m = self._locator(f.text).search(text)
            if m:
                spans.append(m.span())
        if not spans:
            return None
        start, end = spans[0]
        for s, e in sorted(spans[1:]):
            if s <= end + 200 and s >= start - 200:
                start, end = min(start, s), max(end, e)
        return start, end

    def evidence(self, lines: Sequence[Line], hit: SymptomHit) -> list[Evidence]:
        key = self.signatures[hit.sig].key
        if hit.how in ("pattern", "fields"):
            text = hit.text if hit.text is not None else lines[hit.line].text
            return [Evidence(lines[hit.line].number, text, key, hit.span or (0, len(text)), hit.how)]
        frags = self.phrases.sigs[hit.sig].frags
        out = []
        for k in range(hit.line, hit.line + max(1, hit.window)):
            span = self.locate(lines[k].text, frags)
            if span is not None:
                out.append(Evidence(lines[k].number, lines[k].text, key, span, hit.how))
        if not out:
            line = lines[hit.line]
            out.append(Evidence(line.number, line.text, key, (0, len(line.text)), hit.how))
        return out
