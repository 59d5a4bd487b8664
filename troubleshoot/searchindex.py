"""Full-text index of articles on Whoosh (BM25F), for English and Chinese text.

Plain Python: documents come in as dicts, so the index can be built and queried
without Django. ``troubleshoot.search`` keeps it in step with the database.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whoosh import highlight, index, scoring
from whoosh.analysis import LowercaseFilter, StemFilter, StopFilter, Token, Tokenizer
from whoosh.fields import ID, KEYWORD, NUMERIC, STORED, TEXT, Schema
from whoosh.qparser import MultifieldParser, OrGroup
from whoosh.query import And, Term

log = logging.getLogger(__name__)

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[A-Za-z0-9_]+(?:[.'][A-Za-z0-9_]+)*")
_CJK_RE = re.compile(rf"^[{_CJK}]+$")
_jieba_lock = threading.Lock()
_jieba_ready = False


def _jieba():  # type: ignore[no-untyped-def]
    global _jieba_ready
    import jieba

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba_ready = True
    return jieba


class MixedTokenizer(Tokenizer):
    """Words and numbers for Latin text; jieba's search-mode segmentation for Chinese runs."""

    def __call__(self, value: str, positions: bool = False, chars: bool = False, keeporiginal: bool = False,
                 removestops: bool = True, start_pos: int = 0, start_char: int = 0, tokenize: bool = True,
                 mode: str = "", **kwargs: Any) -> Iterator[Token]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        pos = start_pos
        for word, begin, end in self._words(value):
            token.text = word
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = word
            if positions:
                token.pos = pos
                pos += 1
            if chars:
                token.startchar = start_char + begin
                token.endchar = start_char + end
            yield token

    @staticmethod
    def _words(value: str) -> Iterator[tuple[str, int, int]]:
        """(word, start, end): Latin words and numbers as they are, Chinese runs split by jieba."""
        for match in _TOKEN_RE.finditer(value):
            text = match.group()
            if not _CJK_RE.match(text):
                yield text, match.start(), match.end()
                continue
            for word, begin, end in _jieba().tokenize(text, mode="search"):
                if word.strip():
                    yield word, match.start() + begin, match.start() + end


def analyzer():  # type: ignore[no-untyped-def]
    return MixedTokenizer() | LowercaseFilter() | StopFilter(minsize=1) | StemFilter(lang="en")


PARALLEL_FROM = 500
FIELD_BOOSTS = {"title": 4.0, "symptoms": 3.0, "summary": 2.0, "causes": 1.5, "fixes": 1.5, "body": 1.0}


def make_schema() -> Schema:
    a = analyzer()
    return Schema(
        key=ID(unique=True, stored=True),
        slug=ID(stored=True),
        language=ID(stored=True),
        components=KEYWORD(stored=True, commas=True, lowercase=True),
        title=TEXT(analyzer=a, stored=True, field_boost=FIELD_BOOSTS["title"]),
        symptoms=TEXT(analyzer=a, stored=True, field_boost=FIELD_BOOSTS["symptoms"]),
        summary=TEXT(analyzer=a, stored=True, field_boost=FIELD_BOOSTS["summary"]),
        causes=TEXT(analyzer=a, stored=True, field_boost=FIELD_BOOSTS["causes"]),
        fixes=TEXT(analyzer=a, stored=True, field_boost=FIELD_BOOSTS["fixes"]),
        body=TEXT(analyzer=a, stored=True, field_boost=FIELD_BOOSTS["body"]),
        kb_version=NUMERIC(stored=True),
        meta=STORED,
    )


SEARCH_FIELDS = list(FIELD_BOOSTS)
_QUERY_CHARS = re.compile(r"[^\w\s\u3400-\u9fff.'-]+", re.UNICODE)


@dataclass
class SearchHit:
    slug: str
    language: str
    title: str
    summary: str
    components: list[str]
    score: float
    snippet: str  # HTML with <b class="match"> marks; to be sanitised by the caller


@dataclass
class SearchResults:
    total: int
    hits: list[SearchHit] = field(default_factory=list)


