"""Portal pages: thin views over selectors and services."""

from __future__ import annotations

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from troubleshoot import selectors
from troubleshoot.models import Component
from troubleshoot.ownership import owner_session_key, visible_to
from troubleshoot.rendering import render_inline
from troubleshoot.search import articles_search

SEARCH_PAGE_SIZE = 20
MAX_QUERY_CHARS = 500


def ui_language(request: HttpRequest) -> str:
    lang = (get_language() or "en").lower()
    return "zh-hans" if lang.startswith("zh") else "en"


def _language_param(request: HttpRequest) -> str | None:
    value = (request.GET.get("language") or "").strip().lower()
    return value if value in dict(settings.LANGUAGES) else None


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "troubleshoot/home.html", {
        "components": selectors.components_with_counts(),
        "recent": selectors.articles_recent(language=ui_language(request)) or selectors.articles_recent(),
        "max_bytes": settings.MATCH_MAX_BYTES,
        "kb_learn": settings.KB_LEARN,
    })


def page_client(request: HttpRequest) -> str:
    """Who is pasting or voting on a page, for counting distinct clients (hashed before storing)."""
    from troubleshoot.learning.services import client_key

    return client_key(user=request.user, session_key=request.session.session_key,
                      address=request.META.get("REMOTE_ADDR"))


@require_GET
def search(request: HttpRequest) -> HttpResponse:
    query = (request.GET.get("q") or "").strip()[:MAX_QUERY_CHARS]
    language = _language_param(request)
    component = (request.GET.get("component") or "").strip() or None
    try:
        page_number = max(1, int(request.GET.get("page") or 1))
    except ValueError:
        page_number = 1
    results = None
    hits = []
    if query:
        results = articles_search(query=query, language=language, component=component,
                                  limit=SEARCH_PAGE_SIZE, offset=(page_number - 1) * SEARCH_PAGE_SIZE)
        hits = [{"hit": h, "snippet": render_inline(h.snippet)} for h in results.hits]
    pages = (results.total + SEARCH_PAGE_SIZE - 1) // SEARCH_PAGE_SIZE if results else 0
    return render(request, "troubleshoot/search.html", {
        "query": query, "language": language or "", "component": component or "",
        "results": results, "hits": hits, "page": page_number, "pages": pages,
        "components": selectors.components_with_counts(),
    })


@require_GET
def article(request: HttpRequest, slug: str) -> HttpResponse:
    can_edit = request.user.has_perm("troubleshoot.change_article")
    obj = selectors.article_get(slug=slug, language=_language_param(request), preferred=ui_language(request),
                                include_unpublished=can_edit)
    if obj is None:
        raise Http404("No such article")
    causes = list(obj.causes.all())
    fixes = list(obj.fixes.all())
    cause_blocks = [{"cause": c, "fixes": [f for f in fixes if f.cause_id == c.pk]} for c in causes]
    general_fixes = [f for f in fixes if f.cause_id is None]
    return render(request, "troubleshoot/article.html", {
        "article": obj,
        "symptoms": list(obj.symptoms.all()),
        "cause_blocks": cause_blocks,
        "general_fixes": general_fixes,
        "versions": list(obj.versions.all()),
        "references": list(obj.references.all()),
        "translations": selectors.article_translations(obj),
        "can_edit": can_edit,
    })


@require_GET
def components(request: HttpRequest) -> HttpResponse:
    return render(request, "troubleshoot/components.html", {"components": selectors.components_with_counts()})


@require_GET
def component(request: HttpRequest, slug: str) -> HttpResponse:
    comp = get_object_or_404(Component, slug=slug)
    language = _language_param(request)
    articles = selectors.articles_list(component=comp.slug, language=language)
    page = Paginator(articles, 50).get_page(request.GET.get("page"))
    return render(request, "troubleshoot/component.html", {"component": comp, "page": page,
                                                           "language": language or ""})


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. Touches nothing else."""
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness for load balancers: database, search index freshness, broker when configured."""
    from troubleshoot.health import readiness

    checks = readiness()
    ok = all(c["ok"] for c in checks.values())
    return JsonResponse({"status": "ok" if ok else "unavailable", "checks": checks}, status=200 if ok else 503)


