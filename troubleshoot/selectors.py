"""Reads: the queries the portal and the API share."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet

from troubleshoot.models import Article, Cause, Component, Fix

ARTICLE_FULL_PREFETCH = (
    "components", "symptoms", "versions", "references",
    Prefetch("causes", queryset=Cause.objects.order_by("position", "id")),
    Prefetch("fixes", queryset=Fix.objects.order_by("position", "id")),
)


def article_get(*, slug: str, language: str | None = None, preferred: str | None = None,
                include_unpublished: bool = False) -> Article | None:
    """The article ``slug`` in ``language``; without one, in ``preferred``, else English, else any."""
    qs = Article.objects.filter(slug=slug).prefetch_related(*ARTICLE_FULL_PREFETCH)
    if not include_unpublished:
        qs = qs.published()
    if language:
        return qs.filter(language=language).first()
    candidates = {a.language: a for a in qs}
    for lang in (preferred, "en"):
        if lang and lang in candidates:
            return candidates[lang]
    return next(iter(candidates.values()), None)


def articles_list(*, language: str | None = None, component: str | None = None, status: str | None = None,
                  include_unpublished: bool = False) -> QuerySet[Article]:
    qs = Article.objects.prefetch_related("components")
    if status and include_unpublished:
        qs = qs.filter(status=status)
    elif not include_unpublished:
        qs = qs.published()
    if language:
        qs = qs.filter(language=language)
    if component:
        qs = qs.filter(Q(components__slug=component) | Q(components__name__iexact=component)).distinct()
    return qs.order_by("slug", "language")


def articles_recent(*, language: str | None = None, limit: int = 8) -> list[Article]:
    qs = Article.objects.published().prefetch_related("components").order_by("-updated", "slug")
    if language:
        qs = qs.filter(language=language)
    return list(qs[:limit])


def components_with_counts() -> QuerySet[Component]:
    return (Component.objects.annotate(n=Count("articles", filter=Q(articles__status=Article.Status.PUBLISHED),
                                               distinct=True))
            .filter(n__gt=0).order_by("name"))


def article_translations(article: Article) -> list[Article]:
    return list(Article.objects.published().filter(slug=article.slug).exclude(pk=article.pk)
                .only("slug", "language", "title"))
