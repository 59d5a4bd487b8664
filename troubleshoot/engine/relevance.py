"""Relevance of each article's whole text to a paste (BM25, in memory).

Symptoms are the exact messages an article knows; its causes, fixes and explanation name
the components, commands and concepts of the failure in many more words. A paste that
says a known failure in other words still shares those words, so this score is a signal
on every request, fused with the signature evidence in ranking (see :mod:`rank`).

The index is built once per set of articles; a query is the distinct informative words
of the paste's worst lines, so its cost does not grow with the paste. Plain Python.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from .automaton import STOPWORDS
from .condense import Template
from .normalize import PLACEHOLDER_RE

__all__ = ["Relevance", "tokens"]

K1 = 1.2
B = 0.75
QUERY_TERMS = 48
QUERY_TEMPLATES = 40

_WORD = re.compile(r"[a-z][a-z0-9_]{2,40}")
# words every failure message or article says: they tell nothing about which failure it is
_COMMON = frozenset(
    "error errors failed failure fail unable cannot could would should warning warn info debug kubernetes "
    "kubectl k8s get set see use using used the and for with from into this that there their when then what "
    "which while will not are was were has have had been being does did done how why you your our can may "
    "also only just more most some any all each other than such via per out new one two first last time "
    "code status message reason type name value true false none null nil yes http https www com io org "
    "describe logs log line lines output example run running".split()
)


def _stem(word: str) -> str:
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 4 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Lowercased, lightly stemmed words; placeholders (``<ip>``), numbers and stopwords dropped."""
    out = []
    for w in _WORD.findall(PLACEHOLDER_RE.sub(" ", text.lower())):
        if w in STOPWORDS or w in _COMMON:
            continue
        out.append(_stem(w))
    return out


class Relevance:
    """BM25 over one document per topic."""

    def __init__(self, documents: Mapping[str, str]):
        self.topics = list(documents)
        self.postings: dict[str, list[tuple[int, int]]] = {}
        lengths = []
        for i, topic in enumerate(self.topics):
            counts: dict[str, int] = {}
            words = tokens(documents[topic])
            lengths.append(len(words))
            for w in words:
                counts[w] = counts.get(w, 0) + 1
            for w, c in counts.items():
                self.postings.setdefault(w, []).append((i, c))
        self.lengths = lengths
        self.doc_terms = {topic: set() for topic in self.topics}
        for w, plist in self.postings.items():
            for doc, _ in plist:
                self.doc_terms[self.topics[doc]].add(w)
        n = len(self.topics)
        avg = (sum(lengths) / n) if n else 1.0
        self.norm = [K1 * (1 - B + B * (length / avg if avg else 1.0)) for length in lengths]
        self.idf = {w: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for w, p in self.postings.items()}
        # each posting's whole BM25 term, computed once: a query only adds them up
        self.weighted = {w: [(doc, self.idf[w] * tf * (K1 + 1) / (tf + self.norm[doc])) for doc, tf in plist]
                         for w, plist in self.postings.items() if self.idf[w]}

    def __len__(self) -> int:
        return len(self.topics)

    def query(self, templates: Sequence[Template], limit: int = QUERY_TERMS) -> list[str]:
        """The distinct words of the worst templates that some article knows, rarest first."""
        order = sorted(templates, key=lambda t: (-t.severity, t.first))[:QUERY_TEMPLATES]
        seen: dict[str, None] = {}
        for t in order:
            for w in tokens(t.norm[:2000]):
                if w in self.idf:
                    seen.setdefault(w, None)
        return sorted(seen, key=lambda w: -self.idf[w])[:limit]

    def scores(self, terms: Sequence[str]) -> dict[str, float]:
        """BM25 score per topic for ``terms`` (each counted once); topics sharing no term are absent."""
        acc: dict[int, float] = {}
        for w in terms:
            for doc, s in self.weighted.get(w, ()):
                acc[doc] = acc.get(doc, 0.0) + s
        return {self.topics[d]: s for d, s in acc.items()}

    def shared(self, topic: str, terms: Sequence[str], limit: int = 4) -> list[str]:
        """The query words this topic's text has, rarest first (to say why it was suggested)."""
        mine = self.doc_terms.get(topic)
        if not mine:
            return []
        return [w for w in terms if w in mine][:limit]