def _evidence_segments(text: str, span: list[int]) -> dict[str, str]:
    start, end = (max(0, span[0]), min(len(text), span[1])) if span and len(span) == 2 else (0, 0)
    if start >= end:
        return {"before": text, "hit": "", "after": ""}
    return {"before": text[:start], "hit": text[start:end], "after": text[end:]}


def match_view_context(payload: dict, text: str) -> dict:
    from troubleshoot.rendering import render_filled_markdown, render_markdown

    results = []
    for m in payload["matches"]:
        fix = m.get("fix")
        results.append({
            **m,
            "is_best": payload["best"] is not None and m is payload["best"],
            "evidence_view": [{**e, **_evidence_segments(e["text"], e["span"])} for e in m["evidence"][:8]],
            "more_evidence": max(0, len(m["evidence"]) - 8),
            "cause_html": render_markdown(m["cause"]["body"]) if m.get("cause") else "",
            "fix_html": render_filled_markdown(fix["body"]) if fix else "",
            "verify_html": render_markdown(fix["verify"]) if fix and fix.get("verify") else "",
        })
    return {"text": text, "payload": payload, "results": results, "best": payload["best"],
            "search_query": _search_query_for(text)}


def _search_query_for(text: str) -> str:
    """A short search query from the paste for the 'no confident match' state: the words of its
    worst line (an error over a warning over anything else), not just its first line."""
    from troubleshoot.engine.condense import condense, query_text
    from troubleshoot.engine.normalize import normalize_cached
    from troubleshoot.engine.reader import read

    lines = read(text[:200_000])
    digest = query_text(condense(lines, [normalize_cached(line.text) for line in lines]), lines, max_chars=400)
    first = digest.split("\n", 1)[0].strip()
    return first[:200] if first else text.strip()[:200]


def match(request: HttpRequest) -> HttpResponse:
    from troubleshoot.learning.services import match_observed
    from troubleshoot.matching import InputTooLarge, match_payload, match_text
    from troubleshoot.rendering import mark_fill_value

    if request.method != "POST":
        return redirect("home")
    text = request.POST.get("text", "")
    context: dict = {"text": text, "max_bytes": settings.MATCH_MAX_BYTES, "kb_learn": settings.KB_LEARN}
    if not text.strip():
        context["error"] = _("Paste some error text first: the box was empty.")
        return render(request, "troubleshoot/match.html", context, status=400)
    try:
        outcome = match_text(text=text, limit=5, language=ui_language(request))
    except InputTooLarge as exc:
        context["error"] = str(exc)
        return render(request, "troubleshoot/match.html", context, status=413)
    payload = match_payload(outcome, request=request, mark=mark_fill_value)
    match_observed(text=text, payload=payload, client=page_client(request), surface="page")
    context.update(match_view_context(payload, text))
    return render(request, "troubleshoot/match.html", context)


def analysis_new(request: HttpRequest) -> HttpResponse:
    from troubleshoot.analysis import Upload, UploadError, analysis_create

    context: dict = {"max_bytes": settings.ANALYSIS_MAX_BYTES}
    if request.method == "POST":
        uploads = [Upload(name=f.name or "upload", data=f.read(settings.ANALYSIS_MAX_BYTES + 1))
                   for f in request.FILES.getlist("files")]
        text = request.POST.get("text", "")
        try:
            analysis = analysis_create(uploads=uploads, text=text, owner=request.user,
                                       session_key=owner_session_key(request))
        except UploadError as exc:
            context.update(error=exc.message, text=text)
            return render(request, "troubleshoot/analysis_new.html", context, status=exc.status)
        return redirect("analysis", analysis_id=analysis.id)
    return render(request, "troubleshoot/analysis_new.html", context)