def document_key(slug: str, language: str) -> str:
    return f"{slug}:{language}"


class ArticleIndex:
    """One Whoosh index in a folder; safe for many readers and one writer at a time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()

    def reset(self) -> None:
        self._local = threading.local()

    def _searcher(self):  # type: ignore[no-untyped-def]
        """A searcher kept per thread, replaced when the index's generation moves.

        Whoosh's own ``Searcher.refresh()`` reuses segment readers and can miss
        deletions, so a changed index gets a fresh searcher instead."""
        cached = getattr(self._local, "searcher", None)
        if cached is not None:
            try:
                if cached._ix.latest_generation() == self._local.generation:
                    return cached
            except Exception:  # the index was replaced underneath: open it again
                pass
            cached.close()
        ix = self.open()
        self._local.generation = ix.latest_generation()
        self._local.searcher = ix.searcher(weighting=scoring.BM25F(B=0.75, K1=1.2))
        return self._local.searcher

    def exists(self) -> bool:
        return index.exists_in(str(self.path))

    def open(self):  # type: ignore[no-untyped-def]
        return index.open_dir(str(self.path))

    def create(self, documents: Iterable[dict[str, Any]]) -> int:
        """Build a fresh index from ``documents`` (replaces any existing one)."""
        self.path.mkdir(parents=True, exist_ok=True)
        docs = list(documents)
        ix = index.create_in(str(self.path), make_schema())
        # Large rebuilds index in parallel (one process per core); small ones are not worth the fork.
        procs = min(os.cpu_count() or 1, 4) if len(docs) >= PARALLEL_FROM else 1
        writer = ix.writer(limitmb=128, procs=procs, multisegment=procs > 1)
        for doc in docs:
            writer.add_document(**doc)
        writer.commit()
        count = len(docs)
        self.reset()
        return count

    def update(self, documents: Iterable[dict[str, Any]], removed: Iterable[str] = ()) -> None:
        ix = self.open()
        writer = ix.writer(timeout=10.0)
        try:
            for key in removed:
                writer.delete_by_term("key", key)
            for doc in documents:
                writer.update_document(**doc)
            writer.commit()
        except Exception:
            writer.cancel()
            raise

    def max_version(self) -> int:
        ix = self.open()
        with ix.searcher() as searcher:
            best = 0
            for stored in searcher.all_stored_fields():
                best = max(best, int(stored.get("kb_version") or 0))
            return best

    def search(self, query: str, *, language: str | None = None, component: str | None = None,
               limit: int = 20, offset: int = 0) -> SearchResults:
        text = _QUERY_CHARS.sub(" ", query or "").strip()
        if not text:
            return SearchResults(total=0)
        searcher = self._searcher()
        parser = MultifieldParser(SEARCH_FIELDS, schema=searcher.schema, group=OrGroup.factory(0.9))
        try:
            parsed = parser.parse(text)
        except Exception:  # pragma: no cover - whoosh's parser is lenient; keep search answering
            log.warning("could not parse search query %r", text)
            return SearchResults(total=0)
        filters = []
        if language:
            filters.append(Term("language", language))
        if component:
            filters.append(Term("components", component.lower()))
        results = searcher.search(parsed, limit=offset + limit, filter=And(filters) if filters else None,
                                  terms=True)
        results.fragmenter = highlight.ContextFragmenter(maxchars=220, surround=60)
        results.formatter = highlight.HtmlFormatter(tagname="b", classname="match", termclass="t")
        hits = []
        for hit in results[offset:offset + limit]:
            snippet = ""
            for name in ("symptoms", "summary", "body", "causes", "fixes"):
                snippet = hit.highlights(name, top=2)
                if snippet:
                    break
            hits.append(SearchHit(
                slug=hit["slug"], language=hit["language"], title=hit["title"],
                summary=hit.get("summary", ""),
                components=list((hit.get("meta") or {}).get("component_names", [])),
                score=float(hit.score), snippet=snippet,
            ))
        return SearchResults(total=len(results), hits=hits)
