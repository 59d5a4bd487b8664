"""Editing in the admin: every save is a revision, restore works, patterns are validated, votes shown."""

from __future__ import annotations

import pytest

from troubleshoot.models import Article


@pytest.fixture
def admin_client_kb(admin_client, fixture_kb):
    return admin_client


def change_form_data(article):
    """The admin change form's current values, as a browser would post them back."""
    data = {"slug": article.slug, "language": article.language, "title": article.title,
            "summary": article.summary, "status": article.status, "environment": article.environment,
            "problem": article.problem, "best_practices": article.best_practices,
            "components": [c.pk for c in article.components.all()]}
    for prefix, rows, fields in [
        ("symptoms", article.symptoms.all(), ["position", "text", "kind", "source", "weight", "pattern", "cause"]),
        ("causes", article.causes.all(), ["position", "title", "body"]),
        ("fixes", article.fixes.all(), ["position", "title", "cause", "body", "verify"]),
        ("versions", article.versions.all(), ["position", "component", "affected", "fixed_in", "note"]),
        ("references", article.references.all(), ["position", "title", "url"]),
    ]:
        rows = list(rows)
        data.update({f"{prefix}-TOTAL_FORMS": len(rows), f"{prefix}-INITIAL_FORMS": len(rows),
                     f"{prefix}-MIN_NUM_FORMS": 0, f"{prefix}-MAX_NUM_FORMS": 1000})
        for i, row in enumerate(rows):
            data[f"{prefix}-{i}-id"] = row.pk
            data[f"{prefix}-{i}-article"] = article.pk
            for name in fields:
                value = getattr(row, f"{name}_id") if name == "cause" else getattr(row, name)
                data[f"{prefix}-{i}-{name}"] = "" if value is None else value
    return data


@pytest.mark.django_db
def test_an_admin_edit_is_a_revision_and_can_be_restored(admin_client_kb):
    article = Article.objects.get(slug="oom-demo", language="en")
    data = change_form_data(article)
    data["title"] = "Edited in the admin"
    response = admin_client_kb.post(f"/admin/troubleshoot/article/{article.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    article.refresh_from_db()
    assert article.title == "Edited in the admin"
    assert [r.source for r in article.revisions.order_by("number")] == ["import", "admin"]
    page = admin_client_kb.get(f"/admin/troubleshoot/article/{article.pk}/revisions/").content.decode()
    assert "Edited in the admin" in page and "Restore" in page
    response = admin_client_kb.post(f"/admin/troubleshoot/article/{article.pk}/revisions/1/restore/")
    assert response.status_code == 302
    article.refresh_from_db()
    assert article.title == "Container killed for running out of memory"
    assert article.revisions.count() == 3


@pytest.mark.django_db
def test_a_catastrophic_or_broken_pattern_is_refused_on_save(admin_client_kb):
    article = Article.objects.get(slug="taint-demo", language="en")
    for bad in ("(?P<x>(a|aa)+)$", "(unclosed"):
        data = change_form_data(article)
        data["symptoms-0-pattern"] = bad
        response = admin_client_kb.post(f"/admin/troubleshoot/article/{article.pk}/change/", data)
        assert response.status_code == 200  # the form comes back with an error
        assert "errorlist" in response.content.decode()
    assert article.symptoms.get(position=0).pattern.startswith("untolerated taint")


@pytest.mark.django_db
def test_votes_are_shown_to_editors(admin_client_kb, client):
    import json

    client.post("/api/v1/feedback/", data=json.dumps({"article": "oom-demo", "helpful": True,
                                                      "symptoms": ["oom-demo:en:0"]}),
                content_type="application/json")
    article = Article.objects.get(slug="oom-demo", language="en")
    assert "1 / 0" in admin_client_kb.get("/admin/troubleshoot/article/").content.decode()
    page = admin_client_kb.get(f"/admin/troubleshoot/article/{article.pk}/change/").content.decode()
    assert "Helpful: 1" in page and "Last State: Terminated" in page


@pytest.mark.django_db
def test_editing_needs_permission(client, fixture_kb, django_user_model):
    user = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    client.force_login(user)
    article = Article.objects.get(slug="oom-demo", language="en")
    assert client.get(f"/admin/troubleshoot/article/{article.pk}/change/").status_code == 403
