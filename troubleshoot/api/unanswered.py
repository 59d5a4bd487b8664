"""/api/v1/unanswered/: the editors' queue of errors the KB could not answer (troubleshoot.learning).

Editors are users (session or token) with the permission to change articles; anyone else
gets 401 (not logged in) or 403 (logged in without it), in the API's one error shape.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from troubleshoot.learning.selectors import KINDS, STATUSES, unanswered_get, unanswered_list
from troubleshoot.learning.services import (
    LearningError,
    unanswered_attach,
    unanswered_dismiss,
    unanswered_draft,
    unanswered_recheck,
)
from troubleshoot.models import Article, Symptom, UnansweredTemplate


class CanEditArticles(BasePermission):
    message = "The unanswered queue is for editors: it needs the permission to change articles."

    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        return bool(request.user and request.user.is_authenticated
                    and request.user.has_perm("troubleshoot.change_article"))


class NearOut(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    score = serializers.FloatField()


class UnansweredOut(serializers.ModelSerializer):
    examples = serializers.ListField(child=serializers.CharField(), help_text="up to 3 readable masked lines")
    near = NearOut(many=True, help_text="the closest articles when it was last matched")
    article = serializers.SerializerMethodField(help_text="answered-wrong: the article that got the 'No' vote")
    resolved_article = serializers.SerializerMethodField(
        help_text="the article it was attached to, drafted as, or is answered by now")

    class Meta:
        model = UnansweredTemplate
        fields = ["id", "kind", "status", "template", "examples", "count", "clients", "first_seen", "last_seen",
                  "near", "article", "resolved_article"]

    def get_article(self, obj: UnansweredTemplate) -> str | None:
        return obj.article or None

    def get_resolved_article(self, obj: UnansweredTemplate) -> str | None:
        return obj.resolved_article or None


class AttachInput(serializers.Serializer):
    article = serializers.SlugField(help_text="slug of the article the template becomes a symptom of")
    language = serializers.ChoiceField(choices=Article.Language.choices, default="en", required=False)


class SymptomAdded(serializers.ModelSerializer):
    class Meta:
        model = Symptom
        fields = ["position", "text", "kind", "source", "pattern", "weight"]


class AttachOut(serializers.Serializer):
    article = serializers.CharField()
    symptom = SymptomAdded()


class DraftInput(serializers.Serializer):
    title = serializers.CharField(required=False, allow_blank=True, max_length=200,
                                  help_text="optional; default: the error line itself")
    language = serializers.ChoiceField(choices=Article.Language.choices, default="en", required=False)


class DraftOut(serializers.Serializer):
    slug = serializers.CharField()
    language = serializers.CharField()
    url = serializers.URLField(help_text="the draft's page (editors see drafts)")
    status = serializers.ChoiceField(choices=["draft"])


class DismissOut(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["dismissed"])


def _choice(request: Request, name: str, allowed: list[str], default: str | None) -> str | None:
    value = (request.query_params.get(name) or "").strip()
    if not value:
        return default
    if value not in allowed:
        raise ValidationError({name: f"'{value}' is not one of {', '.join(allowed)}"})
    return value


def _body(request: Request, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
    data = request.data if request.data is not None else {}
    if not isinstance(data, dict):
        raise ValidationError({"non_field_errors": "Send a JSON object."})
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class EditorView(APIView):
    permission_classes = [CanEditArticles]

    def entry(self, entry_id: int) -> UnansweredTemplate:
        entry = unanswered_get(entry_id=entry_id)
        if entry is None:
            raise NotFound(f"No unanswered template with id {entry_id}.")
        return entry


class UnansweredList(generics.ListAPIView):
    permission_classes = [CanEditArticles]
    serializer_class = UnansweredOut
    queryset = UnansweredTemplate.objects.none()

    @extend_schema(
        summary="The errors the KB could not answer (editors)",
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, enum=KINDS),
            OpenApiParameter("status", OpenApiTypes.STR, enum=[*STATUSES, "all"],
                             description="default open: the queue; attached, drafted, answered and dismissed "
                                         "rows have left it"),
            OpenApiParameter("page_size", OpenApiTypes.INT, description="1..200, default 20."),
        ],
        description="Masked templates of pasted error lines that got no confident answer (`unanswered`) or a "
                    "'No' vote (`answered-wrong`), most widespread first (distinct clients, then occurrences). "
                    "Rows that the KB answers now leave the queue by themselves.")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):  # type: ignore[no-untyped-def]
        kind = _choice(self.request, "kind", KINDS, None)
        status = _choice(self.request, "status", [*STATUSES, "all"], UnansweredTemplate.Status.OPEN)
        unanswered_recheck()
        return unanswered_list(kind=kind, status=None if status == "all" else status)


class UnansweredDetail(EditorView):
    @extend_schema(responses={200: UnansweredOut}, summary="One unanswered template (editors)")
    def get(self, request: Request, entry_id: int) -> Response:
        return Response(UnansweredOut(self.entry(entry_id)).data)


class UnansweredAttach(EditorView):
    @extend_schema(
        request=AttachInput, responses={200: AttachOut}, summary="Make the template a symptom of an article",
        description="Adds the template as a new symptom of the article (readable text, and a pattern that matches "
                    "every variant of it), stored with a revision. The matcher of every process answers with the "
                    "article within KB_SYNC_INTERVAL_MS. The entry leaves the queue.",
        examples=[OpenApiExample("Attach", request_only=True, value={"article": "oom-demo", "language": "en"})])
    def post(self, request: Request, entry_id: int) -> Response:
        entry = self.entry(entry_id)
        data = _body(request, AttachInput)
        try:
            symptom = unanswered_attach(entry=entry, slug=data["article"], language=data.get("language", "en"),
                                        user=request.user)
        except LearningError as exc:
            raise ValidationError({exc.field: exc.message}) from None
        return Response({"article": data["article"], "symptom": SymptomAdded(symptom).data})


class UnansweredDraft(EditorView):
    @extend_schema(
        request=DraftInput, responses={201: DraftOut}, summary="Start a draft article from the template",
        description="Creates a draft article (a new, unique slug) whose symptom is the template. Publish it (admin, "
                    "or PATCH /api/v1/articles/<slug>/ with {\"status\": \"published\"}) to make it match.",
        examples=[OpenApiExample("Draft", request_only=True, value={"title": "Widget lease refused"})])
    def post(self, request: Request, entry_id: int) -> Response:
        entry = self.entry(entry_id)
        data = _body(request, DraftInput)
        try:
            article = unanswered_draft(entry=entry, title=data.get("title", ""),
                                       language=data.get("language", "en"), user=request.user)
        except LearningError as exc:
            raise ValidationError({exc.field: exc.message}) from None
        return Response({"slug": article.slug, "language": article.language, "status": Article.Status.DRAFT.value,
                         "url": request.build_absolute_uri(article.get_absolute_url())}, status=201)


class UnansweredDismiss(EditorView):
    @extend_schema(request=None, responses={200: DismissOut}, summary="Not ours: dismiss the template",
                   description="The entry leaves the queue and its template is never recorded again.")
    def post(self, request: Request, entry_id: int) -> Response:
        entry = self.entry(entry_id)
        unanswered_dismiss(entry=entry, user=request.user)
        return Response({"id": entry.pk, "status": UnansweredTemplate.Status.DISMISSED.value})
