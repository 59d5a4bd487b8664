"""Version numbers, the spans of versions a reading or a range covers, and comparing them.

A version is read leniently from what tools print: ``v1.29.3-eks-ae9a62a``,
``1.18.3-eksbuild.1``, ``1.1.1@sha256:...``, ``20.8.3``. Build suffixes (``-eks-...``,
``-eksbuild.N``, ``+k3s1``) are not part of the version; a pre-release (``-rc.1``,
``-beta.2``) sorts before its release.

A ``Span`` is an interval of versions. ``1.29`` (as an AMI or an EKS cluster
names it) is the span ``[1.29.0, 1.30.0)``; ``1.1.1`` is the single version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = re.compile(r"^[vV]?(?P<nums>\d+(?:\.\d+){0,3})(?P<rest>[-+~._][0-9A-Za-z.+~_-]*)?$")
_PRERELEASE = re.compile(r"^[-.~](?P<pre>(?:alpha|beta|rc|pre|dev)\.?\d*)", re.I)


@dataclass(frozen=True, order=True)
class Version:
    parts: tuple[int, int, int]
    final: bool = True          # False for a pre-release, which sorts first
    pre: str = ""

    def __str__(self) -> str:
        text = ".".join(str(p) for p in self.parts)
        return f"{text}-{self.pre}" if self.pre else text


@dataclass(frozen=True)
class Parsed:
    version: Version
    precision: int              # how many numbers were given: 1 (1), 2 (1.29) or 3 (1.29.3)


def parse_version(text: str) -> Parsed | None:
    """The version in ``text`` (``v1.29.3-eks-ae9a62a`` -> 1.29.3), or None."""
    text = text.strip().split("@", 1)[0]
    m = _VERSION.match(text)
    if not m:
        return None
    nums = [int(n) for n in m.group("nums").split(".")][:3]
    precision = len(nums)
    while len(nums) < 3:
        nums.append(0)
    pre = _PRERELEASE.match(m.group("rest") or "")
    version = Version((nums[0], nums[1], nums[2]), pre is None, pre.group("pre").lower() if pre else "")
    return Parsed(version, precision)


@dataclass(frozen=True)
class Bound:
    version: Version
    inclusive: bool


@dataclass(frozen=True)
class Span:
    """Versions from ``lo`` to ``hi``; a missing end is open."""

    lo: Bound | None = None
    hi: Bound | None = None

    def is_empty(self) -> bool:
        if self.lo is None or self.hi is None:
            return False
        if self.lo.version > self.hi.version:
            return True
        return self.lo.version == self.hi.version and not (self.lo.inclusive and self.hi.inclusive)

    def intersect(self, other: Span) -> Span:
        return Span(_max_lo(self.lo, other.lo), _min_hi(self.hi, other.hi))

    def within(self, other: Span) -> bool:
        """Every version of this span is in ``other``."""
        return _lo_le(other.lo, self.lo) and _hi_ge(other.hi, self.hi)

    def disjoint(self, other: Span) -> bool:
        return self.intersect(other).is_empty()

    def __str__(self) -> str:
        if self.lo is not None and self.hi is not None and self.lo.version == self.hi.version \
                and self.lo.inclusive and self.hi.inclusive:
            return str(self.lo.version)
        parts = []
        if self.lo is not None:
            parts.append(f"{'>=' if self.lo.inclusive else '>'}{self.lo.version}")
        if self.hi is not None:
            parts.append(f"{'<=' if self.hi.inclusive else '<'}{self.hi.version}")
        return " ".join(parts) or "*"


def exactly(version: Version) -> Span:
    return Span(Bound(version, True), Bound(version, True))


def span_of(parsed: Parsed) -> Span:
    """The versions a reading stands for: ``1.29`` is every 1.29.x, ``1.29.3`` only itself."""
    v = parsed.version
    if parsed.precision >= 3 or not v.final:
        return exactly(v)
    major, minor, _ = v.parts
    upper = Version((major + 1, 0, 0)) if parsed.precision == 1 else Version((major, minor + 1, 0))
    return Span(Bound(Version((major, minor, 0)), True), Bound(upper, False))


def _max_lo(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None:
        return b
    if b is None:
        return a
    if a.version != b.version:
        return a if a.version > b.version else b
    return a if not a.inclusive else b


def _min_hi(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None:
        return b
    if b is None:
        return a
    if a.version != b.version:
        return a if a.version < b.version else b
    return a if not a.inclusive else b


def _lo_le(a: Bound | None, b: Bound | None) -> bool:
    """Lower bound ``a`` admits everything lower bound ``b`` admits."""
    if a is None:
        return True
    if b is None:
        return False
    if a.version != b.version:
        return a.version < b.version
    return a.inclusive or not b.inclusive


def _hi_ge(a: Bound | None, b: Bound | None) -> bool:
    if a is None:
        return True
    if b is None:
        return False
    if a.version != b.version:
        return a.version > b.version
    return a.inclusive or not b.inclusive
