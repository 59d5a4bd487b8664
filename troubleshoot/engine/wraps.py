"""Wraps: which physical rows of a paste were one line before a terminal or a text filler cut them.

Plain Python, no Django. Two kinds of cut reach the matcher:

* **hard**: a terminal split the line at its width, wherever that fell (mid-word, mid-JSON). Every
  row but the last is as wide as the terminal, so the rows are glued back with nothing between them,
  unless the cut fell on a space.
* **soft**: a chat client, mail program or editor filled the text to a column and broke it between
  words. A row ends early exactly when the next word would not have fitted, which is what
  :func:`soft_break` tests; the rows are glued back with a space.

:func:`rejoin_records` puts a JSON log record back together when a terminal cut it (the record only
parses once it is whole). :mod:`reader` asks :func:`soft_break` and :func:`glue` for other lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

__all__ = ["WRAP_WIDTHS", "SOFT_WIDTHS", "soft_break", "glue", "rejoin_records", "terminal_width"]

# Terminal widths seen in pastes (79, 119: the trailing space of an 80/120-wide row was dropped).
WRAP_WIDTHS = frozenset({72, 76, 78, 79, 80, 100, 119, 120, 128, 132, 150, 160, 180, 200})
# Fill columns of mail programs, editors and `fmt`.
SOFT_WIDTHS = (72, 76, 78, 79, 80, 100, 120, 132)
MIN_SOFT_ROW = 50  # a filled row shorter than this is a short line of its own, not a wrap
MAX_RECORD_ROWS = 64  # rows one wrapped JSON record may span
MAX_RECORD_CHARS = 256 * 1024


def soft_break(row: str, nxt: str) -> bool:
    """Was ``row`` ended by a filler because the first word of ``nxt`` did not fit on it?

    True when some common fill column lies between the row's width and the width it would have
    had with the next word on it. The next row must start flush left (indented rows are code,
    YAML or stack frames) and the row must be long enough to have been filled."""
    width = len(row)
    if width < MIN_SOFT_ROW or not nxt or nxt[:1].isspace():
        return False
    word = len(nxt.split(None, 1)[0])
    return any(width <= column < width + 1 + word for column in SOFT_WIDTHS)


def terminal_width(rows: Sequence[str], continues: Callable[[str], bool]) -> int:
    """The width a terminal cut this paste at, or 0 when nothing shows one did.

    A row of exactly a usual width that runs on into the next is ambiguous on its own: in pastes
    from issue trackers it is far more often filled text (Terraform fills its diagnostics to 72-78
    columns) or a line of its own. A terminal shows itself by cutting at one width again and again
    (one less where the cut fell on a space the copy dropped), while a filler ends its rows anywhere
    in the last dozen columns: so at least two rows must end at the width, and three in four of
    the rows that run on and end near it."""
    at_usual = sum(1 for row in rows[:-1] if len(row) in WRAP_WIDTHS or len(row) + 1 in WRAP_WIDTHS)
    if at_usual < 2:  # most pastes: decided without looking at a single next row
        return 0
    lowest = min(WRAP_WIDTHS) - 16
    ends = [len(row) for row, nxt in zip(rows, rows[1:]) if len(row) >= lowest and continues(nxt)]
    best, best_count = 0, 0
    for width in {w if w in WRAP_WIDTHS else w + 1 for w in ends if w in WRAP_WIDTHS or w + 1 in WRAP_WIDTHS}:
        at = sum(1 for w in ends if w in (width, width - 1))
        near = sum(1 for w in ends if width - 15 <= w <= width)
        if at >= 2 and at * 4 >= near * 3 and at > best_count:
            best, best_count = width, at
    return best


def glue(row_raw: str, nxt_raw: str, *, hard: bool) -> str:
    """What goes between a row and its continuation: nothing where a terminal cut a word or token,
    a space where the cut fell on a space or a filler broke between words."""
    if not hard or row_raw[-1:].isspace() or nxt_raw[:1].isspace():
        return " "
    return ""


def _record_start(text: str) -> int:
    """Where the JSON record opens on the first row of a record a terminal cut (after a log prefix
    such as ``[pod/x/c]``), or -1: the row opens an object and does not close it."""
    start = text.find("{")
    if start < 0 or start > 120 or text.rstrip().endswith("}") or len(text) < MIN_SOFT_ROW:
        return -1
    return start


def _parses(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _glued(rows: Sequence[str], i: int, start: int, *, hard: bool) -> tuple[int, str] | None:
    """(last row, text) of the record opening on row ``i`` glued back, if it ends up parsing."""
    width = len(rows[i])
    text = rows[i]
    for j in range(i + 1, min(len(rows), i + MAX_RECORD_ROWS)):
        row, nxt = rows[j - 1], rows[j]
        if not nxt.strip() or nxt.lstrip()[:1] == "{" or len(text) > MAX_RECORD_CHARS:
            return None
        if hard:  # every row but the last is the terminal's width (one less: a cut on a space)
            if len(row) not in (width, width - 1):
                return None
            text += (" " if len(row) < width else glue(row, nxt, hard=True)) + nxt
        else:
            text += " " + nxt.strip()
        if text.endswith("}") and _parses(text[start:]):
            return j, text
    return None


def rejoin_records(rows: Sequence[str]) -> list[tuple[int, int, str]]:
    """Spans ``(first, last, text)`` (0-based, inclusive) of cleaned rows that are one JSON record
    cut by a terminal or a filler; rows outside a span are left to the reader. A span is taken only
    when the glued text parses as a JSON object, so a record that was broken when pasted stays as
    it was."""
    spans: list[tuple[int, int, str]] = []
    i, n = 0, len(rows)
    while i < n - 1:
        start = _record_start(rows[i])
        found = None
        if start >= 0:
            found = _glued(rows, i, start, hard=True) or _glued(rows, i, start, hard=False)
        if found:
            spans.append((i, found[0], found[1]))
            i = found[0] + 1
        else:
            i += 1
    return spans
