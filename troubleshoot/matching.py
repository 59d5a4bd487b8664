"""Django side of the matcher: builds the engine's Matcher from the published
articles' symptoms (once per KB revision, per process), wires Whoosh in as the
recall fallback, and shapes results with each article's likely cause and fix."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from troubleshoot.engine.fill import fill_placeholders
from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.types import ArticleMatch, MatchResult, Signature, TopicInfo
from troubleshoot.feedback import feedback_priors
from troubleshoot.metrics import MATCH_SECONDS, MATCH_TOTAL
from troubleshoot.models import Article, KBState, Symptom
from troubleshoot.search import articles_search, index_sync
from troubleshoot.version_ranking import article_version_check, ranking_prior
from troubleshoot.versions import read_versions

_lock = threading.Lock()
_cache: dict[str, Any] = {"version": None, "matcher": None, "checked": 0.0, "articles": {}}


class InputTooLarge(ValueError):
    def __init__(self, size: int, limit: int) -> None:
        self.size, self.limit = size, limit
        super().__init__(f"The text is {size} bytes; the limit is {limit} bytes (MATCH_MAX_BYTES).")


def build_signatures() -> list[Signature]:
    symptoms = (Symptom.objects.filter(article__status=Article.Status.PUBLISHED)
                .select_related("article").order_by("article__slug", "article__language", "position", "id"))
    cause_index: dict[int, dict[int, int]] = {}
    signatures = []
    for s in symptoms:
        article = s.article
        if article.pk not in cause_index:
            cause_index[article.pk] = {pk: i for i, pk in enumerate(
                article.causes.order_by("position", "id").values_list("pk", flat=True))}
        signatures.append(Signature(
            key=f"{article.slug}:{article.language}:{s.position}",
            topic=article.slug, language=article.language, text=s.text,
            pattern=s.pattern or None, weight=s.weight, kind=s.kind,
            cause=cause_index[article.pk].get(s.cause_id) if s.cause_id else None,
            when=tuple(sorted((s.when or {}).items())),
        ))
    return signatures


def build_topics(articles: list[Article]) -> dict[str, TopicInfo]:
    """Each topic's components and whole text (English preferred) for attribution and relevance."""
    by_slug: dict[str, Article] = {}
    for a in articles:
        if a.slug not in by_slug or a.language == "en":
            by_slug[a.slug] = a
    topics = {}
    for slug, a in by_slug.items():
        parts = [a.title, a.title, a.summary, a.environment, a.problem]
        parts += [s.text for s in a.symptoms.all()]
        parts += [f"{c.title}\n{c.body}" for c in a.causes.all()]
        parts += [f"{f.title}\n{f.body}" for f in a.fixes.all()]
        topics[slug] = TopicInfo(components=tuple(c.name for c in a.components.all()), document="\n".join(parts))
    return topics


def published_articles() -> list[Article]:
    """The published articles with everything the matcher and its answers read from them."""
    return list(Article.objects.published().prefetch_related("causes", "fixes", "symptoms", "components", "versions"))


def current_matcher() -> Matcher:
    """This process's matcher, rebuilt when the KB revision counter moves."""
    return _current()[0]


def matcher_snapshot() -> tuple[Matcher, dict[tuple[str, str], Article], int | None]:
    """This process's matcher, the published articles it answers with, and the KB revision it was
    built for (for callers that match outside a user's request, without counting it as one)."""
    matcher, articles = _current()
    return matcher, articles, _cache["version"]


def matcher_version() -> int | None:
    """The KB revision this process's matcher was last built for (None before the first match)."""
    return _cache["version"]


def _current() -> tuple[Matcher, dict[tuple[str, str], Article]]:
    """The matcher and the published articles (with causes and fixes) it answers with, both
    built once per KB revision so a match needs no database query for them."""
    now = time.monotonic()
    if _cache["matcher"] is not None and now - _cache["checked"] < settings.KB_SYNC_INTERVAL:
        return _cache["matcher"], _cache["articles"]
    version = KBState.current()
    with _lock:
        _cache["checked"] = now
        if _cache["matcher"] is None or _cache["version"] != version:
            articles = published_articles()
            _cache["articles"] = {(a.slug, a.language): a for a in articles}
            _cache["matcher"] = Matcher(build_signatures(), topics=build_topics(articles))
            _cache["version"] = version
        return _cache["matcher"], _cache["articles"]


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.:/-]{2,}")
RECALL_TERMS = 32


def recall_query(text: str, terms: int = RECALL_TERMS) -> str:
    """A short OR query from the paste's first distinct words: a whole paste as a query is
    slow in Whoosh and no better at recall."""
    words: dict[str, None] = {}
    for word in _WORD.findall(text[:20000]):
        key = word.lower().strip(".:/-")
        if len(key) > 2 and not key.isdigit():
            words.setdefault(key, None)
        if len(words) >= terms:
            break
    return " ".join(words)


