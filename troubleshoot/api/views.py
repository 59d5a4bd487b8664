"""REST API, /api/v1/. Thin views: validate, call a selector or service, shape the output."""

from __future__ import annotations

import dataclasses

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from troubleshoot import selectors
from troubleshoot.analysis import QUEUE_DOWN, Upload, UploadError, analysis_create, analysis_payload
from troubleshoot.api.errors import Conflict, PayloadTooLarge, error_body
from troubleshoot.api.renderers import MarkdownRenderer
from troubleshoot.api.serializers import (
    AnalysisCreated,
    AnalysisOut,
    AnalysisTextInput,
    ArticleDetailSerializer,
    ArticleListSerializer,
    ArticleWriteSerializer,
    ComponentSerializer,
    FeedbackInput,
    FeedbackOut,
    MatchInput,
    MatchResponse,
    RevisionOut,
)
from troubleshoot.feedback import article_exists, feedback_counts, feedback_record, voter_key
from troubleshoot.kbformat import ArticleData, FormatError, article_from_dict
from troubleshoot.learning.services import client_key, match_observed, vote_observed
from troubleshoot.matching import InputTooLarge, match_payload, match_text
from troubleshoot.models import Analysis, Article
from troubleshoot.ownership import owner_session_key, visible_to
from troubleshoot.search import articles_search
from troubleshoot.services import article_delete, article_restore, article_save, article_to_data

SEARCH_LIMIT = 1000
LANGS = ["en", "zh-hans"]

LIST_PARAMS = [
    OpenApiParameter("q", OpenApiTypes.STR, description="Full-text query (same ranking as /search/)."),
    OpenApiParameter("language", OpenApiTypes.STR, enum=LANGS),
    OpenApiParameter("component", OpenApiTypes.STR, description="Component slug or name."),
    OpenApiParameter("status", OpenApiTypes.STR, enum=["draft", "published", "archived"],
                     description="Only for users who can change articles; others always see published ones."),
    OpenApiParameter("page_size", OpenApiTypes.INT, description="1..200, default 20."),
]


def _language(request: Request) -> str | None:
    value = (request.query_params.get("language") or "").strip().lower()
    if value and value not in dict(settings.LANGUAGES):
        raise ValidationError({"language": f"'{value}' is not one of en, zh-hans"})
    return value or None


def _article_data(request: Request, *, base: dict | None = None, slug: str | None = None,
                  language: str | None = None) -> ArticleData:
    if not isinstance(request.data, dict):
        raise ValidationError({"non_field_errors": "Send the article as a JSON object."})
    record = {**(base or {}), **request.data}
    if slug is not None:
        if record.get("slug", slug) != slug or record.get("language", language) != language:
            raise ValidationError({"slug": "The slug and language in the body must match the URL; "
                                           "create a new article to change them."})
        record["slug"], record["language"] = slug, language
    try:
        return article_from_dict(record)
    except FormatError as exc:
        raise ValidationError({exc.field or "non_field_errors": exc.message}) from None


def _file_shape(article: Article) -> dict:
    """The article as the API accepts it for writes (the file format's keys)."""
    data = article_to_data(article)
    record = dataclasses.asdict(data)
    for item in record["symptoms"] + record["fixes"]:
        item["cause"] = item["cause"] + 1 if item["cause"] is not None else None
    return record


WRITE_DESCRIPTION = ("The body is the article as JSON with the article file format's keys (`slug`, `title`, "
                     "`language`, `summary`, `status`, `components`, `environment`, `symptoms`, `causes`, "
                     "`fixes`, `versions`, `references`) plus `problem` and `best_practices` (Markdown). "
                     "`cause` references are 1-based numbers or cause titles. Every write stores a revision "
                     "and updates the search index.")


