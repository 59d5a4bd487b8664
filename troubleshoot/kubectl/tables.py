"""Column splitting for the tab-aligned tables kubectl prints.

kubectl pads columns with spaces (``tabwriter``), so the header's word
positions give each column's start.  When the spacing was damaged (pasted
through chat, collapsed whitespace) the row is split on whitespace instead,
re-joining the few values that hold spaces (``5 (2m ago)``,
``2m (x3 over 10m)``) and letting the free-text column take the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Header names made of two words.
_PAIRS = {
    ("LAST", "SEEN"), ("FIRST", "SEEN"), ("NOMINATED", "NODE"), ("READINESS", "GATES"),
    ("ACCESS", "MODES"), ("RECLAIM", "POLICY"),
}
_FREE_TEXT = {"MESSAGE", "Message", "MESSAGES"}
_WORD = re.compile(r"\S+")
_HEADER_WORD = re.compile(r"^[A-Z][A-Z0-9_()./%-]*(?:\([a-z]+\)%?)?$")
_DESCRIBE_HEADER_WORD = re.compile(r"^[A-Z][A-Za-z]*$")
_DASHES = re.compile(r"^\s*-{2,}(\s+-{2,})*\s*$")


@dataclass
class Header:
    names: list[str]
    starts: list[int]
    line: str

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            return -1

    def has(self, *names: str) -> bool:
        return all(n in self.names for n in names)

    @property
    def free_text_index(self) -> int:
        for i, name in enumerate(self.names):
            if name in _FREE_TEXT:
                return i
        return -1


def parse_header(line: str, describe_style: bool = False) -> Header | None:
    """Recognise a header line; ``describe_style`` accepts ``Type  Reason  Age``."""
    words = [(m.start(), m.group()) for m in _WORD.finditer(line)]
    if len(words) < 2:
        return None
    pattern = _DESCRIBE_HEADER_WORD if describe_style else _HEADER_WORD
    if not all(pattern.match(w) for _, w in words):
        return None
    names: list[str] = []
    starts: list[int] = []
    i = 0
    while i < len(words):
        pos, word = words[i]
        if i + 1 < len(words) and (word, words[i + 1][1]) in _PAIRS:
            names.append(f"{word} {words[i + 1][1]}")
            starts.append(pos)
            i += 2
            continue
        names.append(word)
        starts.append(pos)
        i += 1
    return Header(names, starts, line)


def is_dash_line(line: str) -> bool:
    return bool(_DASHES.match(line))


def _by_position(header: Header, line: str) -> list[str] | None:
    starts = header.starts
    n = len(starts)
    cells: list[str] = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < n else len(line)
        if start > len(line):
            cells.append("")
            continue
        if i > 0 and line[start - 1] not in " \t":
            return None
        seg = line[start:end]
        if seg and seg[0] in " \t" and seg.strip():
            return None
        cells.append(seg.strip())
    if not cells[0]:
        return None
    return cells


def _merge_parens(tokens: list[str]) -> list[str]:
    merged: list[str] = []
    open_group = False
    for tok in tokens:
        if open_group and merged:
            merged[-1] += " " + tok
            if tok.endswith(")"):
                open_group = False
            continue
        if tok.startswith("(") and merged and not tok.endswith(")"):
            merged[-1] += " " + tok
            open_group = True
            continue
        if tok.startswith("(") and tok.endswith(")") and merged and tok != "()":
            merged[-1] += " " + tok
            continue
        merged.append(tok)
    return merged


def _by_tokens(header: Header, line: str) -> list[str] | None:
    n = len(header.names)
    free = header.free_text_index
    # First try runs of 2+ spaces (tabwriter padding is at least 2).
    parts = [p for p in re.split(r"\s{2,}|\t+", line.strip()) if p]
    if len(parts) == n:
        return parts
    if free == n - 1 and len(parts) > n:
        return parts[: n - 1] + ["  ".join(parts[n - 1:])]
    tokens = _merge_parens(line.split())
    if len(tokens) == n:
        return tokens
    if free >= 0 and len(tokens) > n:
        head = tokens[:free]
        tail_count = n - free - 1
        if tail_count:
            tail = tokens[len(tokens) - tail_count:]
            middle = tokens[free: len(tokens) - tail_count]
        else:
            tail = []
            middle = tokens[free:]
        return head + [" ".join(middle)] + tail
    return None


def split_row(header: Header, line: str) -> list[str] | None:
    """Cells of ``line`` under ``header``, or None when it does not fit."""
    if not line.strip():
        return None
    cells = _by_position(header, line)
    if cells is not None and _plausible(header, cells):
        return cells
    return _by_tokens(header, line)


def _plausible(header: Header, cells: list[str]) -> bool:
    # A cell under a one-word column that contains a wide gap means the
    # alignment was off; fall back to tokens.
    for name, cell in zip(header.names, cells):
        if name in _FREE_TEXT:
            continue
        if "  " in cell:     # tabwriter pads columns with 2+ spaces; no value has two in a row
            return False
    return True


def row_dict(header: Header, cells: list[str]) -> dict[str, str]:
    return dict(zip(header.names, cells))
