"""Phrase index: one Aho-Corasick automaton over every signature's anchors.

Each signature's normalised text is cut into *anchor phrases*: pieces
between placeholders (``<num>``, ``<ip>`` ...) and punctuation, long pieces
split into runs of a few words.  Pieces inside ``{...}`` or ``"..."`` are
*values* (the editor's example taint, label, nodepool name ...) and weigh
less.  Pieces made only of generic words (``nodes are available``,
``preemption is not helpful for scheduling`` ...) or of words present in a
large share of all articles are dropped, so a hit on them proves nothing.

Every token gets an IDF weight computed over topics (articles); a
fragment's weight is the sum of its tokens' IDF.  A signature's *coverage*
in a region of text is the weight of the fragments found, in signature
order, over the weight of all its fragments (1.0 when the whole normalised
signature is found verbatim).  The automaton is built once; scanning costs
O(text) plus the number of hits, whatever the number of signatures.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import ahocorasick

from .normalize import normalize
from .types import Signature

__all__ = ["PhraseIndex", "SigInfo", "Fragment", "Hit", "fragments", "runs", "GENERIC_PHRASES", "STOPWORDS"]

GENERIC_PHRASES = frozenset(
    {
        "nodes are available",
        "node(s) are available",
        "preemption",
        "preemption is not helpful for scheduling",
        "no preemption victims found for incoming pod",
        "back-off restarting failed container",
        "error",
        "errors",
        "failed",
        "warning",
        "fatal",
        "panic",
        "runtime error",
        "reconciler error",
        "an error occurred",
        "error occurred",
        "status code",
        "exit code",
        "request id",
        "requestid",
        "operation error",
        "https response error",
        "api error",
        "retrying",
        "context deadline exceeded",
        # language runtimes: every program can print these
        "invalid memory address or nil pointer dereference",
        "segmentation violation",
        "signal sigsegv",
        "goroutine",
        "index out of range",
        "traceback (most recent call last)",
        "exception in thread",
        "java.lang.nullpointerexception",
        "npm err!",
    }
)
STOPWORDS = frozenset(
    "a an the of to in on for and or is are was were be been by at as that this these it its "
    "from with not no yes true false nil null none all any into than then there their your you code addr pc "
    "we our has have had do does did can will would should could may might must so if else "
    # the keys of log formats (logfmt, JSON, zap): every logger prints them
    "time ts level lvl msg caller logger severity".split()
)
VALUE_WEIGHT = 0.35  # share of an example value (inside {} or "") in the coverage
MAX_RUN = 6  # fragments longer than this many tokens are split into runs of RUN tokens
RUN = 4
WEAK_ALONE = 0.2  # specificity at or below which a one-word signature nominates nothing
GATE_DF = 64  # a key shared by more topics than this cannot nominate a candidate
SPEC_MASS = 1.2  # IDF mass (in rare-word units) a signature needs for full specificity
GENERIC_TOPIC_SHARE = 0.4  # a token in more than this share of topics is generic (N >= 20)
CHAIN_FLOOR = 0.34  # the matcher ignores coverage below this (rank.MIN_COVERAGE): no need to order it
KEY_MISSING = 0.6  # coverage factor when the fragment with the signature's rarest word is not there
PARTIAL = 0.85  # below this coverage a line is "partly matched" (the fuzzy stage looks at it first)
KEY_FLOOR = 0.35  # ... but not below this (just above the matcher's MIN_COVERAGE)

_SEP = re.compile(
    r"\b(?:time|ts|level|lvl|msg|caller|logger)=|<[a-z]+>|[{}\[\]\"|]|[,;:!?=]+(?=\s|$)|\.+(?=\s|$)|(?:^|\s)\(|(?<!\([a-z])\)(?=\s|$|[,.;:])|\s-\s|\s'|'(?=\s|$)|\s/\s"
)
_TRIM = " .,;:'-*/\\="


@dataclass(frozen=True)
class Fragment:
    text: str
    value: bool
    weight: float = 0.0
    key: int = -1


@dataclass
class SigInfo:
    index: int
    norm: str
    frags: list[Fragment] = field(default_factory=list)
    total: float = 0.0
    specificity: float = 1.0
    generic: bool = False
    key_pos: int = -1  # the fragment holding its rarest word: without it a partial hit proves little


@dataclass(frozen=True)
class Hit:
    key: int
    start: int
    end: int  # exclusive


def _trim(piece: str) -> str:
    piece = piece.strip(_TRIM)
    while piece.endswith(")") and piece.count("(") < piece.count(")"):
        piece = piece[:-1].rstrip(_TRIM)
    while piece.startswith("(") and piece.count("(") > piece.count(")"):
        piece = piece[1:].lstrip(_TRIM)
    return piece


def fragments(norm: str) -> list[tuple[str, bool]]:
    """Split a normalised signature into (piece, is_value) candidates."""
    out: list[tuple[str, bool]] = []
    depth = 0
    in_quote = False
    pos = 0

    def emit(chunk: str) -> None:
        piece = _trim(chunk)
        if piece:
            out.append((piece, depth > 0 or in_quote))

    for m in _SEP.finditer(norm):
        emit(norm[pos : m.start()])
        sep = m.group(0)
        if sep == "{" or sep == "[":
            depth += 1
        elif sep in ("}", "]"):
            depth = max(0, depth - 1)
        elif sep == '"':
            in_quote = not in_quote
        pos = m.end()
    emit(norm[pos:])
    return out


_TOKEN_STRIP = "()'.,:;{}[]\"=<>"


def runs(piece: str) -> list[str]:
    """A long piece as runs of a few words (robust to a reworded clause)."""
    tokens = piece.split()
    if len(tokens) <= MAX_RUN:
        return [piece]
    parts = [tokens[i : i + RUN] for i in range(0, len(tokens), RUN)]
    if len(parts) > 1 and len(parts[-1]) < 2:
        parts[-2].extend(parts.pop())
    return [" ".join(p) for p in parts]


def _tokens(piece: str) -> list[str]:
    return [t.strip(_TOKEN_STRIP) for t in piece.split() if t.strip(_TOKEN_STRIP)]


def _useful(piece: str) -> bool:
    toks = _tokens(piece)
    content = [t for t in toks if t not in STOPWORDS and any(c.isalpha() for c in t)]
    if not content:
        return False
    return not (len(toks) == 1 and len(piece) < 4)


class PhraseIndex:
    """Anchors of all signatures in one automaton, with IDF weights."""

    def __init__(self, signatures: Sequence[Signature], generic_phrases: Iterable[str] = GENERIC_PHRASES):
        self.generic = frozenset(generic_phrases)
        self._generic_order = sorted(self.generic, key=lambda p: (-len(p), p))
        self.sigs: list[SigInfo] = []
        self.key_text: list[str] = []
        self.key_frags: list[list[tuple[int, int, float]]] = []  # (sig index, fragment position, weight)
        self.key_full: list[list[int]] = []  # signatures whose whole text this key is
        self._key_id: dict[str, int] = {}
        norms = [normalize(s.text) for s in signatures]
        split = [fragments(n) for n in norms]
        pieces = [[(r, v) for p, v in f if not self._generic(p) for r in runs(p) if _useful(r)] for f in split]
        generic_pieces = [[(r, v) for p, v in f if self._generic(p) for r in runs(p) if _useful(r)] for f in split]

        topic_tokens: dict[str, set[str]] = {}
        for sig, plist in zip(signatures, pieces):
            bag = topic_tokens.setdefault(sig.topic, set())
            for p, _ in plist:
                bag.update(_tokens(p))
        n_topics = max(1, len(topic_tokens))
        df: dict[str, int] = {}
        for bag in topic_tokens.values():
            for tok in bag:
                df[tok] = df.get(tok, 0) + 1
        self.n_topics = n_topics
        self.idf_max = math.log(1.0 + n_topics)
        self._df = df
        generic_tokens = {t for t, d in df.items() if d > GENERIC_TOPIC_SHARE * n_topics} if n_topics >= 20 else set()

        def idf(tok: str) -> float:
            w = math.log(1.0 + n_topics / df.get(tok, 1))
            return w * 0.1 if tok in STOPWORDS or tok in generic_tokens else w

        topic_of_key: list[set[str]] = []
        for i, (sig, norm, plist, glist) in enumerate(zip(signatures, norms, pieces, generic_pieces)):
            info = SigInfo(i, norm)
            keep: list[tuple[str, bool]] = []
            for p, value in plist:
                toks = [t for t in _tokens(p) if t not in STOPWORDS]
                if p in self.generic or all(t in generic_tokens for t in toks):
                    continue
                keep.append((p, value))
            if not keep:  # nothing distinctive: match on the generic pieces, flag it
                info.generic = True
                keep = plist or glist
            spec_num = spec_den = 0.0
            seen_tokens: set[str] = set()
            for p, value in keep:
                toks = _tokens(p)
                w = sum(idf(t) for t in toks) * (VALUE_WEIGHT if value else 1.0)
                kid = self._key(p, topic_of_key)
                topic_of_key[kid].add(sig.topic)
                self.key_frags[kid].append((i, len(info.frags), w))
                info.frags.append(Fragment(p, value, w, kid))
                if not value:
                    for t in toks:
                        if t not in STOPWORDS and t not in seen_tokens:
                            seen_tokens.add(t)
                            spec_num += idf(t) / self.idf_max
                            spec_den += 1
            info.total = sum(f.weight for f in info.frags)
            rarest = -1.0
            for pos, f in enumerate(info.frags):
                if f.value:
                    continue
                top = max((idf(t) for t in _tokens(f.text) if t not in STOPWORDS), default=0.0)
                if top > rarest:
                    rarest, info.key_pos = top, pos
            # mean rarity of its words, scaled down when it has little content at all
            info.specificity = (spec_num / spec_den) * min(1.0, spec_num / SPEC_MASS) if spec_den else 0.2
            if info.generic:
                info.specificity *= 0.5
            if len(info.frags) == 1 and len(_tokens(info.frags[0].text)) == 1 and info.specificity <= WEAK_ALONE:
                # all that is left of it is one quoted word ('"nodegroups": []' -> nodegroups, '... [recovered]'):
                # that word in any line is no sign of this symptom, so it nominates nothing (a pattern still may)
                kid = info.frags[0].key
                self.key_frags[kid] = [e for e in self.key_frags[kid] if e[0] != i]
            if len(norm) >= 8:
                kid = self._key(norm, topic_of_key)
                topic_of_key[kid].add(sig.topic)
                self.key_full[kid].append(i)
            self.sigs.append(info)
        # the signatures a key nominates, as one set (candidates() unions these per hit); a key shared by
        # more than GATE_DF topics nominates none
        self.key_sigs = [frozenset(s for s, _, _ in frags) if len(topics) <= GATE_DF else frozenset()
                         for frags, topics in zip(self.key_frags, topic_of_key)]
        self._automaton = ahocorasick.Automaton()
        for text, kid in self._key_id.items():
            self._automaton.add_word(text, kid)
        if self._key_id:
            self._automaton.make_automaton()

    def _generic(self, piece: str) -> bool:
        """Nothing useful left once the generic phrases are taken out?"""
        if piece in self.generic:
            return True
        rest = piece
        for phrase in self._generic_order:  # longest first: the result must not depend on set order
            if phrase in rest:
                rest = rest.replace(phrase, " ")
        return rest != piece and not _useful(rest.strip(_TRIM))

    def _key(self, text: str, topics: list[set[str]]) -> int:
        kid = self._key_id.get(text)
        if kid is None:
            kid = self._key_id[text] = len(self.key_text)
            self.key_text.append(text)
            self.key_frags.append([])
            self.key_full.append([])
            topics.append(set())
        return kid

    def idf(self, token: str) -> float:
        """Normalised IDF (0..1] of a token across topics; unseen tokens get 1."""
        tok = token.strip(_TOKEN_STRIP)
        return math.log(1.0 + self.n_topics / self._df.get(tok, 1)) / self.idf_max

    # ------------------------------------------------------------- scanning

    def scan(self, text: str) -> list[Hit]:
        """All anchor occurrences in ``text`` that sit on word boundaries."""
        if not self._key_id or not text:
            return []
        hits: list[Hit] = []
        keys = self.key_text
        n = len(text)
        for end, kid in self._automaton.iter(text):
            key = keys[kid]
            start = end - len(key) + 1
            if start > 0 and key[0].isalnum() and text[start - 1].isalnum():
                continue
            if end + 1 < n and key[-1].isalnum() and text[end + 1].isalnum():
                continue
            hits.append(Hit(kid, start, end + 1))
        return hits

    def candidates(self, hits: Sequence[Hit]) -> dict[int, float]:
        """Coverage (0..1) of every signature nominated by ``hits`` in one region."""
        return self.covered(hits, 0.0)[0]

    def covered(self, hits: Sequence[Hit], floor: float) -> tuple[dict[int, float], bool]:
        """Coverage of the nominated signatures that reach ``floor``, and whether any nominated
        signature is only partly covered (below ``PARTIAL``): the matcher looks again at such a line."""
        keys = {h.key for h in hits}
        nominated: set[int] = set()
        full: set[int] = set()
        key_full, key_sigs = self.key_full, self.key_sigs
        for k in keys:
            if key_full[k]:
                full.update(key_full[k])
            if key_sigs[k]:
                nominated |= key_sigs[k]
        out = {s: 1.0 for s in full}
        pending = nominated - full
        if not pending:
            return out, False
        key_frags, sigs = self.key_frags, self.sigs
        # first the weight of the distinct fragments found, per signature (each key is one fragment position
        # of a signature): below the floor the chain cannot matter and is not built
        upper = dict.fromkeys(pending, 0.0)
        for k in keys:
            for s, _, w in key_frags[k]:
                if s in upper:
                    upper[s] += w
        chained: set[int] = set()
        partial = False
        for s, weight in upper.items():
            info = sigs[s]
            if info.total <= 0:
                continue
            if weight / info.total < CHAIN_FLOOR:
                partial = True
                if weight / info.total >= floor:
                    out[s] = weight / info.total
            else:
                chained.add(s)
        if not chained:
            return out, partial
        per_sig: dict[int, list[tuple[int, int, float]]] = {}
        for h in hits:
            for s, pos, w in key_frags[h.key]:
                if s in chained:
                    per_sig.setdefault(s, []).append((h.start, pos, w))
        for s, items in per_sig.items():
            info = sigs[s]
            cov = min(1.0, _chain(items) / info.total)
            if info.key_pos >= 0 and all(pos != info.key_pos for _, pos, _ in items):
                # "Last State: Terminated ... Exit Code" without "OOMKilled": weak, but still support
                # for the article's patterns (which may accept the variant: "Insufficient memory")
                cov = max(cov * KEY_MISSING, min(cov, KEY_FLOOR))
            partial = partial or cov < PARTIAL
            if cov >= floor:
                out[s] = cov
        return out, partial


def _chain(items: list[tuple[int, int, float]], cap: int = 48) -> float:
    """Heaviest subsequence increasing both in text position and fragment order."""
    items = sorted(set(items))[:cap]
    best: list[float] = []
    top = 0.0
    for i, (pos_i, frag_i, w_i) in enumerate(items):
        b = w_i
        for j in range(i):
            pos_j, frag_j, _ = items[j]
            if pos_j < pos_i and frag_j < frag_i and best[j] + w_i > b:
                b = best[j] + w_i
        best.append(b)
        top = max(top, b)
    return top