class ArticleList(generics.ListAPIView):
    serializer_class = ArticleListSerializer
    queryset = Article.objects.none()

    @extend_schema(request=ArticleWriteSerializer, responses={201: ArticleDetailSerializer},
                   summary="Create an article", description=WRITE_DESCRIPTION)
    def post(self, request: Request) -> Response:
        data = _article_data(request)
        if Article.objects.filter(slug=data.slug, language=data.language).exists():
            raise Conflict(f"An article {data.slug}/{data.language} already exists; PUT to "
                           f"/api/v1/articles/{data.slug}/?language={data.language} to change it.")
        result = article_save(data=data, author=request.user, source="api", message="Created through the API")
        article = selectors.article_get(slug=result.article.slug, language=result.article.language,
                                        include_unpublished=True)
        return Response(ArticleDetailSerializer(article, context={"request": request}).data, status=201)

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

    def _write(self, request: Request, *, partial: bool) -> Response:
        article = self.get_object()
        base = _file_shape(article) if partial else None
        data = _article_data(request, base=base, slug=article.slug, language=article.language)
        result = article_save(data=data, author=request.user, source="api",
                              message=str(request.query_params.get("message") or "Edited through the API"))
        fresh = selectors.article_get(slug=result.article.slug, language=result.article.language,
                                      include_unpublished=True)
        return Response(ArticleDetailSerializer(fresh, context={"request": request}).data)

    @extend_schema(request=ArticleWriteSerializer, responses={200: ArticleDetailSerializer},
                   parameters=[OpenApiParameter("language", OpenApiTypes.STR, enum=LANGS)],
                   summary="Replace an article", description=WRITE_DESCRIPTION)
    def put(self, request: Request, slug: str) -> Response:
        return self._write(request, partial=False)

    @extend_schema(request=ArticleWriteSerializer, responses={200: ArticleDetailSerializer},
                   parameters=[OpenApiParameter("language", OpenApiTypes.STR, enum=LANGS)],
                   summary="Change some fields of an article", description=WRITE_DESCRIPTION)
    def patch(self, request: Request, slug: str) -> Response:
        return self._write(request, partial=True)

    @extend_schema(responses={204: None},
                   parameters=[OpenApiParameter("language", OpenApiTypes.STR, enum=LANGS)],
                   summary="Delete an article (its revisions go with it; export first to keep a copy)")
    def delete(self, request: Request, slug: str) -> Response:
        article_delete(article=self.get_object())
        return Response(status=204)

    @extend_schema(parameters=[OpenApiParameter("language", OpenApiTypes.STR, enum=LANGS)],
                   summary="One article, the whole record")
    def get(self, request: Request, *args, **kwargs) -> Response:  # type: ignore[no-untyped-def]
        return super().get(request, *args, **kwargs)

    def get_object(self) -> Article:
        request = self.request
        language = _language(request)
        if request.method not in ("GET", "HEAD", "OPTIONS") and language is None:
            language = "en"
        article = selectors.article_get(
            slug=self.kwargs["slug"], language=language,
            include_unpublished=request.user.has_perm("troubleshoot.change_article"),
        )
        if article is None:
            raise NotFound(f"No article with slug '{self.kwargs['slug']}'"
                           + (f" in language '{request.query_params.get('language')}'."
                              if request.query_params.get("language") else "."))
        return article


class RevisionList(APIView):
    queryset = Article.objects.none()

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)
        if not request.user.has_perm("troubleshoot.change_article"):
            self.permission_denied(request, message="Reading revisions needs the permission to change articles.")

    @extend_schema(responses={200: RevisionOut(many=True)},
                   parameters=[OpenApiParameter("language", OpenApiTypes.STR, enum=LANGS)],
                   summary="Every saved version of an article, newest first")
    def get(self, request: Request, slug: str) -> Response:
        article = _article_for_revisions(request, slug)
        revisions = article.revisions.select_related("author")
        return Response(RevisionOut(revisions, many=True).data)


