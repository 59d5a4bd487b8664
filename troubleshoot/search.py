"""Keeps this process's Whoosh index in step with the database.

The database is the source of truth. Every article change bumps ``KBState.version``
and stamps the article with it; a process that sees the counter move past what its
index holds re-indexes just the articles (and tombstones) newer than that, so an
edit made by any web process or worker shows up everywhere within
``KB_SYNC_INTERVAL`` seconds. A missing or unreadable index is rebuilt.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.conf import settings

from troubleshoot.models import Article, KBState, Tombstone
from troubleshoot.searchindex import ArticleIndex, SearchResults, document_key

log = logging.getLogger(__name__)

_lock = threading.Lock()
_state: dict[str, Any] = {"checked": 0.0, "version": -1}


_indexes: dict[str, ArticleIndex] = {}


def article_index() -> ArticleIndex:
    """This process's handle on the index (it keeps a searcher per thread)."""
    key = str(settings.KB_INDEX_DIR)
    if key not in _indexes:
        _indexes[key] = ArticleIndex(settings.KB_INDEX_DIR)
    return _indexes[key]


def article_document(article: Article) -> dict[str, Any]:
    components = list(article.components.all())
    symptoms = list(article.symptoms.all())
    causes = list(article.causes.all())
    fixes = list(article.fixes.all())
    return {
        "key": document_key(article.slug, article.language),
        "slug": article.slug,
        "language": article.language,
        "components": ",".join(c.slug for c in components),
        "title": article.title,
        "summary": article.summary,
        "symptoms": "\n".join(s.text for s in symptoms),
        "causes": "\n\n".join(f"{c.title}\n{c.body}" for c in causes),
        "fixes": "\n\n".join(f"{f.title}\n{f.body}\n{f.verify}" for f in fixes),
        "body": "\n\n".join(filter(None, [article.problem, article.environment, article.best_practices])),
        "kb_version": article.kb_version,
        "meta": {"component_names": [c.name for c in components]},
    }


def _published() -> Any:
    return Article.objects.published().prefetch_related("components", "symptoms", "causes", "fixes")


def index_rebuild() -> int:
    """Build the index from scratch from the published articles."""
    with _lock:
        return _rebuild(KBState.current())


def _rebuild(version: int) -> int:
    """(Under _lock.) A fresh index of the published articles, recorded as at ``version``."""
    count = article_index().create(article_document(a) for a in _published())
    _state.update(version=version, checked=time.monotonic())
    return count


def index_sync(*, force: bool = False) -> None:
    """Catch up with changes made by any process since this index was last updated.

    Cheap when nothing changed: at most one small query per KB_SYNC_INTERVAL.
    """
    now = time.monotonic()
    if not force and now - _state["checked"] < settings.KB_SYNC_INTERVAL and _state["version"] >= 0:
        return
    with _lock:
        _state["checked"] = now
        current = KBState.current()
        idx = article_index()
        if idx.exists():
            if _state["version"] == current:
                return
            try:
                _apply_changes(idx, since=idx.max_version() if _state["version"] < 0 else _state["version"])
                _state["version"] = current
                return
            except Exception:  # a corrupt or half-written index is rebuilt from the database
                log.exception("search index unreadable; rebuilding it")
        log.info("building the search index")
        _rebuild(current)


def _apply_changes(idx: ArticleIndex, *, since: int) -> None:
    changed = list(Article.objects.filter(kb_version__gt=since)
                   .prefetch_related("components", "symptoms", "causes", "fixes"))
    removed = [document_key(t.slug, t.language) for t in Tombstone.objects.filter(kb_version__gt=since)]
    removed += [document_key(a.slug, a.language) for a in changed if a.status != Article.Status.PUBLISHED]
    published = [article_document(a) for a in changed if a.status == Article.Status.PUBLISHED]
    if published or removed:
        idx.update(published, removed)


def index_update(*, full: bool = False) -> None:
    """Task body: apply recent changes (or rebuild everything).

    (Celery's Django fixup already recycles database connections around each task.)"""
    if full:
        index_rebuild()
    else:
        index_sync(force=True)


def articles_search(*, query: str, language: str | None = None, component: str | None = None,
                    limit: int = 20, offset: int = 0) -> SearchResults:
    index_sync()
    idx = article_index()
    try:
        return idx.search(query, language=language, component=component, limit=limit, offset=offset)
    except Exception:  # the index was rebuilt by another process under this searcher: reopen once
        log.warning("search failed on a cached searcher; reopening the index", exc_info=True)
        idx.reset()
        return idx.search(query, language=language, component=component, limit=limit, offset=offset)


def index_stale_seconds() -> float | None:
    """Seconds since this process last confirmed its index matches the database (for /readyz)."""
    if _state["version"] < 0:
        return None
    return time.monotonic() - _state["checked"]
