"""Editor-supplied regular expressions, compiled once and run with a timeout.

Patterns use the third-party ``regex`` module, are applied
case-insensitively to the *cleaned original* line (not the normalised
one) and capture the variable parts of a message in named groups
(``(?P<key>...)``).  They only run on candidate lines: lines where the
article's phrases already hit, or lines containing the longest literal
that every match of the pattern must contain (found for all patterns at
once with one Aho-Corasick automaton).  A pattern that fails to compile
is skipped; one that exceeds its time budget is disabled for the life of
the :class:`PatternSet`.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Iterator, Sequence

import ahocorasick
import regex

from .types import Signature

__all__ = ["PatternSet", "validate_pattern", "required_literal", "alternative_literals", "redacted", "PROBES"]

FLAGS = regex.IGNORECASE | regex.VERSION0
MAX_TEXT = 4000  # characters of a line a pattern may look at
PROBES = (
    "a" * 3000 + "!",
    "aaaa " * 600 + "!",
    "0/5 nodes are available: " + "1 node(s) had untolerated taint {a: b}, " * 60 + "!",
    " " * 3000 + "x",
    "x" * 1500 + "=" * 1500,
    "{" * 1000 + '"' * 1000 + "}" * 1000,
)
_VERBOSE = regex.compile(r"\(\?[a-zA-Z]*x[a-zA-Z]*[):]")
_SPECIAL_ESCAPES = set("dDwWsSbBAZzGpPNXuUxhHvVKRmMnrtfae0123456789gkL")


# values people mask before they paste (an address as X.X.X.X, REDACTED, <cluster-endpoint>, ****): a pattern
# written for the real value's shape cannot match them, so its failure on such a line says nothing
_REDACTED = regex.compile(
    r"\b[xX*]{1,3}(?:\.[xX*]{1,3}){3}\b|\bREDACTED\b|\bredacted\b|\*{3,}|\b[xX]{4,}\b"
    r"|<(?!(?:none|nil|default|unknown|invalid|pending|unset|empty|nodes?|host)>)[A-Za-z][\w .-]{1,40}>")


def redacted(text: str) -> bool:
    """Does ``text`` hold a value its author masked?"""
    return _REDACTED.search(text[:MAX_TEXT]) is not None


def _class_end(pattern: str, i: int) -> int:
    """Index just after the character class that opens at ``pattern[i]`` (``[``); ``]`` first or after ``^``
    is a literal, escapes are skipped."""
    n = len(pattern)
    j = i + 1
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    while j < n and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def required_literal(pattern: str, min_len: int = 4) -> str | None:
    """Longest literal (lowercased) that every match of ``pattern`` contains.

    Text inside a group counts when the group is mandatory (no ``?``, ``*`` or ``{}`` after it) and has no
    alternation, so ``(?P<error>Subnets specified must ...)`` still yields its words; lookarounds never count.
    A top-level alternation or verbose mode yields None. Conservative: when unsure, a run is cut short.
    """
    if _VERBOSE.search(pattern):
        return None
    top: list[str] = []
    frames: list[tuple[list[str], list[bool]]] = []  # (runs found inside, [alternation seen, lookaround])
    run: list[str] = []
    i = 0
    n = len(pattern)

    def cut() -> None:
        if run:
            (frames[-1][0] if frames else top).append("".join(run))
            run.clear()

    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if not nxt.isalnum() and nxt not in _SPECIAL_ESCAPES:
                run.append(nxt.lower())
            else:
                cut()
            i += 2
        elif c == "[":
            cut()
            i = _class_end(pattern, i)
        elif c == "(":
            cut()
            look = pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i) or (
                pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?P<"), i))
            frames.append(([], [False, look]))
            if pattern.startswith("(?P<", i):
                i = pattern.find(">", i) + 1 or n
            elif pattern.startswith(("(?:", "(?=", "(?!"), i):
                i += 3
            elif pattern.startswith(("(?<=", "(?<!"), i):
                i += 4
            else:
                i += 1
        elif c == ")":
            cut()
            if frames:
                runs, (alt, look) = frames.pop()
                optional = i + 1 < n and pattern[i + 1] in "?*{"
                if not (alt or look or optional):
                    (frames[-1][0] if frames else top).extend(runs)
            i += 1
        elif c == "|":
            if not frames:
                return None
            cut()
            frames[-1][1][0] = True
            i += 1
        elif c in "?*{":
            if run:  # the preceding character is optional
                run.pop()
            cut()
            if c == "{":
                j = pattern.find("}", i)
                i = (j + 1) if j > 0 else i + 1
            else:
                i += 1
        elif c == "+":
            cut()
            i += 1
        elif c in ".^$":
            cut()
            i += 1
        else:
            run.append(c.lower())
            i += 1
    cut()
    best = max((r.strip() for r in top), key=len, default="")
    return best if len(best) >= min_len else None


def validate_pattern(pattern: str, *, require_groups: bool = True, budget: float = 0.05) -> str | None:
    """Problem with an editor's pattern, as a sentence; None when it is fine."""
    if not pattern or not pattern.strip():
        return "pattern is empty"
    try:
        compiled = regex.compile(pattern, FLAGS)
    except (regex.error, OverflowError, RecursionError, ValueError) as exc:
        return f"invalid regular expression: {exc}"
    if require_groups and not compiled.groupindex:
        return "pattern has no named groups, e.g. (?P<key>[^:]+); it would capture nothing"
    try:
        if compiled.fullmatch("", timeout=budget) is not None:
            return "pattern matches the empty string; it would match every line"
        for probe in PROBES:
            compiled.search(probe, timeout=budget)
    except TimeoutError:
        return "pattern is too slow (catastrophic backtracking on a probe string); simplify nested quantifiers"
    return None


