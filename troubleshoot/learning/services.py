"""Writes of the learning loop.

* ``match_observed`` / ``analysis_observed`` / ``vote_observed``: called by every surface
  (home page, API and so the CLI client, Slack, analyses, "No" votes). They count the answer
  (Prometheus) and, with KB_LEARN on, record the paste's masked templates when there was no
  confident answer, or as answered wrong after a "No" vote. They never raise and cost a few
  small writes: at most MAX_TEMPLATES rows per paste.
* ``unanswered_attach`` / ``unanswered_draft`` / ``unanswered_dismiss``: the editors' actions.
* ``unanswered_recheck``: rows the KB now answers leave the queue by themselves.
* ``unanswered_expire``: retention (KB_LEARN_RETENTION_DAYS), run by the hourly beat job.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import logging
import re
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.text import slugify

from troubleshoot.feedback import voter_key
from troubleshoot.kbformat import ArticleData, FormatError, SymptomData, article_from_dict
from troubleshoot.learning.masking import MAX_TEMPLATES, Learned, paste_templates, sample_text, symptom_for
from troubleshoot.metrics import MATCH_ANSWERS_TOTAL
from troubleshoot.models import Article, KBState, Symptom, UnansweredClient, UnansweredTemplate

log = logging.getLogger(__name__)

MAX_EXAMPLES = 3
MAX_NEAR = 3
ANALYSIS_MAX_TEMPLATES = 10  # one analysis may record this many rows at most
RECHECK_LIMIT = 200  # rows re-matched per call (the rest wait for the next call or the beat job)
SOURCE = "learned from unanswered pastes"

Kind = UnansweredTemplate.Kind
Status = UnansweredTemplate.Status


class LearningError(ValueError):
    """An editor's request that cannot be done: ``field`` names what is wrong (for a 400)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def client_key(*, user: Any = None, session_key: str | None = None, address: str | None = None) -> str:
    """Who pasted, as the votes see it: user, browser session, else the address (hashed below)."""
    return voter_key(user=user, session_key=session_key, address=address)


def client_hash(key: str) -> str:
    """A keyed hash of a client key: distinct clients can be counted, nobody can be looked up
    (an IPv4 address hashed without a key could be found by trying them all)."""
    return hmac.new(settings.SECRET_KEY.encode(), key.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]