class RevisionRestore(RevisionList):
    @extend_schema(request=None, responses={200: ArticleDetailSerializer},
                   parameters=[OpenApiParameter("language", OpenApiTypes.STR, enum=LANGS)],
                   summary="Restore a revision (stored as a new revision)")
    def post(self, request: Request, slug: str, number: int) -> Response:
        article = _article_for_revisions(request, slug)
        revision = article.revisions.filter(number=number).first()
        if revision is None:
            raise NotFound(f"Article {slug} has no revision {number}.")
        article_restore(revision=revision, author=request.user)
        fresh = selectors.article_get(slug=article.slug, language=article.language, include_unpublished=True)
        return Response(ArticleDetailSerializer(fresh, context={"request": request}).data)


def _article_for_revisions(request: Request, slug: str) -> Article:
    article = Article.objects.filter(slug=slug, language=_language(request) or "en").first()
    if article is None:
        raise NotFound(f"No article with slug '{slug}'.")
    return article


class ComponentList(generics.ListAPIView):
    serializer_class = ComponentSerializer
    pagination_class = None

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return selectors.components_with_counts()


class BodySizeLimitMixin:
    """Refuse bodies over the limit before parsing them (413 naming the limit)."""

    max_bytes_setting = "MATCH_MAX_BYTES"

    def initial(self, request: Request, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        limit = getattr(settings, self.max_bytes_setting)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        # JSON escaping can double a paste's size; the text itself is checked exactly after parsing.
        if length > 2 * limit + 65536:
            raise PayloadTooLarge(f"The request body is {length} bytes; the limit for the text is {limit} bytes "
                                  f"({self.max_bytes_setting}).")
        super().initial(request, *args, **kwargs)  # type: ignore[misc]


class MatchView(BodySizeLimitMixin, APIView):
    """Match pasted text against the knowledge base."""

    read_like = True
    renderer_classes = [JSONRenderer, MarkdownRenderer]

    @extend_schema(
        request=MatchInput, responses={200: MatchResponse}, summary="Match error text to articles",
        examples=[OpenApiExample(
            "A FailedScheduling event",
            value={"text": "Warning  FailedScheduling  2m  default-scheduler  0/3 nodes are available: 3 node(s) "
                           "had untolerated taint {karpenter.sh/controller: true}.", "limit": 3, "language": "en",
                   "versions": {"Karpenter": "1.1.1"}},
            request_only=True)],
        description="Returns the matching articles ranked best first, with the lines of the paste that matched, "
                    "values captured from it, the most likely cause and its fix. `best` is null when no match "
                    "is confident. `versions` (the KB's component names -> the version you run) adds to the versions "
                    "read from the text; each match's `version_check` compares them with the article's version "
                    "ranges. Send `Accept: text/markdown` (or `?format=markdown`) for a chat-ready summary.",
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": "Send a JSON object such as {\"text\": \"...\"}."})
        text = request.data.get("text")
        if text is not None and not isinstance(text, str):
            raise ValidationError({"text": f"must be a string, got {type(text).__name__}"})
        # Stray NUL bytes turn up in real log files; they carry nothing, so drop them.
        serializer = MatchInput(data={**request.data, **({"text": text.replace("\x00", "")} if text else {})})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            outcome = match_text(text=data["text"], limit=data["limit"], language=data["language"])
        except InputTooLarge as exc:
            raise PayloadTooLarge(str(exc)) from None
        payload = match_payload(outcome, request=request, versions=data["versions"])
        match_observed(text=data["text"], payload=payload, client=api_client(request), surface="api")
        return Response(payload)


class AnalysisCreate(BodySizeLimitMixin, APIView):
    """Upload kubectl output for an analysis (runs in the background)."""

    read_like = True
    max_bytes_setting = "ANALYSIS_MAX_BYTES"
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    @extend_schema(
        request={"application/json": AnalysisTextInput,
                 "multipart/form-data": {"type": "object", "properties": {
                     "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                     "text": {"type": "string"}}}},
        responses={202: AnalysisCreated},
        summary="Start an analysis of kubectl output",
        description="Multipart field `files` (repeatable) and/or `text`, or JSON `{\"text\": \"...\"}`. Secrets are "
                    "redacted before storing. Over ANALYSIS_MAX_BYTES: 413; a binary file: 400 naming it. "
                    "The analysis is visible to its creator (token, user or browser session) and staff.",
        examples=[OpenApiExample("Pasted text", request_only=True, value={
            "text": "$ kubectl get pods -A\nNAMESPACE   NAME    READY   STATUS    RESTARTS   AGE\n"
                    "kube-system   ebs-csi-controller-6d8f7c9b5-abcde   0/6   Pending   0   5m"})],
    )
    def post(self, request: Request) -> Response:
        uploads: list[Upload] = []
        text = None
        if request.content_type and request.content_type.startswith("application/json"):
            if not isinstance(request.data, dict):
                raise ValidationError({"non_field_errors": "Send a JSON object such as {\"text\": \"...\"}."})
            text = request.data.get("text")
            if not isinstance(text, str):
                raise ValidationError({"text": "is required and must be a string"})
        else:
            for f in request.FILES.getlist("files"):
                uploads.append(Upload(name=f.name or "upload", data=f.read(settings.ANALYSIS_MAX_BYTES + 1)))
            raw = request.data.get("text")
            text = raw if isinstance(raw, str) else None
        try:
            analysis = analysis_create(uploads=uploads, text=text, owner=request.user,
                                       session_key=owner_session_key(request._request, user=request.user))
        except UploadError as exc:
            if exc.status == 413:
                raise PayloadTooLarge(exc.message) from None
            raise ValidationError({"files": exc.message}) from None
        analysis.refresh_from_db()
        if analysis.status == Analysis.Status.FAILED and analysis.error == QUEUE_DOWN:
            return Response(error_body("queue_unavailable", QUEUE_DOWN, {"id": analysis.id}), status=503)
        return Response({"id": analysis.id, "status": analysis.status,
                         "url": request.build_absolute_uri(analysis.get_absolute_url())}, status=202)


class AnalysisDetail(APIView):
    read_like = True

    @extend_schema(responses={200: AnalysisOut}, summary="An analysis: status, progress, findings, matches")
    def get(self, request: Request, analysis_id: str) -> Response:
        analysis = Analysis.objects.filter(pk=analysis_id).first()
        session_key = request._request.session.session_key
        if analysis is None or not visible_to(analysis, user=request.user, session_key=session_key):
            raise NotFound("No analysis with this id (it may have expired, or belong to someone else).")
        return Response(analysis_payload(analysis, request=request))


def client_address(request) -> str:  # type: ignore[no-untyped-def]
    return request.META.get("REMOTE_ADDR", "")


def api_client(request: Request) -> str:
    """Who called, for counting distinct clients of an unanswered error (hashed before storing):
    the user or token's user, else the browser session, else the address."""
    return client_key(user=request.user, session_key=request._request.session.session_key,
                      address=client_address(request))


class FeedbackView(APIView):
    """"Did this fix it?" votes. One vote per voter and article; voting again replaces it."""

    read_like = True

    @extend_schema(request=FeedbackInput, responses={201: FeedbackOut}, summary="Vote on an article",
                   examples=[OpenApiExample("Helpful", request_only=True,
                                            value={"article": "untolerated-taint", "helpful": True})])
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": "Send a JSON object such as "
                                                       "{\"article\": \"slug\", \"helpful\": true}."})
        if "helpful" in request.data and not isinstance(request.data["helpful"], bool):
            raise ValidationError({"helpful": "must be true or false"})
        serializer = FeedbackInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if not article_exists(data["article"]):
            raise NotFound(f"No published article with slug '{data['article']}'.")
        session_key = owner_session_key(request._request, user=request.user) or None
        voter = voter_key(user=request.user, session_key=session_key, address=client_address(request))
        vote = feedback_record(
            slug=data["article"], language=data["language"], helpful=data["helpful"], voter=voter,
            user=request.user, query=data.get("query", ""), symptoms=data.get("symptoms"))
        vote_observed(slug=vote.slug, language=vote.language, helpful=vote.helpful, text=data.get("query", ""),
                      client=voter)
        return Response({"article": vote.slug, "helpful": vote.helpful, "counts": feedback_counts(slug=vote.slug)},
                        status=201)
