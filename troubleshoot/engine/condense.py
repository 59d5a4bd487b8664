"""Fold repeated lines into templates and grade each by severity.

A paste of megabytes is mostly the same few messages repeated with
different timestamps and ids; after :func:`normalize` they collapse to a
handful of templates.  Matching then runs once per template, never per
physical line, and nothing is ever cut off: the last line of a 5 MB paste
is a template like any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .types import Line

__all__ = [
    "Template",
    "condense",
    "severity",
    "severity_weight",
    "query_text",
    "ERROR",
    "WARNING",
    "NEUTRAL",
    "INFO",
    "KEEP_LINES",
]

ERROR, WARNING, NEUTRAL, INFO = 3, 2, 1, 0
KEEP_LINES = 5  # line indices remembered per template (for evidence)

_WEIGHT = {ERROR: 1.0, WARNING: 1.0, NEUTRAL: 0.93, INFO: 0.82}

_LEVEL_FIELD = re.compile(r"""(?:\blevel|\blvl|\bseverity)["']?\s*[=:]\s*["']?(\w+)""", re.IGNORECASE)
_KLOG = re.compile(r"^\s*(?:\S+\s+)?([IWEF])\d{4} \d{1,2}:\d{2}:\d{2}")
_LEAD = re.compile(
    r"^\s*(?:\S+\s+){0,2}?\[?(ERROR|ERR|FATAL|CRITICAL|PANIC|WARN|WARNING|INFO|DEBUG|TRACE|Warning|Normal)\]?\b"
)
_ERRORISH = re.compile(
    r"\b(?:error|errors|fatal|panic|exception|failed|failure|fails|denied|unauthorized|"
    r"forbidden|oomkilled|crashloopbackoff|imagepullbackoff|errimagepull|refused|"
    r"timed out|unable|cannot|can't|couldn't|could not|invalid|insufficient|"
    r"exceeded|killed|unhealthy|not ready|notready|evicted)\b",
    re.IGNORECASE,
)
_WARNISH = re.compile(r"\b(?:warn|warning|back-off|backoff|retry|retrying|deprecated)\b", re.IGNORECASE)
_LEVELS = {
    "error": ERROR,
    "err": ERROR,
    "fatal": ERROR,
    "panic": ERROR,
    "dpanic": ERROR,
    "critical": ERROR,
    "crit": ERROR,
    "alert": ERROR,
    "emerg": ERROR,
    "e": ERROR,
    "f": ERROR,
    "warn": WARNING,
    "warning": WARNING,
    "w": WARNING,
    "info": INFO,
    "debug": INFO,
    "trace": INFO,
    "i": INFO,
    "notice": INFO,
    "normal": INFO,
}


def severity(raw: str, text: str = "") -> int:
    """Grade a line: ERROR (3), WARNING (2), NEUTRAL (1) or INFO/DEBUG (0).

    An explicit level (klog letter, ``level=``, JSON ``"level"``, a leading
    ``ERROR``/``Warning``/``Normal`` token) wins; otherwise keywords decide.
    """
    head = raw[:400]
    if m := _KLOG.match(head):
        return _LEVELS[m.group(1).lower()]
    if m := _LEVEL_FIELD.search(head):
        level = _LEVELS.get(m.group(1).lower())
        if level is not None:
            return level
    if m := _LEAD.match(head):
        if m.group(1) == "Normal" and _ERRORISH.search(text or raw):
            # an event of type Normal that reports a failure (NotTriggerScaleUp ... after failed scale-up,
            # a Normal event written by a controller for its own retries): not routine chatter
            return NEUTRAL
        return _LEVELS.get(m.group(1).lower(), NEUTRAL) if m.group(1) != "ERR" else ERROR
    body = text or raw
    if body.startswith(("Error:", "error:", "panic:", "FATAL", "fatal:")):
        return ERROR
    if _ERRORISH.search(body):
        return ERROR
    if _WARNISH.search(body):
        return WARNING
    return NEUTRAL


def severity_weight(level: int) -> float:
    return _WEIGHT.get(level, 0.93)


@dataclass
class Template:
    """All lines that normalise to the same text."""

    norm: str
    count: int = 0
    lines: list[int] = field(default_factory=list)  # indices into the Line list
    severity: int = NEUTRAL
    last: int = 0  # index of the last occurrence

    @property
    def first(self) -> int:
        return self.lines[0]


def condense(lines: Sequence[Line], norms: Sequence[str], keep: int = KEEP_LINES) -> list[Template]:
    """Group ``lines`` by their normalised text, in order of first appearance."""
    by_norm: dict[str, Template] = {}
    sev_cache: dict[str, int] = {}
    for i, (line, norm) in enumerate(zip(lines, norms)):
        if not norm:
            continue
        t = by_norm.get(norm)
        if t is None:
            t = by_norm[norm] = Template(norm)
        t.count += 1
        t.last = i
        if len(t.lines) < keep:
            t.lines.append(i)
            key = line.raw[:400]
            level = sev_cache.get(key)
            if level is None:
                level = sev_cache[key] = severity(line.raw, line.text)
            if level > t.severity or t.count == 1:
                t.severity = max(level, t.severity) if t.count > 1 else level
    return list(by_norm.values())


def query_text(templates: Sequence[Template], lines: Sequence[Line], max_chars: int = 2000) -> str:
    """A bounded digest of the paste for full-text recall: worst lines first."""
    order = sorted(templates, key=lambda t: (-t.severity, t.first))
    parts: list[str] = []
    size = 0
    for t in order:
        text = lines[t.first].text.strip()
        if not text:
            continue
        parts.append(text[:500])
        size += len(parts[-1]) + 1
        if size >= max_chars:
            break
    return "\n".join(parts)[:max_chars]
