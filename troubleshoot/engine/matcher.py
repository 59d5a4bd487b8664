"""The symptom-matching engine: paste in, ranked KB articles with evidence out.

Pipeline (each stage is its own module)::

    read -> normalize -> condense -> regions (windows) -> phrases (Aho-Corasick)
         -> patterns -> fields -> fuzzy -> rank

Everything that depends on the signatures is built once in
``Matcher.__init__``; ``match`` costs time proportional to the paste (after
condensing), not to the number of signatures.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from .attribution import agrees, conflicts, owners, specific, who
from .automaton import GENERIC_PHRASES, PhraseIndex
from .condense import INFO, WARNING, Template, condense, query_text
from .evidence import Locator, anchor, region_text
from .explain import describe, why
from .fields import Fields, components_of
from .fuzzy import FuzzyIndex
from .normalize import normalize_cached
from .patterns import PatternSet, redacted
from .rank import (
    AGREE_BONUS,
    MEDIUM,
    MIN_COVERAGE,
    MIN_SCORE,
    NODE_BONUS,
    OWNER_BONUS,
    REL_ONLY_MIN,
    STRONG_FUZZY,
    SymptomHit,
    article_score,
    confidence,
    discount_resolved_scheduling,
    fuse,
    fuzzy_cap,
    node_share,
    pick_language,
    relevance_only,
    symptom_score,
)
from .reader import read
from .regions import Window, cut_windows
from .relevance import Relevance
from .rules import FieldRules, template_fields
from .types import ArticleMatch, Evidence, Line, MatchResult, Signature, TopicInfo, distinct

__all__ = ["Matcher", "Recall"]

Recall = Callable[[str, int], list[tuple[str, float]]]

PATTERN_BUDGET = 1.0  # seconds of pattern time per request (a guard, not a target: load must not skip patterns)
MAX_PATTERN_RUNS = 2000
FUZZY_LINES = 120
FIELD_LINES = 300  # templates whose structured fields are read (most severe first)
FIELD_STRENGTH = 0.95  # a symptom whose structured conditions all hold: as good as a pattern hit
FIELD_STRENGTH_BROAD = 0.85  # ... when they only say what kind of message it is (see rules.BROAD)
MAX_EVIDENCE = 6
PATTERN_MISS = 0.8  # strength factor of a phrase hit whose symptom's own pattern fails on its text
PATTERN_MISS_BY_SEVERITY = {INFO: 0.7}  # ... lower on an info/debug line: a failure's words in a routine message


@dataclass
class _Context:
    """Paste-wide signals used in ranking: article-text relevance and who printed / was denied."""

    rel: dict[str, float]
    terms: list[str]
    who: list[str]
    components: list[str]
    who_at: dict[int, set[str]]  # line -> who printed it or was denied on it

    def rel_share(self, topic: str) -> float:
        top = max(self.rel.values(), default=0.0)
        return self.rel.get(topic, 0.0) / top if top > 0 else 0.0


class Matcher:
    """Match pastes against a fixed set of :class:`Signature`."""

    def __init__(
        self,
        signatures: Iterable[Signature],
        *,
        topics: Mapping[str, TopicInfo] | None = None,
        pattern_timeout: float = 0.1,
        generic_phrases: Iterable[str] = GENERIC_PHRASES,
    ):
        # a topic's translations carry the same machine messages: each is matched once (see types.distinct)
        self.signatures, self._keys, self.topic_langs = distinct(signatures)
        topics = topics or {}
        named: dict[str, list[str]] = {}
        for sig in self.signatures:
            named.setdefault(sig.topic, []).extend(components_of(sig.text[:400]))
        self.topic_owners = {t: owners(t, info.components, named.get(t, ())) for t, info in topics.items()}
        self.topic_components = {t: specific(info.components) for t, info in topics.items()}
        self.relevance = Relevance({t: info.document for t, info in topics.items() if info.document})
        self.phrases = PhraseIndex(self.signatures, generic_phrases)
        self.patterns = PatternSet(self.signatures, timeout=pattern_timeout)
        self.fuzzy = FuzzyIndex(self.phrases)
        self.rules = FieldRules(self.signatures, timeout=pattern_timeout)
        self.topic_patterns: dict[str, list[int]] = {}
        for i, sig in enumerate(self.signatures):
            if i in self.patterns.compiled:
                self.topic_patterns.setdefault(sig.topic, []).append(i)
        self.locator = Locator(self.signatures, self.phrases)

    # ------------------------------------------------------------------ API

    def match(self, text: str | bytes, *, limit: int = 5, language: str = "en",
              recall: Recall | None = None) -> MatchResult:
        t0 = time.perf_counter()
        lines = read(text)
        norms = [normalize_cached(line.text) for line in lines]
        templates = condense(lines, norms)
        tmpl_of = {t.norm: i for i, t in enumerate(templates)}
        windows = cut_windows(lines, norms)
        best, partial = self._phrases(lines, norms, templates, windows, tmpl_of)
        self._patterns(lines, templates, windows, best)
        per_template, paste = template_fields(lines, templates, FIELD_LINES)
        self._fields(lines, templates, per_template, paste, best)
        self._fuzzy(templates, best, partial)
        discount_resolved_scheduling([line.text for line in lines], best.values())
        terms = self.relevance.query(templates) if len(self.relevance) else []
        who_at = {templates[i].first: set(who([f])) for i, f in enumerate(per_template) if f}
        context = _Context(self.relevance.scores(terms), terms, who(per_template), paste.get("component", []), who_at)
        matches = self._rank(lines, best, limit, language, context)
        stats: dict[str, object] = {"lines": lines[-1].number + lines[-1].raw.count("\n") if lines else 0,
                                    "logical_lines": len(lines), "templates": len(templates),
                                    "windows": len(windows), "symptoms": len(best)}
        if not matches and recall is not None:
            matches = self._recall(recall, query_text(templates, lines), limit, language, stats)
        top = matches[0] if matches else None
        stats["ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        return MatchResult(
            matches=matches,
            best=top if top is not None and top.confidence in ("high", "medium") else None,
            stats=stats,
            read=describe([f for f in per_template if f], paste.get("component", [])),
            components=list(paste.get("component", [])),
        )

    # --------------------------------------------------------------- stages

    def _phrases(
        self,
        lines: Sequence[Line],
        norms: Sequence[str],
        templates: Sequence[Template],
        windows: Sequence[Window],
        tmpl_of: dict[str, int],
    ) -> tuple[dict[int, SymptomHit], set[int]]:
        parts = [t.norm for t in templates] + [w.norm for w in windows]
        starts: list[int] = []
        pos = 0
        for p in parts:
            starts.append(pos)
            pos += len(p) + 1
        by_region: dict[int, list] = {}
        for h in self.phrases.scan("\n".join(parts)):
            by_region.setdefault(bisect_right(starts, h.start) - 1, []).append(h)
        best: dict[int, SymptomHit] = {}
        partial: set[int] = set()
        n_t = len(templates)
        for region, hits in by_region.items():
            if region < n_t:
                t = templates[region]
                first, size, sev = t.first, 1, t.severity
            else:
                w = windows[region - n_t]
                first, size = w.first, w.size
                # hits all inside one of its lines: that line's own region already gave the same coverage
                edge, ends = starts[region], []
                for k in range(first, first + size):
                    edge += len(norms[k]) + 1
                    ends.append(edge)
                lo, hi = min(h.start for h in hits), max(h.end for h in hits) - 1
                if bisect_right(ends, lo) == bisect_right(ends, hi):
                    continue
                sev = max(templates[tmpl_of[norms[k]]].severity for k in range(first, first + size))
            found, part = self.phrases.covered(hits, MIN_COVERAGE)
            if part and region < n_t:
                partial.add(region)
            for sig, cov in found.items():
                old = best.get(sig)
                if old is None or (cov, -size, sev, -first) > (old.strength, -old.window, old.severity, -old.line):
                    best[sig] = SymptomHit(sig, cov, "phrase", region, first, sev, window=size)
        return best, partial

    def _patterns(self, lines: Sequence[Line], templates: Sequence[Template], windows: Sequence[Window],
                  best: dict[int, SymptomHit]) -> None:
        if not len(self.patterns):
            return
        deadline = time.perf_counter() + PATTERN_BUDGET
        todo: list[tuple[int, int, str, int, int]] = []  # (sig, line idx, text, severity, size)
        hit_topics = {self.signatures[s].topic for s in best}
        for sig in sorted(best, key=lambda s: (-best[s].strength, s)):
            hit, others = best[sig], self.topic_patterns.get(self.signatures[sig].topic, ())
            text = region_text(lines, hit) if others else ""
            lowered = text.lower()  # a pattern whose required literal is absent cannot match: not searched
            for other in others:
                if (other not in best or best[other].how != "pattern") and self.patterns.may_match(other, lowered):
                    todo.append((other, hit.line, text, hit.severity, hit.window))
        samples = [lines[t.first].text for t in templates]
        for ti, sigs in sorted(self.patterns.prefilter_many(samples).items()):
            t = templates[ti]
            for sig in sorted(sigs):
                todo.append((sig, t.first, samples[ti], t.severity, 1))
        done: set[tuple[int, int]] = set()
        runs = 0
        for sig, line, text, sev, size in todo:
            if (sig, line) in done or runs >= MAX_PATTERN_RUNS:
                continue
            done.add((sig, line))
            runs += 1
            found = self.patterns.run(sig, text, deadline)
            if found is None:
                continue
            span, caps = found
            old = best.get(sig)
            if old is not None and old.how == "pattern":
                continue
            if size > 1:  # a match inside one line of a window is that line's
                line, size, text, span = anchor(lines, line, size, text, span)
            base = old.strength if old is not None else 0.0
            strength = min(1.0, max(base, 0.8) + 0.15)
            if old is None and self.signatures[sig].topic not in hit_topics:
                strength = min(strength, 0.9)  # literal prefilter only, no phrase support
            best[sig] = SymptomHit(sig, strength, "pattern", -1, line, sev, span, text, caps, size)
        # a phrase hit still standing on a symptom with a pattern: the pattern failed (or its literal is absent)
        for hit in [h for sig, h in sorted(best.items()) if h.how == "phrase" and sig in self.patterns.compiled]:
            # the reader's text lost what the pattern reads (a JSON field, a klog header): try the line as pasted
            raw = " ".join(lines[k].raw.strip() for k in range(hit.line, hit.line + hit.window))
            if raw != region_text(lines, hit).strip() and (found := self.patterns.run(hit.sig, raw, deadline)):
                best[hit.sig] = SymptomHit(hit.sig, min(1.0, max(hit.strength, 0.8) + 0.15), "pattern", -1, hit.line,
                                           hit.severity, found[0], raw, found[1], hit.window)
            else:  # the words are there but not the message its article defines (unless a value was masked)
                hit.strength *= 1.0 if redacted(raw) else PATTERN_MISS_BY_SEVERITY.get(hit.severity, PATTERN_MISS)

    def _fields(self, lines: Sequence[Line], templates: Sequence[Template], per_template: Sequence[Fields],
                paste: Fields, best: dict[int, SymptomHit]) -> None:
        if not len(self.rules):
            return
        held: set[int] = set()
        for hit in self.rules.match(per_template, paste):
            held.add(hit.sig)
            t = templates[hit.template]
            old = best.get(hit.sig)
            strength = FIELD_STRENGTH_BROAD if hit.broad else FIELD_STRENGTH
            if old is not None and (old.how == "pattern" or old.strength >= strength):
                if old.how == "pattern":
                    for k, v in hit.captures.items():
                        old.captures.setdefault(k, v)
                continue
            text = lines[t.first].text
            best[hit.sig] = SymptomHit(hit.sig, strength, "fields", hit.template, t.first, t.severity,
                                       (0, len(text)), text, dict(hit.captures))
        for sig in self.rules.conditioned - held:  # its words without the fields its article names: a near variant
            if sig in best and best[sig].how == "phrase" and sig not in self.patterns.compiled:
                best[sig].strength *= PATTERN_MISS

    def _fuzzy(self, templates: Sequence[Template], best: dict[int, SymptomHit], partial: set[int]) -> None:
        order = sorted(
            range(len(templates)),
            key=lambda i: (i not in partial, templates[i].severity < WARNING, -templates[i].severity, i),
        )[:FUZZY_LINES]
        done = {s for s, h in best.items() if h.strength >= 0.8}
        for ti in order:
            t = templates[ti]
            for sig, f in self.fuzzy.match(t.norm[:3000], skip=done, limit=6):
                strength = 0.85 * f
                old = best.get(sig)
                if old is None or strength > old.strength:
                    best[sig] = SymptomHit(sig, strength, "fuzzy", ti, t.first, t.severity)

    # -------------------------------------------------------------- ranking

    def _rank(
        self,
        lines: Sequence[Line],
        best: dict[int, SymptomHit],
        limit: int,
        language: str,
        ctx: _Context,
    ) -> list[ArticleMatch]:
        per_topic: dict[str, list[tuple[float, SymptomHit]]] = {}
        for sig, hit in best.items():
            s = self.signatures[sig]
            info = self.phrases.sigs[sig]
            score = symptom_score(hit.strength, s.weight, info.specificity, hit.severity, info.generic)
            per_topic.setdefault(s.topic, []).append((score, hit))
        rough = []
        for topic, scored in per_topic.items():
            scored.sort(key=lambda x: (-x[0], x[1].line, x[1].sig))
            fuzzy_only = all(h.how == "fuzzy" for _, h in scored)
            fuzzy_strength = max(self._fuzzy_weight(h) for _, h in scored)
            # a near miss on a line the reader glued back from a wrap may be lifted like any answer; elsewhere it is
            # another wording, and what the paste names does not make it confident
            glued = fuzzy_only and any("\n" in lines[h.line].raw for _, h in scored)
            cap = 1.0 if glued else fuzzy_cap(fuzzy_only, fuzzy_strength)
            score = article_score([(s, h.line) for s, h in scored], 0.0, fuzzy_only, fuzzy_strength)
            score = fuse(score, ctx.rel_share(topic), self._conflict(topic, ctx), self._bonus(topic, ctx, scored[0][1]),
                         cap)
            if score >= MIN_SCORE:
                spec = self.phrases.sigs[scored[0][1].sig].specificity
                rough.append((score, spec, topic, scored, fuzzy_only, fuzzy_strength, cap))
        rough.sort(key=lambda r: (-r[0], -r[1], r[2]))
        # final scores first (the node bonus needs only the top hit's evidence), then the full evidence of the
        # articles that are returned
        final: list[tuple[float, float, str, ArticleMatch | tuple]] = []  # a tuple: _answer's arguments
        for score, spec, topic, scored, fuzzy_only, fuzzy_strength, cap in rough[: max(limit * 3, limit + 5)]:
            bonus, top_evidence = 0.0, None  # the evidence is kept for the answer, which would locate it again
            if score >= MEDIUM:
                top_evidence = self.locator.evidence(lines, scored[0][1])
                share = node_share(top_evidence[0].text, top_evidence[0].span[0])
                bonus = NODE_BONUS * share if share is not None else 0.0
            score = article_score([(s, h.line) for s, h in scored], bonus, fuzzy_only, fuzzy_strength)
            conflict = self._conflict(topic, ctx)
            score = fuse(score, ctx.rel_share(topic), conflict, self._bonus(topic, ctx, scored[0][1]), cap)
            final.append((score, spec, topic, (scored, top_evidence, conflict)))
        final.extend(self._relevance_only(set(per_topic), language, ctx))
        final.sort(key=lambda r: (-r[0], -r[1], r[2]))
        return [m if isinstance(m, ArticleMatch) else self._answer(lines, topic, score, *m, language, ctx)
                for score, _, topic, m in final[:limit]]

    def _answer(self, lines: Sequence[Line], topic: str, score: float, scored: list[tuple[float, SymptomHit]],
                top_evidence: list[Evidence] | None, conflict: bool, language: str, ctx: _Context) -> ArticleMatch:
        """One ranked article with its evidence, captured values, likely cause and the symptoms it matched."""
        evidence: list[Evidence] = []
        captures: dict[str, str] = {}
        causes: dict[int, float] = {}
        symptoms: list[str] = []
        seen_ev: set[tuple[int, tuple[int, int], str]] = set()
        lang = pick_language(self.topic_langs.get(topic, set()), language)
        for i, (s, hit) in enumerate(scored):
            sig = self.signatures[hit.sig]
            key = self._keys[hit.sig].get(lang, sig.key)
            if key not in symptoms:
                symptoms.append(key)
            if sig.cause is not None:
                causes[sig.cause] = causes.get(sig.cause, 0.0) + s
            for k, v in hit.captures.items():
                captures.setdefault(k, v)
            for ev in top_evidence if i == 0 and top_evidence else self.locator.evidence(lines, hit):
                if len(evidence) < MAX_EVIDENCE and (ev.line, ev.span, ev.how) not in seen_ev:
                    seen_ev.add((ev.line, ev.span, ev.how))
                    evidence.append(ev if ev.symptom == key else replace(ev, symptom=key))
        return ArticleMatch(topic=topic, language=lang, score=round(score, 4), confidence=confidence(score),
                            evidence=evidence, captures=captures, symptoms=symptoms,
                            cause=max(causes, key=lambda c: (causes[c], -c)) if causes else None,
                            why=self._why(topic, evidence, ctx, conflict))

    def _fuzzy_weight(self, hit: SymptomHit) -> float:
        """Strength for the fuzzy-only cap: never strong when untrusted or when a pattern or fields define it."""
        sig = hit.sig
        defined = sig in self.patterns.compiled or sig in self.rules.conditioned
        trusted = hit.how != "fuzzy" or (not defined and self.fuzzy.trusted(sig, self.phrases.sigs[sig].specificity))
        return hit.strength if trusted else min(hit.strength, STRONG_FUZZY - 0.01)

    def _conflict(self, topic: str, ctx: _Context) -> bool:
        return conflicts(self.topic_owners.get(topic, frozenset()), ctx.who)

    def _bonus(self, topic: str, ctx: _Context, top: SymptomHit) -> float:
        """The bonus of an article for the controller that printed its best evidence line, was denied on it, or is
        named by what its message pattern captured there (the paste's, when that line names none), if that symptom
        is a full message of the article (not a wrapper with weight below 1); else a smaller one for an article
        about a controller the paste names."""
        mine = self.topic_owners.get(topic, frozenset())
        owned = mine & (ctx.who_at.get(top.line) or set(ctx.who))
        if not owned and top.how == "pattern" and top.captures:
            # its own message pattern captured the controller's own names (its API group, its kinds)
            owned = mine & specific(components_of(" ".join(top.captures.values())))
        sig = self.signatures[top.sig]
        if owned and sig.weight >= 1 and sig.kind != "event":  # an event row is the reporter's view, not its fault
            return OWNER_BONUS
        return AGREE_BONUS if agrees(self.topic_components.get(topic, ()), ctx.components) else 0.0

    def _why(self, topic: str, evidence: Sequence[Evidence], ctx: _Context, conflict: bool) -> list[str]:
        return why(evidence, self.relevance.shared(topic, ctx.terms), ctx.who if conflict else [])

    def _relevance_only(self, seen: set[str], language: str,
                        ctx: _Context) -> list[tuple[float, float, str, ArticleMatch]]:
        out = []
        for topic, _ in sorted(ctx.rel.items(), key=lambda x: -x[1])[:5]:
            share = ctx.rel_share(topic)
            if topic in seen or share < REL_ONLY_MIN:
                continue
            conflict = self._conflict(topic, ctx)
            score = relevance_only(share, conflict)
            if score < MIN_SCORE:
                continue
            match = ArticleMatch(topic=topic, language=pick_language(self.topic_langs.get(topic, set()), language),
                                 score=round(score, 4), confidence=confidence(score),
                                 why=self._why(topic, [], ctx, conflict))
            out.append((score, 0.0, topic, match))
        return out

    def _recall(self, recall: Recall, query: str, limit: int, language: str, stats: dict) -> list[ArticleMatch]:
        stats["recall"] = True
        if not query.strip():
            return []
        try:
            found = list(recall(query, limit))
        except Exception as exc:  # the callback belongs to the caller; never fail the match
            stats["recall_error"] = repr(exc)
            return []
        found = [(t, float(s)) for t, s in found if s and s > 0]
        if not found:
            return []
        top = max(s for _, s in found)
        return [ArticleMatch(topic=topic, language=pick_language(self.topic_langs.get(topic, {language}), language),
                             score=round(0.3 * s / top, 4), confidence="low")
                for topic, s in sorted(found, key=lambda x: -x[1])[:limit]]
