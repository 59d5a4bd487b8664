"""Editing in the Django admin: inlines for the structured parts, a revision history
with restore. Every save goes through the services so it is recorded and indexed."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from troubleshoot import services
from troubleshoot.feedback import feedback_by_symptom, feedback_counts
from troubleshoot.models import (
    Analysis,
    Article,
    Cause,
    Component,
    Feedback,
    Fix,
    Reference,
    Revision,
    Symptom,
    UnansweredTemplate,
    VersionRange,
)


class CauseInline(admin.StackedInline):
    model = Cause
    extra = 0
    fields = ["position", "title", "body"]


class SymptomInline(admin.StackedInline):
    model = Symptom
    extra = 0
    fields = ["position", "text", ("kind", "source", "weight"), "pattern", "when", "cause"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):  # type: ignore[no-untyped-def]
        if db_field.name == "cause":
            kwargs["queryset"] = Cause.objects.filter(article_id=request.resolver_match.kwargs.get("object_id"))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class FixInline(SymptomInline):
    model = Fix
    fields = ["position", "title", "cause", "body", "verify"]


class VersionInline(admin.TabularInline):
    model = VersionRange
    extra = 0
    fields = ["position", "component", "affected", "fixed_in", "note"]


class ReferenceInline(admin.TabularInline):
    model = Reference
    extra = 0
    fields = ["position", "title", "url"]


@admin.register(Article)
class ArticleAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "language", "status", "updated", "votes", "history_link"]
    list_filter = ["status", "language", "components"]
    search_fields = ["title", "slug", "summary", "symptoms__text"]
    filter_horizontal = ["components"]
    readonly_fields = ["created", "updated", "author", "feedback_summary"]
    fieldsets = [
        (None, {"fields": ["slug", "language", "title", "summary", "status", "components"]}),
        ("Content", {"fields": ["environment", "problem", "best_practices"]}),
        ("Feedback", {"fields": ["feedback_summary"]}),
        ("Record", {"fields": ["author", "created", "updated"], "classes": ["collapse"]}),
    ]
    inlines = [SymptomInline, CauseInline, FixInline, VersionInline, ReferenceInline]

    @admin.display(description="Votes (👍/👎)")
    def votes(self, obj: Article) -> str:
        counts = feedback_counts(slug=obj.slug)
        return f"{counts['helpful']} / {counts['unhelpful']}"

    @admin.display(description="Did it fix it? (per article and per matched symptom)")
    def feedback_summary(self, obj: Article) -> str:
        if obj.pk is None:
            return "—"
        counts = feedback_counts(slug=obj.slug)
        by_symptom = feedback_by_symptom(slug=obj.slug)
        texts = {f"{obj.slug}:{obj.language}:{s.position}": s.text for s in obj.symptoms.all()}
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                                ((texts.get(key, key)[:120], c["helpful"], c["unhelpful"])
                                 for key, c in sorted(by_symptom.items())))
        return format_html("<p>Helpful: {} · Not helpful: {}</p><table><tr><th>Symptom</th><th>👍</th><th>👎</th>"
                           "</tr>{}</table>", counts["helpful"], counts["unhelpful"], rows)

    @admin.display(description="History")
    def history_link(self, obj: Article) -> str:
        url = reverse("admin:troubleshoot_article_revisions", args=[obj.pk])
        return format_html('<a href="{}">{} revision(s)</a>', url, obj.revisions.count())

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        if not change:
            obj.author = request.user
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):  # type: ignore[no-untyped-def]
        super().save_related(request, form, formsets, change)
        services.article_touch(article=form.instance, author=request.user, source="admin",
                               message="Edited in the admin")

    def delete_model(self, request, obj):  # type: ignore[no-untyped-def]
        services.article_delete(article=obj)

    def delete_queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        for obj in queryset:
            services.article_delete(article=obj)

    def get_urls(self):  # type: ignore[no-untyped-def]
        return [
            path("<int:object_id>/revisions/", self.admin_site.admin_view(self.revisions_view),
                 name="troubleshoot_article_revisions"),
            path("<int:object_id>/revisions/<int:number>/restore/",
                 self.admin_site.admin_view(require_POST(self.restore_view)),
                 name="troubleshoot_article_restore"),
        ] + super().get_urls()

    def revisions_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        article = get_object_or_404(Article, pk=object_id)
        if not self.has_view_or_change_permission(request, article):
            raise PermissionDenied
        revisions = list(article.revisions.select_related("author"))
        for revision in revisions:
            revision.pretty = json.dumps(revision.content, ensure_ascii=False, indent=2)
        return render(request, "admin/troubleshoot/article_revisions.html", {
            **self.admin_site.each_context(request),
            "opts": self.model._meta, "original": article, "title": f"Revisions of {article}",
            "revisions": revisions, "can_restore": self.has_change_permission(request, article),
        })

    def restore_view(self, request: HttpRequest, object_id: int, number: int) -> HttpResponse:
        article = get_object_or_404(Article, pk=object_id)
        if not self.has_change_permission(request, article):
            raise PermissionDenied
        revision = get_object_or_404(Revision, article=article, number=number)
        result = services.article_restore(revision=revision, author=request.user)
        if result.changed:
            messages.success(request, f"Restored revision {number}; the restore is itself a new revision.")
        else:
            messages.info(request, f"Revision {number} is the current content; nothing changed.")
        return HttpResponseRedirect(reverse("admin:troubleshoot_article_change", args=[article.pk]))


@admin.register(Feedback)
class FeedbackAdmin(admin.ModelAdmin):
    list_display = ["slug", "language", "helpful", "voter", "created"]
    list_filter = ["helpful", "language"]
    search_fields = ["slug", "query"]
    readonly_fields = ["slug", "language", "helpful", "voter", "user", "query", "symptoms", "created"]


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "owner", "created", "finished"]
    list_filter = ["status"]
    readonly_fields = ["id", "owner", "session_key", "status", "progress", "progress_message", "sources",
                       "redactions", "summary", "error", "attempts", "created", "started", "finished"]
    exclude = ["text", "findings", "matches"]


@admin.register(Component)
class ComponentAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    list_display = ["article", "number", "source", "author", "created"]
    list_filter = ["source"]
    readonly_fields = ["article", "number", "source", "author", "created", "message", "content"]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(UnansweredTemplate)
class UnansweredTemplateAdmin(admin.ModelAdmin):
    """The learning queue, read-only (editors act on it at /unanswered/ or through the API)."""

    list_display = ["short_template", "kind", "status", "clients", "count", "article", "first_seen", "last_seen",
                    "resolved_article"]
    list_filter = ["status", "kind", "language"]
    search_fields = ["template", "article", "resolved_article"]
    ordering = ["-clients", "-count", "-last_seen"]
    readonly_fields = ["kind", "status", "template", "examples", "article", "language", "count", "clients",
                       "near", "first_seen", "last_seen", "resolved_article", "resolved_by", "resolved_at",
                       "checked_version", "fingerprint"]
    actions = ["dismiss"]

    @admin.display(description="Template")
    def short_template(self, obj: UnansweredTemplate) -> str:
        return obj.template if len(obj.template) <= 120 else obj.template[:119] + "…"

    @admin.action(description="Dismiss (not ours: never recorded again)", permissions=["change"])
    def dismiss(self, request: HttpRequest, queryset) -> None:  # type: ignore[no-untyped-def]
        from troubleshoot.learning.services import unanswered_dismiss

        for entry in queryset:
            unanswered_dismiss(entry=entry, user=request.user)
        messages.success(request, f"Dismissed {len(queryset)} template(s).")

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False
