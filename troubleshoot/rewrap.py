"""Rewrap: dress a paste the way pastes really arrive, to measure whether the matcher still knows it.

Plain Python, no Django. Each :class:`Wrapper` re-creates one way a message reaches the KB in other
clothes: cut by a terminal at 80 or 120 columns, filled by a mail program or editor, each line inside
a JSON log record, quoted by CloudWatch, behind a journal / ``kubectl logs --prefix`` / timestamp
prefix, inside Terraform's box, quoted in Markdown, or the whole paste as the ``error`` of one JSON
record. A wrapper says which pastes it fits (``applies``): prefixes and records are put only around
log-like pastes, never around ``kubectl get`` tables or ``describe`` blocks that no log pipeline
would carry. ``manage.py evaluate_matcher --wrappers`` runs the labelled cases through each.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from troubleshoot.engine.reader import is_table_row

__all__ = ["Wrapper", "WRAPPERS", "log_like", "plain_message"]

_FIELD = re.compile(r"^\s*[A-Z][\w ]{0,30}:\s{2,}\S")
_PROMPT = re.compile(r"^\s*(?:\$|#|%|PS [A-Z]:|[\w.-]+@[\w.-]+)")
_BOX = "\u2502\u2575\u2577"


def _rows(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def log_like(text: str) -> bool:
    """Lines a logger printed: no table, no ``Key:   value`` block, no shell prompt, no box."""
    for row in _rows(text):
        if is_table_row(row) or _FIELD.match(row) or _PROMPT.match(row) or row.lstrip()[:1] in _BOX:
            return False
    return True


_STAMPED = re.compile(r"^\s*(?:[IWEF]\d{4} |\d{4}[-/]\d{2}[-/]\d{2}|\{)")


def plain_message(text: str) -> bool:
    """Log-like lines that carry no logger's own header (klog, time stamp, JSON): what a CLI or a
    provider prints, and what Terraform would put in its box."""
    return log_like(text) and not any(_STAMPED.match(row) for row in _rows(text))


def _long_rows(text: str, width: int, split: Callable[[str], list[str]]) -> str:
    """Each row longer than ``width`` (but not a table row) replaced by the rows ``split`` makes of it."""
    out: list[str] = []
    for row in _rows(text):
        out.extend([row] if len(row) <= width or is_table_row(row) else split(row) or [row])
    return "\n".join(out)


def _cut(text: str, width: int) -> str:
    """A terminal of ``width`` columns: long lines are cut every ``width`` characters, wherever that falls."""
    return _long_rows(text, width, lambda row: [row[i : i + width] for i in range(0, len(row), width)])


def _fill(text: str, width: int) -> str:
    """A filler of ``width`` columns: long lines are broken between words."""
    return _long_rows(text, width, lambda row: textwrap.wrap(row, width, break_long_words=False,
                                                               break_on_hyphens=False))


def _each(text: str, dress: Callable[[str], str]) -> str:
    return "\n".join(dress(row) if row.strip() else row for row in _rows(text))


def _record(row: str) -> str:
    """The record a log shipper (fluent-bit, Container Insights) makes of one line a container printed."""
    return json.dumps({"time": "2025-03-04T10:00:01.123456789Z", "stream": "stderr", "_p": "F",
                       "log": row.strip()})


@dataclass(frozen=True)
class Wrapper:
    name: str
    what: str
    apply: Callable[[str], str]
    applies: Callable[[str], bool] = lambda text: True


WRAPPERS: tuple[Wrapper, ...] = (
    Wrapper("cut-80", "a terminal 80 columns wide cut the long lines", lambda t: _cut(t, 80)),
    Wrapper("cut-120", "a terminal 120 columns wide cut the long lines", lambda t: _cut(t, 120)),
    Wrapper("fill-80", "a mail program or editor filled the text to 80 columns", lambda t: _fill(t, 80)),
    Wrapper("fill-100", "a filler at 100 columns", lambda t: _fill(t, 100)),
    Wrapper("json-lines", "each line inside the JSON record a log shipper makes of it",
            lambda t: _each(t, _record), log_like),
    Wrapper("cloudwatch", "each line quoted as a JSON string, as CloudWatch shows it",
            lambda t: _each(t, lambda r: json.dumps(r.strip())), log_like),
    Wrapper("journal", "journalctl's prefix on each line",
            lambda t: _each(t, lambda r: f"Mar 04 10:00:01 ip-10-0-1-23 kubelet[2211]: {r}"), log_like),
    Wrapper("kubectl-prefix", "kubectl logs --prefix on each line",
            lambda t: _each(t, lambda r: f"[pod/app-7d9f8c6b5-xk2lp/main] {r}"), log_like),
    Wrapper("timestamps", "kubectl logs --timestamps on each line",
            lambda t: _each(t, lambda r: f"2025-03-04T10:00:01.123456789Z {r}"), log_like),
    Wrapper("terraform-box", "inside Terraform's diagnostic box",
            lambda t: "\u2577\n" + _each(t, lambda r: f"\u2502 {r}") + "\n\u2575", plain_message),
    Wrapper("markdown-quote", "quoted in Markdown (> on each line)", lambda t: _each(t, lambda r: f"> {r}")),
    Wrapper("indented", "indented four spaces, as a Markdown code block", lambda t: _each(t, lambda r: f"    {r}")),
    Wrapper("error-field", "the whole paste as the error of one JSON log record",
            lambda t: json.dumps({"level": "error", "msg": "Reconciler error", "error": t.strip()}), log_like),
)
