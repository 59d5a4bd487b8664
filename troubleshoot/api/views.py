"""REST API, /api/v1/. Thin views: validate, call a selector or service, shape the output."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from troubleshoot import selectors
from troubleshoot.api.serializers import ArticleDetailSerializer, ArticleListSerializer, ComponentSerializer
from troubleshoot.models import Article
from troubleshoot.search import articles_search

SEARCH_LIMIT = 1000

LIST_PARAMS = [
    OpenApiParameter("q", OpenApiTypes.STR, description="Full-text query (same ranking as /search/)."),
    OpenApiParameter("language", OpenApiTypes.STR, enum=["en", "zh-hans"]),
    OpenApiParameter("component", OpenApiTypes.STR, description="Component slug or name."),
    OpenApiParameter("status", OpenApiTypes.STR, enum=["draft", "published", "archived"],
                     description="Only for users who can change articles; others always see published ones."),
    OpenApiParameter("page_size", OpenApiTypes.INT, description="1..200, default 20."),
]


def _language(request: Request) -> str | None:
    value = (request.query_params.get("language") or "").strip().lower()
    if value and value not in dict(settings.LANGUAGES):
        from rest_framework.exceptions import ValidationError

        raise ValidationError({"language": f"'{value}' is not one of en, zh-hans"})
    return value or None


class ArticleList(generics.ListAPIView):
    serializer_class = ArticleListSerializer
    queryset = Article.objects.none()

    @extend_schema(parameters=LIST_PARAMS, summary="List or search articles")
    def get(self, request: Request, *args, **kwargs) -> Response:  # type: ignore[no-untyped-def]
        return super().get(request, *args, **kwargs)

    def get_queryset(self):  # type: ignore[no-untyped-def]
        request = self.request
        can_edit = request.user.has_perm("troubleshoot.change_article")
        language = _language(request)
        component = (request.query_params.get("component") or "").strip() or None
        status = (request.query_params.get("status") or "").strip() or None
        query = (request.query_params.get("q") or "").strip()[:500]
        if not query:
            return selectors.articles_list(language=language, component=component, status=status,
                                           include_unpublished=can_edit)
        results = articles_search(query=query, language=language, component=component, limit=SEARCH_LIMIT)
        found = {(a.slug, a.language): a for a in Article.objects.published().prefetch_related("components")
                 .filter(slug__in={h.slug for h in results.hits})}
        return [found[(h.slug, h.language)] for h in results.hits if (h.slug, h.language) in found]


class ArticleDetail(generics.RetrieveAPIView):
    serializer_class = ArticleDetailSerializer
    queryset = Article.objects.none()

    @extend_schema(parameters=[OpenApiParameter("language", OpenApiTypes.STR, enum=["en", "zh-hans"])],
                   summary="One article, the whole record")
    def get(self, request: Request, *args, **kwargs) -> Response:  # type: ignore[no-untyped-def]
        return super().get(request, *args, **kwargs)

    def get_object(self) -> Article:
        request = self.request
        article = selectors.article_get(
            slug=self.kwargs["slug"], language=_language(request),
            include_unpublished=request.user.has_perm("troubleshoot.change_article"),
        )
        if article is None:
            raise NotFound(f"No article with slug '{self.kwargs['slug']}'"
                           + (f" in language '{request.query_params.get('language')}'."
                              if request.query_params.get("language") else "."))
        return article


class ComponentList(generics.ListAPIView):
    serializer_class = ComponentSerializer
    pagination_class = None

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return selectors.components_with_counts()