STRIKES = 3


def _structure(pattern: str) -> Iterator[tuple[int, str, int]]:
    """The ``(``, ``)`` and ``|`` of ``pattern`` outside escapes and character classes, as (index, character,
    nesting depth outside the group: before a ``(``, after a ``)``)."""
    depth, i, n = 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _class_end(pattern, i)
            continue
        if c == "(":
            yield i, c, depth
            depth += 1
        elif c == ")":
            depth -= 1
            yield i, c, depth
        elif c == "|":
            yield i, c, depth
        i += 1


def _split_alternatives(body: str) -> list[str] | None:
    """``body`` cut at its own top-level ``|`` (None when it has none)."""
    cuts = [i for i, c, depth in _structure(body) if c == "|" and depth == 0]
    if not cuts:
        return None
    bounds = [-1, *cuts, len(body)]
    return [body[a + 1:b] for a, b in zip(bounds, bounds[1:])]


def _first_group(pattern: str) -> tuple[int, int] | None:
    """(start, end) of the body of the first top-level group that is neither a lookaround nor optional."""
    open_at = -1
    for i, c, depth in _structure(pattern):
        if depth != 0 or c == "|":
            continue
        if c == "(":
            open_at = i
            continue
        head = pattern[open_at:open_at + 4]
        optional = pattern[i + 1:i + 2] in ("?", "*", "{")
        if not optional and not head.startswith(("(?=", "(?!", "(?<=", "(?<!")):
            if head.startswith("(?P<"):
                return pattern.find(">", open_at) + 1, i
            return open_at + (3 if head.startswith("(?:") else 1), i
    return None


def alternative_literals(pattern: str, min_len: int = 4) -> tuple[str, ...] | None:
    """For a pattern without one :func:`required_literal`: literals one of which every match contains, from its
    top-level alternation (``A|B``) or its first mandatory group of alternatives (``(?P<code>Abc|Def)...``);
    None when a branch has no literal of its own."""
    if _VERBOSE.search(pattern):
        return None
    branches = _split_alternatives(pattern)
    if branches is None:
        span = _first_group(pattern)
        branches = _split_alternatives(pattern[span[0]:span[1]]) if span else None
    if not branches:
        return None
    literals = [required_literal(b, min_len) for b in branches]
    found = [lit for lit in literals if lit is not None]
    return tuple(dict.fromkeys(found)) if len(found) == len(literals) else None


