"""The queue for editors outside the API: the /unanswered/ page and its forms, the home page's note and
its explanation page, the admin, `manage.py unanswered`, and retention."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from troubleshoot.models import Article, UnansweredTemplate

from .unknown_error import PASTES

PASTES = PASTES[:2]

@pytest.fixture
def queued(fixture_kb):
    for i, paste in enumerate(PASTES):
        Client(REMOTE_ADDR=f"10.9.9.{i}").post("/match/", {"text": paste})
    Client().post("/api/v1/feedback/", json.dumps({"article": "dns-demo", "helpful": False,
                                                   "query": "error: gizmo lease refused by the frobnicator quota"}),
                  content_type="application/json")
    return UnansweredTemplate.objects.get(kind="unanswered")


@pytest.mark.django_db
def test_the_page_lists_the_queue_with_its_actions(queued, editor):
    response = editor.get("/unanswered/")
    assert response.status_code == 200
    page = response.content.decode()
    assert queued.template.replace("<", "&lt;").replace(">", "&gt;") in page
    assert "2 times" in page and "2 clients" in page
    for action in ("attach", "draft", "dismiss"):
        assert f'action="/unanswered/{queued.pk}/{action}/"' in page
    assert page.count("csrfmiddlewaretoken") >= 3 * 2
    only_wrong = editor.get("/unanswered/?kind=answered-wrong").content.decode()
    assert f'data-id="{queued.pk}"' not in only_wrong and "dns-demo" in only_wrong
    assert 'href="/unanswered/"' in editor.get("/").content.decode()  # in the editors' navigation


@pytest.mark.django_db
def test_the_page_is_for_editors_only(queued, django_user_model):
    assert Client().get("/unanswered/").status_code == 401
    assert Client().post(f"/unanswered/{queued.pk}/dismiss/").status_code == 401
    reader = Client()
    reader.force_login(django_user_model.objects.create_user("reader"))
    assert reader.get("/unanswered/").status_code == 403
    assert reader.post(f"/unanswered/{queued.pk}/dismiss/").status_code == 403
    assert 'href="/unanswered/"' not in reader.get("/").content.decode()
    queued.refresh_from_db()
    assert queued.status == "open"


@pytest.mark.django_db
def test_the_forms_attach_draft_and_dismiss(queued, editor):
    response = editor.post(f"/unanswered/{queued.pk}/attach/", {"article": "oom-demo", "language": "en"}, follow=True)
    assert response.status_code == 200 and "Added as a symptom of oom-demo" in response.content.decode()
    queued.refresh_from_db()
    assert queued.status == "attached"
    wrong = UnansweredTemplate.objects.get(kind="answered-wrong")
    response = editor.post(f"/unanswered/{wrong.pk}/draft/", {"title": "Gizmo lease refused"})
    assert response.status_code == 302 and response["Location"] == "/articles/gizmo-lease-refused/"
    assert Article.objects.get(slug="gizmo-lease-refused").status == "draft"
    assert editor.get(response["Location"]).status_code == 200  # editors see drafts
    bad = editor.post(f"/unanswered/{queued.pk}/attach/", {"article": "no-such-article"}, follow=True)
    assert "No article &#x27;no-such-article&#x27;" in bad.content.decode()
    assert editor.post("/unanswered/999999/dismiss/").status_code == 404
    editor.post(f"/unanswered/{wrong.pk}/dismiss/")
    wrong.refresh_from_db()
    assert wrong.status == "dismissed"
    assert "Nothing in the queue" in editor.get("/unanswered/").content.decode()


@pytest.mark.django_db
def test_the_home_page_tells_the_truth_about_what_is_kept(fixture_kb, client, settings):
    home = client.get("/").content.decode()
    assert "Nothing you paste is stored" not in home
    assert "kept as masked templates" in home and 'href="/about/learning/"' in home
    about = client.get("/about/learning/")
    assert about.status_code == 200 and "masked templates" in about.content.decode()
    assert "90 days" in about.content.decode()
    results = client.post("/match/", {"text": PASTES[0]}).content.decode()
    assert "nothing is stored" not in results and "masked templates" in results
    settings.KB_LEARN = False
    assert "Nothing you paste is stored." in client.get("/").content.decode()
    assert "nothing you paste is stored" in client.get("/about/learning/").content.decode()
    assert "nothing is stored" in client.post("/match/", {"text": PASTES[0]}).content.decode()


@pytest.mark.django_db
def test_the_note_is_translated(fixture_kb, client):
    home = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "掩码模板" in home
    assert "掩码模板" in client.get("/about/learning/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


@pytest.mark.django_db
def test_the_admin_shows_the_queue(queued, admin_client):
    listing = admin_client.get("/admin/troubleshoot/unansweredtemplate/")
    assert listing.status_code == 200
    page = listing.content.decode()
    assert "failedfrobnicate" in page and "Answered wrong" in page
    filtered = admin_client.get("/admin/troubleshoot/unansweredtemplate/?kind__exact=answered-wrong").content.decode()
    assert "failedfrobnicate" not in filtered
    detail = admin_client.get(f"/admin/troubleshoot/unansweredtemplate/{queued.pk}/change/")
    assert detail.status_code == 200 and 'name="template"' not in detail.content.decode()  # read-only
    assert admin_client.get("/admin/troubleshoot/unansweredtemplate/add/").status_code == 403
    admin_client.post("/admin/troubleshoot/unansweredtemplate/", {"action": "dismiss",
                                                                  "_selected_action": [queued.pk]})
    queued.refresh_from_db()
    assert queued.status == "dismissed"


@pytest.mark.django_db
def test_the_command_lists_the_queue(queued):
    out = StringIO()
    call_command("unanswered", stdout=out)
    text = out.getvalue()
    assert f"#{queued.pk}  unanswered  2 clients, 2×" in text and queued.template in text
    assert "answered with dns-demo" in text
    out = StringIO()
    call_command("unanswered", "--kind", "unanswered", "--limit", "1", "--json", stdout=out)
    rows = json.loads(out.getvalue())
    assert [(r["id"], r["count"], r["clients"]) for r in rows] == [(queued.pk, 2, 2)]
    with pytest.raises(CommandError):
        call_command("unanswered", "--limit", "0")


@pytest.mark.django_db
def test_old_entries_are_purged_by_the_retention_job_except_dismissed_ones(queued, settings):
    from troubleshoot.learning.services import unanswered_dismiss
    from troubleshoot.tasks import analyses_expire_task

    settings.KB_LEARN_RETENTION_DAYS = 30
    wrong = UnansweredTemplate.objects.get(kind="answered-wrong")
    unanswered_dismiss(entry=wrong)
    old = timezone.now() - timedelta(days=31)
    UnansweredTemplate.objects.update(last_seen=old)
    fresh = UnansweredTemplate.objects.create(fingerprint="f" * 64, template="recent gizmo error here",
                                              first_seen=timezone.now(), last_seen=timezone.now())
    analyses_expire_task()
    assert set(UnansweredTemplate.objects.values_list("pk", flat=True)) == {wrong.pk, fresh.pk}


@pytest.mark.django_db
def test_the_recheck_job_runs_from_beat(settings):
    from kbapp.celery import app
    from troubleshoot.tasks import unanswered_recheck_task

    assert settings.CELERY_BEAT_SCHEDULE["unanswered-recheck"]["task"] == "troubleshoot.unanswered_recheck"
    assert "troubleshoot.unanswered_recheck" in app.tasks
    unanswered_recheck_task()  # an empty queue: nothing to do
