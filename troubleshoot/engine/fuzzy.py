"""Near-miss matching with rapidfuzz, for wording that drifted between versions.

Kubernetes rewords messages now and then: ``node(s) had taint {k: v}, that
the pod didn't tolerate`` became ``node(s) had untolerated taint {k: v}``;
terminals cut words in two.  Exact phrases miss those; here each
signature's distinctive tokens are compared with the tokens of a line
using ``rapidfuzz.fuzz.ratio`` (so ``tolerate`` still meets
``untolerated``), weighted by IDF.

Cost stays bounded: only a capped list of candidate lines (error and
warning templates, lines with partial phrase hits) is examined, and for
each line only the few signatures sharing distinctive tokens with it
(found through an inverted index) are scored.
"""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz import fuzz, process

from .automaton import GATE_DF, STOPWORDS, PhraseIndex
from .normalize import PLACEHOLDER_RE

__all__ = ["FuzzyIndex", "line_tokens", "TOKEN_CUTOFF", "MIN_STRENGTH"]

# rapidfuzz ratio for two tokens to count as the same word: more than 80, because
# "config" vs "configmap" is exactly 80 and they are not the same word.
TOKEN_CUTOFF = 80.5
MIN_STRENGTH = 0.72  # weighted share of a signature's tokens needed for a fuzzy hit
MAX_LINE_TOKENS = 120
TRUSTED_SPECIFICITY = 0.5  # see FuzzyIndex.trusted
TRUSTED_TOKENS = 3
_STRIP = "()'.,:;{}[]\"=<>"
# Words of the log record around a message (logrus ``time=... level=error msg=...``, zap keys): they say
# nothing about the failure, so a signature's near misses are never judged on them.
_LOG_SCAFFOLD = frozenset({"time", "msg", "ts", "level", "caller", "logger", "message", "error", "err"})


def line_tokens(text: str) -> list[str]:
    """Words of a normalised line, placeholders and edge punctuation removed."""
    out = []
    for raw in PLACEHOLDER_RE.sub(" ", text).split():
        tok = raw.strip(_STRIP)
        if tok:
            out.append(tok)
    return out


class FuzzyIndex:
    """Inverted index from distinctive tokens to signatures, plus scoring."""

    def __init__(self, phrases: PhraseIndex):
        self.phrases = phrases
        self.tokens: list[list[tuple[str, float]]] = []
        self.mass: list[float] = []
        postings: dict[str, list[int]] = {}
        for info in phrases.sigs:
            seen: dict[str, float] = {}
            for frag in info.frags:
                if frag.value:
                    continue
                for tok in line_tokens(frag.text):
                    if (tok in STOPWORDS or tok in seen or not any(c.isalpha() for c in tok)
                            or tok.split("=", 1)[0] in _LOG_SCAFFOLD):
                        continue
                    seen[tok] = phrases.idf(tok)
            toks = list(seen.items())
            self.tokens.append(toks)
            self.mass.append(sum(w for _, w in toks))
            if len(toks) >= 2 or (toks and len(toks[0][0]) >= 8):
                for tok, _ in toks:
                    postings.setdefault(tok, []).append(info.index)
        # each kept token with its IDF, computed once here rather than per line
        self.postings = {t: (phrases.idf(t), s) for t, s in postings.items() if len(s) <= GATE_DF * 2}

    def candidates(self, toks: Iterable[str], limit: int = 8) -> list[int]:
        shared: dict[int, float] = {}
        postings, mass = self.postings, self.mass
        for tok in sorted(set(toks)):  # a fixed order: float sums must not depend on hash seeds
            entry = postings.get(tok)
            if entry is None:
                continue
            w, sigs = entry
            for sig in sigs:
                shared[sig] = shared.get(sig, 0.0) + w
        # Rounded: two signatures whose shared mass equals their whole mass tie at 1.0, but the float sums can
        # land on 0.9999999999999999 or 1.0 depending on the KB's word weights, which changed the kept six.
        ranked = [(round(m / mass[s], 9), s) for s, m in shared.items() if mass[s] > 0 and m / mass[s] >= 0.3]
        ranked.sort(key=lambda x: (-x[0], x[1]))
        return [s for _, s in ranked[:limit]]

    def trusted(self, sig: int, specificity: float) -> bool:
        """Whether a near miss on this signature may make an answer confident. A generic signature (few
        distinctive words, low specificity: "dial tcp ... connect: connection refused") nearly occurs in many
        unrelated long lines."""
        return specificity >= TRUSTED_SPECIFICITY and len(self.tokens[sig]) >= TRUSTED_TOKENS

    def strength(self, sig: int, toks: list[str]) -> float:
        """IDF-weighted share of the signature's tokens found (fuzzily) in ``toks``."""
        mine = self.tokens[sig]
        total = self.mass[sig]
        if not mine or total <= 0:
            return 0.0
        got = 0.0
        found = 0
        for tok, w in mine:
            best = process.extractOne(tok, toks, scorer=fuzz.ratio, score_cutoff=TOKEN_CUTOFF)
            if best is not None:
                got += w * best[1] / 100.0
                found += 1
        if found < min(2, len(mine)):
            return 0.0
        return got / total

    def match(
        self, norm_line: str, skip: set[int] | frozenset[int] = frozenset(), limit: int = 8
    ) -> list[tuple[int, float]]:
        """(signature, strength) for signatures that nearly occur in the line."""
        toks = line_tokens(norm_line)[:MAX_LINE_TOKENS]
        if len(toks) < 2:
            return []
        out = []
        for sig in self.candidates(toks, limit):
            if sig in skip:
                continue
            s = self.strength(sig, toks)
            if s >= MIN_STRENGTH:
                out.append((sig, s))
        return out
