"""Windows: runs of consecutive lines scanned together, so a phrase cut by a terminal wrap or spread
over the indented fields of one ``kubectl describe`` block is still found. Plain Python, no Django."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .reader import is_indented_field, is_record_start
from .types import Line

__all__ = ["Window", "cut_windows", "WINDOW_LINES", "WINDOW_STRIDE", "WINDOW_CHARS"]

WINDOW_LINES = 4  # consecutive lines scanned together (phrases cut by wraps)
WINDOW_STRIDE = 2
WINDOW_CHARS = 900


@dataclass
class Window:
    norm: str
    first: int  # index into lines
    size: int


def cut_windows(lines: Sequence[Line], norms: Sequence[str]) -> list[Window]:
    """Runs of lines that continue each other, cut into overlapping windows."""
    out: list[Window] = []
    seen: set[str] = set()
    n = len(lines)
    i = 0
    while i < n - 1:
        j = i
        # Runs continue through wrapped lines, and through the indented fields of one
        # `kubectl describe` block ("Last State: Terminated / Reason: OOMKilled / Exit Code: 137").
        while j + 1 < n and norms[j] and norms[j + 1] and (
            not is_record_start(lines[j + 1].text)
            or (is_indented_field(lines[j + 1].raw) and is_indented_field(lines[j].raw))
        ):
            j += 1
        if j > i:
            for s in range(i, j, WINDOW_STRIDE):
                e = min(j + 1, s + WINDOW_LINES)
                while e - s > 2 and sum(len(norms[k]) for k in range(s, e)) > WINDOW_CHARS:
                    e -= 1
                joined = " ".join(norms[s:e])
                if joined not in seen:
                    seen.add(joined)
                    out.append(Window(joined, s, e - s))
                if e >= j + 1:
                    break
        i = j + 1
    return out