@require_GET
def analysis_report(request: HttpRequest, analysis_id: str) -> HttpResponse:
    from troubleshoot.models import Analysis

    analysis = Analysis.objects.filter(pk=analysis_id).first()
    if analysis is None or not visible_to(analysis, user=request.user,
                                                session_key=request.session.session_key):
        raise Http404("No such analysis")
    finished = analysis.status in (Analysis.Status.DONE, Analysis.Status.FAILED)
    return render(request, "troubleshoot/analysis.html", {
        "analysis": analysis, "finished": finished, "percent": int(analysis.progress * 100),
    })


@require_POST
def feedback_submit(request: HttpRequest) -> HttpResponse:
    """The "did this fix it?" buttons (a plain form; works without JS)."""
    from django.contrib import messages
    from django.utils.http import url_has_allowed_host_and_scheme

    from troubleshoot.feedback import article_exists, feedback_record, voter_key
    from troubleshoot.learning.services import vote_observed

    slug = (request.POST.get("article") or "").strip()
    helpful = request.POST.get("helpful")
    next_url = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = "/"
    if helpful not in ("1", "0") or not article_exists(slug):
        return HttpResponse(_("Unknown article or vote."), status=400, content_type="text/plain; charset=utf-8")
    voter = voter_key(user=request.user, session_key=owner_session_key(request),
                      address=request.META.get("REMOTE_ADDR"))
    language = request.POST.get("language") or "en"
    feedback_record(slug=slug, language=language, helpful=helpful == "1", voter=voter, user=request.user,
                    symptoms=[s for s in request.POST.getlist("symptom") if s][:20])
    # The results page sends the lines of the paste that led to this article with a vote.
    vote_observed(slug=slug, language=language, helpful=helpful == "1", client=voter,
                  text="\n".join(line for line in request.POST.getlist("line")[:20] if line)[:20_000])
    messages.success(request, _("Thanks, your vote was recorded."))
    return redirect(next_url)


@require_POST
def paste_save(request: HttpRequest) -> HttpResponse:
    """"Save & share": keep a redacted copy of the paste under an unguessable permalink."""
    from troubleshoot.models import SavedPaste
    from troubleshoot.redact import redact

    text = request.POST.get("text", "")
    if not text.strip():
        return HttpResponse(_("There is nothing to save: the paste is empty."), status=400,
                            content_type="text/plain; charset=utf-8")
    if len(text.encode("utf-8")) > settings.MATCH_MAX_BYTES:
        return HttpResponse(_("The paste is larger than MATCH_MAX_BYTES."), status=413,
                            content_type="text/plain; charset=utf-8")
    redacted, found = redact(text)
    paste = SavedPaste.objects.create(
        owner=request.user if request.user.is_authenticated else None,
        session_key=owner_session_key(request),
        text=redacted, redactions=[{"kind": r.kind, "line": r.line, "preview": r.preview} for r in found])
    return redirect(paste.get_absolute_url())


@require_GET
def paste_view(request: HttpRequest, paste_id: str) -> HttpResponse:
    from troubleshoot.matching import match_payload, match_text
    from troubleshoot.models import SavedPaste
    from troubleshoot.rendering import mark_fill_value

    paste = SavedPaste.objects.filter(pk=paste_id).first()
    if paste is None or not visible_to(paste, user=request.user, session_key=request.session.session_key):
        raise Http404("No such saved paste")
    payload = match_payload(match_text(text=paste.text, limit=5, language=ui_language(request)),
                            request=request, mark=mark_fill_value)
    context = {"max_bytes": settings.MATCH_MAX_BYTES, "saved": paste, "kb_learn": settings.KB_LEARN}
    context.update(match_view_context(payload, paste.text))
    return render(request, "troubleshoot/match.html", context)