def _recall(language: str):  # type: ignore[no-untyped-def]
    def recall(query: str, n: int) -> list[tuple[str, float]]:
        results = articles_search(query=recall_query(query), limit=n)
        seen: dict[str, float] = {}
        for hit in results.hits:
            seen.setdefault(hit.slug, hit.score)
        return list(seen.items())

    return recall


@dataclass
class MatchOutcome:
    result: MatchResult
    articles: dict[tuple[str, str], Article]
    ms: float
    versions: dict[str, str] = field(default_factory=dict)   # read from the text


def match_text(*, text: str | bytes, limit: int = 5, language: str = "en", use_recall: bool = True) -> MatchOutcome:
    """Match a paste. ``use_recall=False`` skips the full-text fallback (for bulk linking)."""
    size = len(text.encode("utf-8", "replace")) if isinstance(text, str) else len(text)
    if size > settings.MATCH_MAX_BYTES:
        raise InputTooLarge(size, settings.MATCH_MAX_BYTES)
    started = time.perf_counter()
    index_sync()
    matcher, published = _current()
    result = matcher.match(text, limit=limit, language=language, recall=_recall(language) if use_recall else None)
    articles = {key: published[key] for key in {(m.topic, m.language) for m in result.matches} if key in published}
    elapsed = time.perf_counter() - started
    MATCH_SECONDS.observe(elapsed)
    MATCH_TOTAL.labels("confident" if result.best is not None else "none").inc()
    return MatchOutcome(result=result, articles=articles, ms=elapsed * 1000,
                        versions=read_versions(text if isinstance(text, str) else text.decode("utf-8", "replace")))


def _cause_and_fix(article: Article, match: ArticleMatch, mark: Callable[[str], str] | None = None
                   ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    causes = list(article.causes.all())
    fixes = list(article.fixes.all())
    cause = None
    if causes:
        index = match.cause if match.cause is not None and 0 <= match.cause < len(causes) else 0
        cause = causes[index]
    fix = None
    if cause is not None:
        fix = next((f for f in fixes if f.cause_id == cause.pk), None)
    fix = fix or next((f for f in fixes if f.cause_id is None), None) or (fixes[0] if fixes else None)
    cause_out = {"number": causes.index(cause) + 1, "title": cause.title, "body": cause.body} if cause else None
    fix_out = None
    if fix is not None:
        captures = {k: mark(v) for k, v in match.captures.items()} if mark else match.captures
        body, filled = fill_placeholders(fix.body, captures)
        fix_out = {"title": fix.title, "body": body, "verify": fix.verify, "filled": filled}
    return cause_out, fix_out


def match_payload(outcome: MatchOutcome, *, request: Any = None,
                  mark: Callable[[str], str] | None = None, versions: dict[str, str] | None = None) -> dict[str, Any]:
    """The API's response shape (also used by the CLI, the results page and chat surfaces).

    ``mark`` wraps each value filled into a fix from the paste (the results page
    uses it to highlight them). ``versions`` (component -> version, given by the client)
    add to and override the versions read from the paste."""
    known = {**outcome.versions, **(versions or {})}
    def url(article: Article) -> str:
        path = article.get_absolute_url()
        return request.build_absolute_uri(path) if request is not None else path

    matches = []
    for m in outcome.result.matches:
        article = outcome.articles.get((m.topic, m.language))
        if article is None:
            continue
        cause, fix = _cause_and_fix(article, m, mark)
        matches.append({
            "slug": article.slug, "title": article.title, "language": article.language, "url": url(article),
            "score": round(m.score, 4), "confidence": m.confidence, "cause": cause, "fix": fix,
            "evidence": [{"line": e.line, "text": e.text, "symptom": e.symptom, "span": list(e.span),
                          "how": e.how} for e in m.evidence],
            "captures": dict(m.captures),
            "why": list(m.why),
            "version_check": article_version_check(article, known),
        })
    # Feedback and versions are bounded priors (±feedback.PRIOR_MAX, versions.FIXED_PRIOR /
    # AFFECTED_PRIOR): they reorder near-ties only.
    priors = feedback_priors() if len(matches) > 1 else {}
    bonus = {m["slug"]: priors.get(m["slug"], 0.0) + ranking_prior(m["version_check"]) for m in matches}
    if len(matches) > 1 and any(bonus.values()):
        matches.sort(key=lambda m: m["score"] + bonus[m["slug"]], reverse=True)
    best = None
    if outcome.result.best is not None and matches and matches[0]["confidence"] in ("high", "medium"):
        best = matches[0]
    stats = dict(outcome.result.stats)
    stats["ms"] = round(outcome.ms, 2)
    return {"matches": matches, "best": best, "read": list(outcome.result.read),
            "components": list(outcome.result.components), "versions": known, "stats": stats}
