"""Article writes through the API: same validation as import, revisions, permissions."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission

from troubleshoot.models import Article


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("editor")
    user.user_permissions.add(*Permission.objects.filter(codename__in=["add_article", "change_article",
                                                                        "delete_article"]))
    return user


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


NEW = {
    "slug": "api-made", "title": "Made through the API", "language": "en", "summary": "s",
    "components": ["Kubernetes", "Brand New Thing"], "problem": "The **problem**.",
    "symptoms": [{"text": "frobnicator exploded with code 42", "pattern": r"code (?P<code>\d+)"}],
    "causes": [{"title": "Too much frob", "body": "b"}],
    "fixes": [{"title": "Less frob", "body": "```bash\nfrob --less {{code|1}}\n```", "cause": 1}],
}


def send(client, method, url, body):
    return getattr(client, method)(url, data=json.dumps(body), content_type="application/json")


@pytest.mark.django_db
def test_create_read_update_delete_with_revisions(editor_client, fixture_kb):
    created = send(editor_client, "post", "/api/v1/articles/", NEW)
    assert created.status_code == 201, created.content
    assert created.json()["fixes"][0]["cause"] == 1
    assert "Brand New Thing" in created.json()["components"]
    patched = send(editor_client, "patch", "/api/v1/articles/api-made/?language=en", {"title": "Renamed"})
    assert patched.status_code == 200 and patched.json()["title"] == "Renamed"
    assert patched.json()["symptoms"][0]["text"] == NEW["symptoms"][0]["text"]  # PATCH keeps the rest
    revisions = editor_client.get("/api/v1/articles/api-made/revisions/").json()
    assert [r["number"] for r in revisions] == [2, 1]
    assert revisions[0]["source"] == "api" and revisions[0]["author"] == "editor"
    restored = editor_client.post("/api/v1/articles/api-made/revisions/1/restore/")
    assert restored.status_code == 200 and restored.json()["title"] == "Made through the API"
    assert Article.objects.get(slug="api-made").revisions.count() == 3
    assert editor_client.delete("/api/v1/articles/api-made/?language=en").status_code == 204
    assert editor_client.get("/api/v1/articles/api-made/").status_code == 404


@pytest.mark.django_db
def test_the_new_article_is_searchable_and_matchable(editor_client, fixture_kb):
    send(editor_client, "post", "/api/v1/articles/", NEW)
    assert editor_client.get("/api/v1/articles/", {"q": "frobnicator"}).json()["results"][0]["slug"] == "api-made"
    match = send(editor_client, "post", "/api/v1/match/", {"text": "ERROR frobnicator exploded with code 7"}).json()
    assert match["best"]["slug"] == "api-made" and match["best"]["captures"] == {"code": "7"}
    assert "frob --less 7" in match["best"]["fix"]["body"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"slug": "Bad Slug"}, "slug"),
        ({"symptoms": []}, "symptoms"),
        ({"symptoms": [{"text": "x", "weight": "heavy"}]}, "symptoms[0].weight"),
        ({"fixes": [{"title": "f", "cause": 9}]}, "fixes[0].cause"),
        ({"references": [{"title": "r", "url": "javascript:alert(1)"}]}, "references[0].url"),
        ({"colour": "blue"}, "colour"),
        ({"title": ["not", "text"]}, "title"),
    ],
)
def test_invalid_records_are_400_naming_the_field(editor_client, fixture_kb, change, field):
    response = send(editor_client, "post", "/api/v1/articles/", {**NEW, **change})
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not Article.objects.filter(slug="api-made").exists()


@pytest.mark.django_db
def test_creating_an_existing_article_is_409(editor_client, fixture_kb):
    send(editor_client, "post", "/api/v1/articles/", NEW)
    response = send(editor_client, "post", "/api/v1/articles/", NEW)
    assert response.status_code == 409 and response.json()["error"]["code"] == "conflict"


@pytest.mark.django_db
def test_changing_the_slug_through_put_is_refused(editor_client, fixture_kb):
    response = send(editor_client, "put", "/api/v1/articles/oom-demo/", {**NEW, "slug": "other"})
    assert response.status_code == 400 and "slug" in response.json()["error"]["details"]