class PatternSet:
    """All signature patterns, compiled once."""

    def __init__(self, signatures: Sequence[Signature], timeout: float = 0.1):
        self.timeout = timeout
        self.compiled: dict[int, regex.Pattern[str]] = {}
        self.literal: dict[int, tuple[str, ...]] = {}  # one of them is in every match
        self.disabled: set[int] = set()
        self.strikes: dict[int, int] = {}
        self.errors: dict[int, str] = {}
        automaton = ahocorasick.Automaton()
        by_literal: dict[str, list[int]] = {}
        for i, sig in enumerate(signatures):
            if not sig.pattern:
                continue
            try:
                self.compiled[i] = regex.compile(sig.pattern, FLAGS)
            except (regex.error, OverflowError, RecursionError, ValueError) as exc:
                self.errors[i] = str(exc)
                continue
            lit = required_literal(sig.pattern)
            lits = (lit,) if lit else alternative_literals(sig.pattern)
            if lits:
                self.literal[i] = lits
                for one in lits:
                    by_literal.setdefault(one, []).append(i)
        for lit, idxs in by_literal.items():
            automaton.add_word(lit, idxs)
        self._automaton = automaton if by_literal else None
        if self._automaton is not None:
            self._automaton.make_automaton()

    def __len__(self) -> int:
        return len(self.compiled)

    def prefilter(self, text: str) -> set[int]:
        """Signatures whose required literal occurs in ``text`` (any case)."""
        if self._automaton is None:
            return set()
        out: set[int] = set()
        for _, idxs in self._automaton.iter(text[:MAX_TEXT].lower()):
            out.update(idxs)
        return out

    def prefilter_many(self, texts: Sequence[str]) -> dict[int, set[int]]:
        """``prefilter`` for many texts in one automaton pass: {text index: sigs}."""
        if self._automaton is None or not texts:
            return {}
        starts: list[int] = []
        pos = 0
        chunks = []
        for t in texts:
            chunk = t[:MAX_TEXT].lower().replace("\n", " ")
            starts.append(pos)
            chunks.append(chunk)
            pos += len(chunk) + 1
        out: dict[int, set[int]] = {}
        for end, idxs in self._automaton.iter("\n".join(chunks)):
            k = bisect_right(starts, end) - 1
            out.setdefault(k, set()).update(idxs)
        return out

    def may_match(self, sig: int, lowered: str) -> bool:
        """False when ``lowered`` (a text in lower case) lacks the literal every match of the pattern contains."""
        literals = self.literal.get(sig)
        return literals is None or any(lit in lowered for lit in literals)

    def run(self, sig: int, text: str, deadline: float | None = None) -> tuple[tuple[int, int], dict[str, str]] | None:
        """Search one pattern in ``text``: (span, named captures) or None."""
        compiled = self.compiled.get(sig)
        if compiled is None or sig in self.disabled:
            return None
        budget = self.timeout
        if deadline is not None:
            budget = min(budget, deadline - time.perf_counter())
            if budget <= 0:
                return None
        try:
            m = compiled.search(text[:MAX_TEXT], timeout=budget)
        except TimeoutError:
            # A busy machine can stall one search past its budget; only a pattern that keeps
            # timing out (STRIKES times) is switched off for the life of the process.
            if budget >= self.timeout * 0.9:
                self.strikes[sig] = self.strikes.get(sig, 0) + 1
                if self.strikes[sig] >= STRIKES:
                    self.disabled.add(sig)
            return None
        if m is None:
            return None
        caps = {k: v.strip() for k, v in m.groupdict().items() if v is not None and v.strip()}
        return m.span(), caps
