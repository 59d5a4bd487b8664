"""Portal pages of the learning loop: the editors' queue (/unanswered/) and what is kept (/about/learning/)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from troubleshoot.learning.selectors import KINDS, unanswered_get, unanswered_list
from troubleshoot.learning.services import (
    LearningError,
    unanswered_attach,
    unanswered_dismiss,
    unanswered_draft,
    unanswered_recheck,
)
from troubleshoot.models import Article, UnansweredTemplate

PAGE_SIZE = 20


def editors_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """401 (with a login link) for visitors, 403 for users who cannot change articles."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:  # type: ignore[no-untyped-def]
        if not request.user.is_authenticated:
            return HttpResponse(render_to_string("401.html", {"next": request.get_full_path()}, request=request),
                                status=401)
        if not request.user.has_perm("troubleshoot.change_article"):
            raise PermissionDenied("The unanswered queue is for editors.")
        return view(request, *args, **kwargs)

    return wrapper


@require_GET
def about_learning(request: HttpRequest) -> HttpResponse:
    return render(request, "troubleshoot/learning.html", {
        "kb_learn": settings.KB_LEARN, "retention_days": settings.KB_LEARN_RETENTION_DAYS})


@require_GET
@editors_only
def queue(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind") or ""
    if kind not in KINDS:
        kind = ""
    unanswered_recheck()
    page = Paginator(unanswered_list(kind=kind or None), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "troubleshoot/unanswered.html", {
        "page": page, "kind": kind, "kinds": UnansweredTemplate.Kind.choices, "kb_learn": settings.KB_LEARN,
        "languages": Article.Language.choices,
    })


def _entry(entry_id: int) -> UnansweredTemplate:
    entry = unanswered_get(entry_id=entry_id)
    if entry is None:
        raise Http404("No such unanswered template")
    return entry


def _back(request: HttpRequest) -> HttpResponse:
    kind = request.POST.get("kind") or ""
    return redirect(f"/unanswered/?kind={kind}" if kind in KINDS else "/unanswered/")


@require_POST
@editors_only
def attach(request: HttpRequest, entry_id: int) -> HttpResponse:
    entry = _entry(entry_id)
    slug = (request.POST.get("article") or "").strip()
    language = request.POST.get("language") or "en"
    if language not in dict(Article.Language.choices):
        language = "en"
    try:
        unanswered_attach(entry=entry, slug=slug, language=language, user=request.user)
    except LearningError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Added as a symptom of %(slug)s; it matches from now on.") % {"slug": slug})
    return _back(request)


@require_POST
@editors_only
def draft(request: HttpRequest, entry_id: int) -> HttpResponse:
    entry = _entry(entry_id)
    language = request.POST.get("language") or "en"
    if language not in dict(Article.Language.choices):
        language = "en"
    try:
        article = unanswered_draft(entry=entry, title=(request.POST.get("title") or "")[:200], language=language,
                                   user=request.user)
    except LearningError as exc:
        messages.error(request, exc.message)
        return _back(request)
    messages.success(request, _("Draft %(slug)s created: write its causes and fixes, then publish it.")
                     % {"slug": article.slug})
    return redirect(article.get_absolute_url())


@require_POST
@editors_only
def dismiss(request: HttpRequest, entry_id: int) -> HttpResponse:
    unanswered_dismiss(entry=_entry(entry_id), user=request.user)
    messages.success(request, _("Dismissed: this error will not be recorded again."))
    return _back(request)
