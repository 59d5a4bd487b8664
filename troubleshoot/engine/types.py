"""Public data types of the symptom-matching engine.

Plain dataclasses: the Django side builds :class:`Signature` objects from the
knowledge base and reads :class:`MatchResult` back; :func:`distinct` folds the
translations of one symptom into one signature.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Signature", "TopicInfo", "Evidence", "ArticleMatch", "MatchResult", "Line", "CONFIDENCE_LEVELS", "distinct"]

CONFIDENCE_LEVELS = ("high", "medium", "low")


@dataclass(frozen=True)
class Signature:
    """One symptom of a KB article, as Kubernetes / AWS / tools print it."""

    key: str
    topic: str
    language: str
    text: str
    pattern: str | None = None
    weight: float = 1.0
    kind: str = ""
    cause: int | None = None
    when: tuple[tuple[str, str], ...] = ()  # structured conditions (field, regex); see engine.fields


def distinct(signatures: Iterable[Signature]) -> tuple[list[Signature], list[dict[str, str]], dict[str, set[str]]]:
    """The distinct symptoms of ``signatures``, each with its key per language, and each topic's languages.

    An article's translations list the same machine messages with the same patterns: matching each once
    halves the work, and the answer names the symptom's key in the language the reader gets."""
    out: list[Signature] = []
    keys: list[dict[str, str]] = []
    langs: dict[str, set[str]] = {}
    seen: dict[tuple, int] = {}
    for sig in signatures:
        langs.setdefault(sig.topic, set()).add(sig.language)
        same = (sig.topic, sig.text, sig.pattern, sig.weight, sig.kind, sig.cause, sig.when)
        if same in seen:
            keys[seen[same]].setdefault(sig.language, sig.key)
            continue
        seen[same] = len(out)
        out.append(sig)
        keys.append({sig.language: sig.key})
    return out, keys, langs


@dataclass(frozen=True)
class TopicInfo:
    """What the matcher knows of an article beyond its symptoms: the components it is written
    for (attribution) and its whole text (relevance)."""

    components: tuple[str, ...] = ()
    document: str = ""


@dataclass(frozen=True)
class Line:
    """One logical line of a paste after cleaning (see :mod:`reader`).

    ``number`` is the 1-based number of the first physical line it came
    from, ``text`` the cleaned text and ``raw`` the physical line(s) as
    pasted (used for severity detection). ``source`` names what printed it
    when the paste says so: a journal unit (``kubelet``), a klog file
    (``ipamd.go``), a JSON ``logger`` / ``caller`` / ``controller``, or the
    container of a ``kubectl logs --prefix`` / stern line, joined by spaces.
    """

    number: int
    text: str
    raw: str
    source: str = ""


@dataclass
class Evidence:
    line: int
    text: str
    symptom: str
    span: tuple[int, int]
    how: str  # "phrase" | "pattern" | "fields" | "fuzzy"


@dataclass
class ArticleMatch:
    topic: str
    language: str
    score: float
    confidence: str
    evidence: list[Evidence] = field(default_factory=list)
    captures: dict[str, str] = field(default_factory=dict)
    cause: int | None = None
    symptoms: list[str] = field(default_factory=list)
    why: list[str] = field(default_factory=list)  # why it was suggested, in words


@dataclass
class MatchResult:
    matches: list[ArticleMatch] = field(default_factory=list)
    best: ArticleMatch | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)  # what the structured fields say, in words
    components: list[str] = field(default_factory=list)  # components the paste is about, most frequent first
