"""Writes: every change to an article goes through ``article_save`` (admin, API,
import and restore alike), so each one stores a revision, bumps the KB revision
counter and gets the search index updated.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils.text import slugify

from troubleshoot import kbformat
from troubleshoot.kbformat import ArticleData
from troubleshoot.models import (
    Article,
    Cause,
    Component,
    Fix,
    KBState,
    Reference,
    Revision,
    Symptom,
    Tombstone,
    VersionRange,
)


def kb_bump() -> int:
    """Advance the KB revision counter (inside the caller's transaction) and return it."""
    updated = KBState.objects.filter(pk=1).update(version=F("version") + 1)
    if not updated:
        KBState.objects.get_or_create(pk=1, defaults={"version": 0})
        KBState.objects.filter(pk=1).update(version=F("version") + 1)
    return KBState.current()


def article_to_data(article: Article) -> ArticleData:
    """The full content of an article as the file format's structure."""
    causes = list(article.causes.all())
    index = {cause.pk: i for i, cause in enumerate(causes)}
    return ArticleData(
        slug=article.slug,
        title=article.title,
        language=article.language,
        summary=article.summary,
        status=article.status,
        components=sorted((c.name for c in article.components.all()), key=str.lower),
        environment=article.environment,
        problem=article.problem,
        best_practices=article.best_practices,
        symptoms=[
            kbformat.SymptomData(text=s.text, kind=s.kind, source=s.source, pattern=s.pattern,
                                 weight=s.weight, cause=index.get(s.cause_id) if s.cause_id else None,
                                 when=dict(s.when or {}))
            for s in article.symptoms.all()
        ],
        causes=[kbformat.CauseData(title=c.title, body=c.body) for c in causes],
        fixes=[
            kbformat.FixData(title=f.title, body=f.body, verify=f.verify,
                             cause=index.get(f.cause_id) if f.cause_id else None)
            for f in article.fixes.all()
        ],
        versions=[kbformat.VersionData(component=v.component, affected=v.affected, fixed_in=v.fixed_in,
                                       note=v.note) for v in article.versions.all()],
        references=[kbformat.ReferenceData(title=r.title, url=r.url) for r in article.references.all()],
    )


def data_to_json(data: ArticleData) -> dict[str, Any]:
    return dataclasses.asdict(data)


def data_from_json(content: dict[str, Any]) -> ArticleData:
    return ArticleData(
        **{k: v for k, v in content.items()
           if k not in {"symptoms", "causes", "fixes", "versions", "references", "components"}},
        components=list(content.get("components", [])),
        symptoms=[kbformat.SymptomData(**s) for s in content.get("symptoms", [])],
        causes=[kbformat.CauseData(**c) for c in content.get("causes", [])],
        fixes=[kbformat.FixData(**f) for f in content.get("fixes", [])],
        versions=[kbformat.VersionData(**v) for v in content.get("versions", [])],
        references=[kbformat.ReferenceData(**r) for r in content.get("references", [])],
    )


def components_ensure(names: Iterable[str]) -> list[Component]:
    wanted = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    found = {c.name: c for c in Component.objects.filter(name__in=wanted)}
    result = []
    for name in wanted:
        component = found.get(name)
        if component is None:
            base = slugify(name) or "component"
            slug, n = base, 2
            while Component.objects.filter(slug=slug).exists():
                slug, n = f"{base}-{n}", n + 1
            component = Component.objects.create(name=name, slug=slug)
        result.append(component)
    return result


def _write_children(article: Article, data: ArticleData, *, fresh: bool = False) -> None:
    if not fresh:  # a new article has no children to replace
        article.symptoms.all().delete()
        article.fixes.all().delete()
        article.causes.all().delete()
        article.versions.all().delete()
        article.references.all().delete()
    causes = Cause.objects.bulk_create(
        [Cause(article=article, position=i, title=c.title, body=c.body) for i, c in enumerate(data.causes)]
    )
    if any(c.pk is None for c in causes):  # backends without RETURNING ids
        causes = list(article.causes.order_by("position"))

    def cause_of(index: int | None) -> Cause | None:
        return causes[index] if index is not None and 0 <= index < len(causes) else None

    Symptom.objects.bulk_create([
        Symptom(article=article, position=i, text=s.text, kind=s.kind, source=s.source, pattern=s.pattern,
                weight=s.weight, cause=cause_of(s.cause), when=dict(s.when))
        for i, s in enumerate(data.symptoms)
    ])
    Fix.objects.bulk_create([
        Fix(article=article, position=i, title=f.title, body=f.body, verify=f.verify, cause=cause_of(f.cause))
        for i, f in enumerate(data.fixes)
    ])
    VersionRange.objects.bulk_create([
        VersionRange(article=article, position=i, component=v.component, affected=v.affected,
                     fixed_in=v.fixed_in, note=v.note)
        for i, v in enumerate(data.versions)
    ])
    Reference.objects.bulk_create([
        Reference(article=article, position=i, title=r.title, url=r.url) for i, r in enumerate(data.references)
    ])


def revision_record(*, article: Article, author: AbstractBaseUser | None, source: str, message: str = "",
                    content: dict[str, Any] | None = None) -> Revision | None:
    """Store the article's current content as a new revision unless it equals the latest one."""
    if content is None:
        content = data_to_json(article_to_data(article))
    latest = article.revisions.order_by("-number").first()
    if latest is not None and latest.content == content:
        return None
    return Revision.objects.create(
        article=article, number=(latest.number + 1) if latest else 1,
        author=author if author is not None and author.is_authenticated else None,
        source=source, message=message[:300], content=content,
    )


@dataclass
class SaveResult:
    article: Article
    created: bool
    changed: bool


def article_save(*, data: ArticleData, author: AbstractBaseUser | None = None, source: str = "api",
                 message: str = "", reindex: bool = True, kb_version: Callable[[], int] | None = None,
                 components: dict[str, Component] | None = None) -> SaveResult:
    """Create or update the article ``data.slug``/``data.language`` from a full record.

    Unchanged content is a no-op (no revision, no version bump): re-importing the same
    files changes nothing. A bulk import passes ``kb_version`` (giving one KB revision for
    all its changed articles) and a ``components`` cache (name → Component).
    """
    data = dataclasses.replace(data, components=sorted(dict.fromkeys(data.components), key=str.lower))
    content = data_to_json(data)
    with transaction.atomic():
        article = Article.objects.select_for_update().filter(slug=data.slug, language=data.language).first()
        created = article is None
        if article is not None:
            latest = article.revisions.order_by("-number").first()
            if latest is not None and latest.content == content:
                return SaveResult(article=article, created=False, changed=False)
        else:
            article = Article(slug=data.slug, language=data.language)
        article.title = data.title
        article.summary = data.summary
        article.status = data.status
        article.environment = data.environment
        article.problem = data.problem
        article.best_practices = data.best_practices
        if created and author is not None and author.is_authenticated:
            article.author = author  # type: ignore[assignment]
        article.kb_version = kb_version() if kb_version is not None else kb_bump()
        article.save()
        if components is None:
            wanted = components_ensure(data.components)
        else:
            missing = [n for n in data.components if n not in components]
            components.update({c.name: c for c in components_ensure(missing)})
            wanted = [components[n] for n in data.components]
        if created:
            article.components.add(*wanted)
        else:
            article.components.set(wanted)
        _write_children(article, data, fresh=created)
        if created:
            Revision.objects.create(
                article=article, number=1, source=source, message=message[:300], content=content,
                author=author if author is not None and author.is_authenticated else None)
        else:
            revision_record(article=article, author=author, source=source, message=message, content=content)
        if reindex:
            index_schedule()
    return SaveResult(article=article, created=created, changed=True)


def article_touch(*, article: Article, author: AbstractBaseUser | None, source: str, message: str = "") -> None:
    """After an edit made outside article_save (the admin's forms and inlines): record it."""
    with transaction.atomic():
        Article.objects.filter(pk=article.pk).update(kb_version=kb_bump())
        revision_record(article=article, author=author, source=source, message=message)
    index_schedule()


def article_restore(*, revision: Revision, author: AbstractBaseUser | None) -> SaveResult:
    data = data_from_json(revision.content)
    return article_save(data=data, author=author, source="restore",
                        message=f"Restored revision {revision.number}")


def article_delete(*, article: Article) -> None:
    with transaction.atomic():
        Tombstone.objects.create(slug=article.slug, language=article.language, kb_version=kb_bump())
        article.delete()
    index_schedule()


@dataclass
class ImportResult:
    created: int
    updated: int
    unchanged: int
    seconds: float

    def __str__(self) -> str:
        return (f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged "
                f"in {self.seconds:.2f}s")


def kb_import(*, root: Path, author: AbstractBaseUser | None = None,
              items: list[tuple[Path, ArticleData]] | None = None) -> ImportResult:
    """Import every article file under ``root`` in one transaction.

    Every file is parsed and validated before anything is written, so one bad file
    aborts the import with a FormatError naming the file and field, and nothing changes.
    """
    started = time.perf_counter()
    if items is None:
        items = kbformat.load_folder(root)
    created = updated = unchanged = 0
    with transaction.atomic():
        bumped: list[int] = []

        def version() -> int:  # one KB revision for the whole import, taken only if something changes
            if not bumped:
                bumped.append(kb_bump())
            return bumped[0]

        components = {c.name: c for c in Component.objects.all()}
        for path, data in items:
            result = article_save(data=data, author=author, source="import", message=f"Imported from {path.name}",
                                  reindex=False, kb_version=version, components=components)
            if result.created:
                created += 1
            elif result.changed:
                updated += 1
            else:
                unchanged += 1
        if created or updated:
            index_schedule(full=True)
    return ImportResult(created, updated, unchanged, time.perf_counter() - started)


def kb_export(*, root: Path) -> int:
    """Write every article to ``root/<language>/<slug>.md``; returns the number written."""
    count = 0
    articles = Article.objects.prefetch_related("components", "symptoms", "causes", "fixes", "versions",
                                                "references")
    for article in articles:
        folder = root / article.language
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{article.slug}.md").write_text(kbformat.dump_article(article_to_data(article)),
                                                   encoding="utf-8")
        count += 1
    return count


def index_schedule(*, full: bool = False) -> None:
    """Bring the search index up to date once the surrounding transaction commits."""
    from troubleshoot.tasks import index_update

    transaction.on_commit(lambda: index_update.delay(full=full))