def near_of(matches: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The closest suggestions of a match payload, as a queue row keeps them."""
    return [{"slug": m["slug"], "title": m["title"], "score": m["score"]} for m in list(matches)[:MAX_NEAR]]


def _safely(what: str, fn: Any, **kwargs: Any) -> int:
    """Learning must never break or fail an answer: log and carry on."""
    try:
        return int(fn(**kwargs))
    except Exception:  # noqa: BLE001 - whatever went wrong, the user still gets the answer
        log.exception("learning: could not record %s", what)
        return 0


def match_observed(*, text: str | bytes, payload: dict[str, Any], client: str, surface: str) -> int:
    """Count a match's outcome; without a confident answer, record the paste's templates.
    Returns the number of templates recorded."""
    answered = payload.get("best") is not None
    MATCH_ANSWERS_TOTAL.labels("answered" if answered else "unanswered", surface).inc()
    if answered or not settings.KB_LEARN:
        return 0
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return _safely("an unanswered paste", templates_record, texts=[text], kind=Kind.UNANSWERED, client=client,
                   near=near_of(payload.get("matches") or []))


def analysis_observed(*, result: dict[str, Any], client: str, surface: str = "analysis") -> int:
    """Count an analysis (answered when it links at least one article confidently) and record
    what it could not answer: the text that is not kubectl output and matched nothing confidently,
    and the evidence of findings no article explains (``result["unanswered"]``)."""
    answered = any(m.get("confidence") != "low" for m in result.get("matches") or [])
    MATCH_ANSWERS_TOTAL.labels("answered" if answered else "unanswered", surface).inc()
    texts = [t for t in result.get("unanswered") or [] if t and t.strip()]
    if not texts or not settings.KB_LEARN:
        return 0
    return _safely("an analysis", templates_record, texts=texts, kind=Kind.UNANSWERED, client=client,
                   total=ANALYSIS_MAX_TEMPLATES)


def vote_observed(*, slug: str, language: str, helpful: bool, text: str, client: str) -> int:
    """A "No, this didn't fix it" vote: record the paste's templates as answered wrong by ``slug``."""
    if helpful:
        return 0
    MATCH_ANSWERS_TOTAL.labels("answered-wrong", "vote").inc()
    if not settings.KB_LEARN or not (text or "").strip():
        return 0
    return _safely("a 'No' vote", templates_record, texts=[text], kind=Kind.ANSWERED_WRONG, client=client,
                   article=slug, language=language)


def templates_record(*, texts: list[str], kind: str, client: str, article: str = "", language: str = "",
                     near: list[dict[str, Any]] | None = None, total: int = MAX_TEMPLATES) -> int:
    """Record the masked templates of ``texts`` (at most ``total``): one row per template, counted
    per occurrence and per distinct client. Dismissed templates are skipped."""
    if not settings.KB_LEARN:
        return 0
    learned: dict[str, Learned] = {}
    for text in texts:
        # NUL never reaches the database (PostgreSQL refuses it in text columns)
        for item in paste_templates(text.replace("\x00", ""), limit=min(MAX_TEMPLATES, total)):
            learned.setdefault(item.fingerprint, item)
        if len(learned) >= total:
            break
    if not learned:
        return 0
    from troubleshoot.matching import matcher_version

    # An unanswered paste was just matched against this revision; the re-check starts from it.
    version = matcher_version() if kind == Kind.UNANSWERED else None
    items = list(learned.values())[:total]
    who, now = client_hash(client), timezone.now()
    recorded = 0
    with transaction.atomic():  # one short transaction; a savepoint when the caller has one
        rows = {e.fingerprint: e for e in UnansweredTemplate.objects.filter(
            kind=kind, article=article, fingerprint__in=[item.fingerprint for item in items])}
        seen_before = set(UnansweredClient.objects.filter(entry__in=list(rows.values()), client=who)
                          .values_list("entry_id", flat=True))
        for item in items:
            entry = rows.get(item.fingerprint)
            if entry is None:
                entry = _create(item, kind=kind, who=who, article=article, language=language, near=near, now=now,
                                version=version)
                if entry is None:
                    recorded += 1
                    continue
                seen_before |= set(UnansweredClient.objects.filter(entry=entry, client=who)
                                   .values_list("entry_id", flat=True))
            if entry.status == Status.DISMISSED:
                continue
            _count(entry, item, new_client=entry.pk not in seen_before, who=who, near=near, now=now,
                   version=version)
            recorded += 1
    return recorded


def _create(item: Learned, *, kind: str, who: str, article: str, language: str,
            near: list[dict[str, Any]] | None, now: Any, version: int | None) -> UnansweredTemplate | None:
    """A new row for ``item``; None when created, else the row another request created meanwhile."""
    key = {"fingerprint": item.fingerprint, "kind": kind, "article": article}
    try:
        with transaction.atomic():
            entry = UnansweredTemplate.objects.create(
                **key, template=item.template, examples=[item.example], language=language, count=1, clients=1,
                near=near or [], checked_version=version, first_seen=now, last_seen=now)
            UnansweredClient.objects.create(entry=entry, client=who)
        return None
    except IntegrityError:
        return UnansweredTemplate.objects.get(**key)


def _count(entry: UnansweredTemplate, item: Learned, *, new_client: bool, who: str,
           near: list[dict[str, Any]] | None, now: Any, version: int | None) -> None:
    updates: dict[str, Any] = {"count": F("count") + 1, "last_seen": now}
    if new_client:
        # ignore_conflicts: the same client counted by a concurrent request is not an error
        UnansweredClient.objects.bulk_create([UnansweredClient(entry=entry, client=who)], ignore_conflicts=True)
        updates["clients"] = F("clients") + 1
    examples = list(entry.examples or [])
    if len(examples) < MAX_EXAMPLES and item.example.lower() not in {e.lower() for e in examples}:
        updates["examples"] = examples + [item.example]
    if near is not None:
        updates["near"] = near
    if version is not None:
        updates["checked_version"] = version
    if entry.status in (Status.ATTACHED, Status.ANSWERED):
        # It was thought answered, yet someone just got no (or a wrong) answer: back in the queue.
        updates.update(status=Status.OPEN, resolved_article="", resolved_at=None, resolved_by=None)
    UnansweredTemplate.objects.filter(pk=entry.pk).update(**updates)


def unanswered_recheck(*, limit: int = RECHECK_LIMIT) -> int:
    """Open rows that the KB answers now leave the queue (status ``answered``).

    Each open row is matched again, once per KB revision: its example (with sample values in
    place of the masks) against this process's in-memory matcher, a millisecond or two per row
    and no query per article. An unanswered row is answered when the matcher is confident; an
    answered-wrong row when it confidently gives another article than the one voted down. The
    queue's API, page and command call this before listing; the beat job every 5 minutes."""
    from troubleshoot.matching import matcher_snapshot

    current = KBState.current()
    stale = list(UnansweredTemplate.objects.filter(status=Status.OPEN)
                 .filter(Q(checked_version__isnull=True) | Q(checked_version__lt=current))
                 .order_by("-clients", "-count", "id")[:limit])
    if not stale:
        return 0
    matcher, articles, version = matcher_snapshot()
    titles = {slug: a.title for (slug, language), a in articles.items() if language == "en"}
    titles.update({slug: a.title for (slug, _), a in articles.items() if slug not in titles})
    now, left = timezone.now(), 0
    for entry in stale:
        example = (entry.examples or [entry.template])[0]
        result = matcher.match(sample_text(example, entry.template), limit=MAX_NEAR,
                               language=entry.language or "en", recall=None)
        best = result.best.topic if result.best is not None else None
        updates: dict[str, Any] = {
            "checked_version": version if version is not None else current,
            "near": [{"slug": m.topic, "title": titles.get(m.topic, m.topic), "score": round(m.score, 4)}
                     for m in result.matches[:MAX_NEAR]],
        }
        if best is not None and (entry.kind == Kind.UNANSWERED or best != entry.article):
            updates.update(status=Status.ANSWERED, resolved_article=best, resolved_at=now)
            left += 1
        UnansweredTemplate.objects.filter(pk=entry.pk, status=Status.OPEN).update(**updates)
    return left


def _symptom_data(entry: UnansweredTemplate) -> SymptomData:
    draft = symptom_for(template=entry.template, example=(entry.examples or [entry.template])[0])
    return SymptomData(text=draft.text, source=f"{SOURCE} ({entry.count}× by {entry.clients} clients)"[:200],
                       pattern=draft.pattern)


def _resolve(entry: UnansweredTemplate, *, status: str, slug: str, user: Any) -> None:
    UnansweredTemplate.objects.filter(pk=entry.pk).update(
        status=status, resolved_article=slug, resolved_at=timezone.now(),
        resolved_by=user if user is not None and getattr(user, "is_authenticated", False) else None)
    entry.refresh_from_db()


def unanswered_attach(*, entry: UnansweredTemplate, slug: str, language: str = "en", user: Any = None) -> Symptom:
    """Add the entry's template to article ``slug`` as a symptom whose pattern matches every
    variant of it; stored with a revision and a KB bump, so every process's matcher answers with
    the article within KB_SYNC_INTERVAL_MS. The entry leaves the queue."""
    from troubleshoot.services import article_save, article_to_data

    article = Article.objects.filter(slug=slug, language=language).first()
    if article is None:
        raise LearningError("article", f"No article '{slug}' in language '{language}'.")
    new = _symptom_data(entry)
    data = article_to_data(article)
    same = [s for s in data.symptoms if s.text == new.text or (new.pattern and s.pattern == new.pattern)]
    if not same:
        data = dataclasses.replace(data, symptoms=[*data.symptoms, new])
        article_save(data=data, author=user, source="learning",
                     message=f"Symptom added from unanswered template #{entry.pk}")
    text = same[0].text if same else new.text
    symptom = Symptom.objects.filter(article=article, text=text).order_by("-position", "-id").first()
    if symptom is None:  # the article changed under us: say so rather than pretend
        raise LearningError("article", f"Article '{slug}' changed while the symptom was added; try again.")
    _resolve(entry, status=Status.ATTACHED, slug=slug, user=user)
    return symptom


def _draft_title(entry: UnansweredTemplate) -> str:
    text = _symptom_data(entry).text
    if len(text) > 120:
        text = text[:120].rsplit(" ", 1)[0] + "…"
    return text


def _free_slug(title: str) -> str:
    words = [w for w in re.split(r"[^a-z0-9]+", slugify(title)) if w]  # slugify keeps "_", slugs may not
    base = "-".join(words[:8])[:60].strip("-") or "unanswered-error"
    slug, n = base, 2
    while Article.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def unanswered_draft(*, entry: UnansweredTemplate, title: str = "", language: str = "en",
                     user: Any = None) -> Article:
    """A draft article (new unique slug) whose symptom is the entry's template; an editor writes its
    causes and fixes and publishes it, after which it matches."""
    from troubleshoot.services import article_save

    title = (title or "").strip() or _draft_title(entry)
    symptom = _symptom_data(entry)
    examples = "\n".join(entry.examples or [entry.template])
    data = ArticleData(
        slug=_free_slug(title), title=title, language=language, status=Article.Status.DRAFT,
        summary="Drafted from an error the knowledge base could not answer.",
        problem=(f"Pasted {entry.count} times by {entry.clients} clients without a confident answer "
                 f"(first {entry.first_seen:%Y-%m-%d}, last {entry.last_seen:%Y-%m-%d}). Masked examples:\n\n"
                 f"```text\n{examples}\n```\n\nDescribe the problem, its causes and fixes, then publish."),
        symptoms=[symptom],
    )
    try:  # the same validation as an imported file or an API write (title length, slug, pattern)
        record = dataclasses.asdict(data)
        article_from_dict(record)
    except FormatError as exc:
        raise LearningError(exc.field or "title", exc.message) from None
    result = article_save(data=data, author=user, source="learning",
                          message=f"Draft created from unanswered template #{entry.pk}")
    _resolve(entry, status=Status.DRAFTED, slug=result.article.slug, user=user)
    return result.article


def unanswered_dismiss(*, entry: UnansweredTemplate, user: Any = None) -> None:
    """"Not ours": the entry leaves the queue and its template is never recorded again."""
    with transaction.atomic():
        UnansweredClient.objects.filter(entry=entry).delete()
        _resolve(entry, status=Status.DISMISSED, slug="", user=user)


def unanswered_expire() -> int:
    """Delete rows last seen more than KB_LEARN_RETENTION_DAYS ago. Dismissed rows stay (template
    only, their clients were dropped on dismissal) so they are not recorded again."""
    cutoff = timezone.now() - timedelta(days=settings.KB_LEARN_RETENTION_DAYS)
    stale = UnansweredTemplate.objects.filter(last_seen__lt=cutoff).exclude(status=Status.DISMISSED)
    deleted = stale.count()
    stale.delete()
    return deleted
