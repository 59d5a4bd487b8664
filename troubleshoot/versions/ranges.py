"""The version ranges articles give (``affected``, ``fixed_in``) and readings given as ranges.

Formats the shipped articles and common tools use:

* comparators, space- or comma-separated, all of which must hold:
  ``>=1.25``, ``<1.25``, ``<=1.19``, ``>=0.34.0 <0.36.0``, ``>= 1.20, < 1.22``;
* alternatives joined by ``||``;
* a bare version: ``1.1.1`` is that release, ``1.29`` every 1.29.x, ``1.28+`` from 1.28 on,
  ``1.1.x`` every 1.1 patch;
* a hyphen range, both ends included: ``1.20 - 1.22`` (every 1.22.x too);
* Terraform's ``~> 20.8`` (>= 20.8, < 21) and npm's ``^1.2.3`` / ``~1.2.3``;
* a leading product name when the range is about a part of the component:
  ``terraform-provider-helm >=3.0.0``.

Anything else (``platform versions with access entries``) cannot be compared:
``parse_range`` answers None and the check says ``unknown``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .numbers import Bound, Parsed, Span, Version, parse_version, span_of

_TOKEN = re.compile(r"(?P<op>>=|<=|==|!=|~>|>|<|=|\^|~)?\s*"
                    r"(?P<ver>[vV]?\d+(?:\.(?:\d+|[xX*]))*(?:-[0-9A-Za-z.]+)?)(?P<plus>\+)?")
_PRODUCT = re.compile(r"^(?P<product>[A-Za-z][\w./-]*[A-Za-z])\s+(?=[<>=~^vV\d])")
_HYPHEN = re.compile(r"^\s*(?P<a>[vV]?\d[\w.]*)\s+-\s+(?P<b>[vV]?\d[\w.]*)\s*$")


@dataclass(frozen=True)
class Range:
    product: str            # "" when the range is about the component itself
    spans: tuple[Span, ...]

    def __str__(self) -> str:
        text = " || ".join(str(s) for s in self.spans)
        return f"{self.product} {text}".strip()


def _partial(ver: str) -> Parsed | None:
    """``1.1.x`` reads as ``1.1`` (every patch); ``1.x`` as ``1``."""
    cleaned = re.sub(r"(\.[xX*])+$", "", ver)
    return parse_version(cleaned)


def _next_after(parsed: Parsed) -> Version:
    """The first version past everything ``parsed`` stands for (1.19 -> 1.20.0, 1.19.3 -> 1.19.4)."""
    major, minor, patch = parsed.version.parts
    if parsed.precision == 1:
        return Version((major + 1, 0, 0))
    if parsed.precision == 2:
        return Version((major, minor + 1, 0))
    return Version((major, minor, patch + 1))


def _comparator(op: str, parsed: Parsed, plus: bool) -> Span | None:
    v = parsed.version
    if plus:
        return Span(Bound(v, True), None)
    if op in ("", "=", "=="):
        return span_of(parsed)
    if op == ">=":
        return Span(Bound(v, True), None)
    if op == ">":
        return Span(Bound(_next_after(parsed), True) if parsed.precision < 3 else Bound(v, False), None)
    if op == "<":
        return Span(None, Bound(v, False))
    if op == "<=":
        return Span(None, Bound(_next_after(parsed), False) if parsed.precision < 3 else Bound(v, True))
    major, minor, _ = v.parts
    if op == "~>":         # Terraform: the last given number may grow
        upper = Version((major + 1, 0, 0)) if parsed.precision <= 2 else Version((major, minor + 1, 0))
        return Span(Bound(v, True), Bound(upper, False))
    if op == "^":
        upper = Version((major + 1, 0, 0)) if major else Version((0, minor + 1, 0))
        return Span(Bound(v, True), Bound(upper, False))
    if op == "~":
        upper = Version((major, minor + 1, 0)) if parsed.precision >= 2 else Version((major + 1, 0, 0))
        return Span(Bound(v, True), Bound(upper, False))
    return None             # != cannot be a single span


def _alternative(text: str) -> Span | None:
    m = _HYPHEN.match(text)
    if m:
        a, b = _partial(m.group("a")), _partial(m.group("b"))
        if a is None or b is None:
            return None
        return Span(Bound(a.version, True), Bound(_next_after(b), False) if b.precision < 3 else Bound(b.version, True))
    span = Span()
    rest = text.replace(",", " ").strip()
    if not rest:
        return None
    pos = 0
    while pos < len(rest):
        while pos < len(rest) and rest[pos] == " ":
            pos += 1
        if pos >= len(rest):
            break
        tm = _TOKEN.match(rest, pos)
        if not tm or (tm.end() < len(rest) and rest[tm.end()] not in " "):
            return None
        parsed = _partial(tm.group("ver"))
        if parsed is None:
            return None
        part = _comparator(tm.group("op") or "", parsed, bool(tm.group("plus")))
        if part is None:
            return None
        span = span.intersect(part)
        pos = tm.end()
    return span


def parse_range(text: str) -> Range | None:
    """A range from an article's ``affected`` (or a version given as a range), or None."""
    text = (text or "").strip()
    if not text:
        return None
    product = ""
    m = _PRODUCT.match(text)
    if m:
        product, text = m.group("product"), text[m.end():]
    spans = []
    for alternative in text.split("||"):
        span = _alternative(alternative)
        if span is None:
            return None
        spans.append(span)
    return Range(product, tuple(spans))


def reading_span(text: str) -> Span | None:
    """The span a version reading stands for: ``1.1.1``, ``1.29`` or a range such as ``>=0.32.0 <1.1.0``."""
    parsed = parse_version(text)
    if parsed is not None:
        return span_of(parsed)
    found = parse_range(text)
    if found is None or found.product or len(found.spans) != 1:
        return None
    return found.spans[0]
