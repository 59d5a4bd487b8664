"""The editors' queue through the API: list, attach (the next paste matches that article first), draft
(publish it and it matches), dismiss (never recorded again), rows that the KB now answers leaving by
themselves, permissions and bad input, in the API's one error shape."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.authtoken.models import Token

from troubleshoot.models import Article, UnansweredTemplate

from .unknown_error import NEXT_PASTE, PASTES

OTHER = "E0101 00:00:00.000000 1 gizmo.go:7] failed to reconcile the gizmo quota for tenant blue"


def match(text: str, address: str = "10.9.9.1") -> dict:
    response = Client(REMOTE_ADDR=address).post("/api/v1/match/", json.dumps({"text": text}),
                                                content_type="application/json")
    assert response.status_code == 200
    return response.json()


def post(c: Client, url: str, body=None, *, raw: str | None = None):
    data = raw if raw is not None else json.dumps(body if body is not None else {})
    return c.post(url, data, content_type="application/json")


@pytest.fixture
def queued(fixture_kb):
    """The unknown error, pasted three times by three clients, and another one pasted once."""
    for i, paste in enumerate(PASTES):
        assert match(paste, address=f"10.9.9.{i}")["best"] is None
    match(OTHER, address="10.8.8.8")
    return UnansweredTemplate.objects.get(template__startswith="<ts> warning failedfrobnicate")


@pytest.mark.django_db
def test_the_queue_lists_the_most_widespread_first(queued, editor):
    response = editor.get("/api/v1/unanswered/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2 and body["next"] is None and body["previous"] is None
    first, second = body["results"]
    assert first["id"] == queued.pk and (first["clients"], first["count"]) == (3, 3)
    assert (second["clients"], second["count"]) == (1, 1)
    assert set(first) >= {"id", "kind", "template", "examples", "count", "clients", "first_seen", "last_seen",
                          "near", "article"}
    assert first["kind"] == "unanswered" and first["article"] is None and len(first["examples"]) <= 3
    assert all(set(n) == {"slug", "title", "score"} for n in first["near"])
    assert editor.get("/api/v1/unanswered/?kind=answered-wrong").json()["count"] == 0
    assert editor.get("/api/v1/unanswered/?kind=unanswered&page_size=1").json()["next"]
    assert editor.get(f"/api/v1/unanswered/{queued.pk}/").json()["template"] == queued.template


@pytest.mark.django_db
def test_answered_wrong_entries_carry_their_article(fixture_kb, editor):
    Client().post("/api/v1/feedback/", json.dumps({"article": "dns-demo", "helpful": False, "query": PASTES[0]}),
                  content_type="application/json")
    results = editor.get("/api/v1/unanswered/?kind=answered-wrong").json()["results"]
    assert [(r["kind"], r["article"]) for r in results] == [("answered-wrong", "dns-demo")]


@pytest.mark.django_db
def test_attaching_makes_the_next_paste_match_that_article_first(queued, editor):
    assert match(NEXT_PASTE)["best"] is None
    response = post(editor, f"/api/v1/unanswered/{queued.pk}/attach/", {"article": "oom-demo", "language": "en"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["article"] == "oom-demo"
    symptom = body["symptom"]
    assert symptom["pattern"] and "FailedFrobnicate" in symptom["text"] and "<" not in symptom["text"]
    answer = match(NEXT_PASTE, address="10.6.6.6")
    assert answer["best"]["slug"] == "oom-demo" and answer["matches"][0]["slug"] == "oom-demo"
    article = Article.objects.get(slug="oom-demo", language="en")
    revision = article.revisions.order_by("-number").first()
    assert revision.source == "learning" and symptom["text"] in json.dumps(revision.content)
    queued.refresh_from_db()
    assert (queued.status, queued.resolved_article) == ("attached", "oom-demo")
    assert queued.pk not in [r["id"] for r in editor.get("/api/v1/unanswered/").json()["results"]]
    # the paste before attaching counted; the confident one after it recorded nothing
    assert UnansweredTemplate.objects.get(pk=queued.pk).count == 4


@pytest.mark.django_db
def test_attaching_twice_adds_one_symptom(queued, editor):
    before = Article.objects.get(slug="oom-demo", language="en").symptoms.count()
    for _ in range(2):
        assert post(editor, f"/api/v1/unanswered/{queued.pk}/attach/", {"article": "oom-demo"}).status_code == 200
    assert Article.objects.get(slug="oom-demo", language="en").symptoms.count() == before + 1


@pytest.mark.django_db
def test_a_draft_is_created_and_once_published_it_matches(queued, editor):
    response = post(editor, f"/api/v1/unanswered/{queued.pk}/draft/", {"title": "Frobnicator refuses widget leases"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "draft" and body["slug"] == "frobnicator-refuses-widget-leases"
    assert body["url"].endswith(f"/articles/{body['slug']}/")
    draft = Article.objects.get(slug=body["slug"])
    assert draft.status == "draft" and draft.symptoms.get().pattern
    assert match(NEXT_PASTE)["best"] is None  # a draft does not match
    published = editor.patch(f"/api/v1/articles/{body['slug']}/?language=en", json.dumps({"status": "published"}),
                             content_type="application/json")
    assert published.status_code == 200, published.content
    assert match(NEXT_PASTE, address="10.5.5.5")["best"]["slug"] == body["slug"]
    queued.refresh_from_db()
    assert (queued.status, queued.resolved_article) == ("drafted", body["slug"])


@pytest.mark.django_db
def test_drafts_get_unique_slugs_and_a_title_by_default(queued, editor):
    first = post(editor, f"/api/v1/unanswered/{queued.pk}/draft/", {"title": "Same title"}).json()
    second = post(editor, f"/api/v1/unanswered/{queued.pk}/draft/", {"title": "Same title"}).json()
    assert (first["slug"], second["slug"]) == ("same-title", "same-title-2")
    odd = post(editor, f"/api/v1/unanswered/{queued.pk}/draft/", {"title": "AWS_ACCESS_KEY_ID refused: 错误"}).json()
    chinese = post(editor, f"/api/v1/unanswered/{queued.pk}/draft/", {"title": "租约被拒绝", "language": "zh-hans"})
    assert odd["slug"] == "aws-access-key-id-refused"
    assert chinese.status_code == 201 and chinese.json()["slug"] == "unanswered-error"
    assert chinese.json()["language"] == "zh-hans" and chinese.json()["url"].endswith("?language=zh-hans")
    untitled = post(editor, f"/api/v1/unanswered/{queued.pk}/draft/").json()
    assert Article.objects.get(slug=untitled["slug"]).title.startswith("2024-05-01T10:00:00Z Warning FailedFrobnicate")


@pytest.mark.django_db
def test_dismissing_removes_the_entry_and_it_is_never_recorded_again(queued, editor):
    response = post(editor, f"/api/v1/unanswered/{queued.pk}/dismiss/")
    assert response.status_code == 200 and response.json() == {"id": queued.pk, "status": "dismissed"}
    assert queued.pk not in [r["id"] for r in editor.get("/api/v1/unanswered/").json()["results"]]
    match(NEXT_PASTE, address="10.4.4.4")
    queued.refresh_from_db()
    assert (queued.status, queued.count, queued.client_rows.count()) == ("dismissed", 3, 0)


@pytest.mark.django_db
def test_an_entry_the_kb_now_answers_leaves_the_queue_by_itself(queued, editor):
    article = {"slug": "frobnicator-lease", "title": "Frobnicator refuses widget leases", "language": "en",
               "symptoms": [{"text": "Warning FailedFrobnicate pod/api-7d9f8b6c4-x2x7q frobnicator at 10.0.3.17:8443 "
                                     "refused the widget lease 3 after 12s", "weight": 2}]}
    assert post(editor, "/api/v1/articles/", article).status_code == 201
    ids = [r["id"] for r in editor.get("/api/v1/unanswered/").json()["results"]]
    assert queued.pk not in ids and len(ids) == 1
    queued.refresh_from_db()
    assert (queued.status, queued.resolved_article) == ("answered", "frobnicator-lease")
    # seen again without a confident answer (the article was deleted): back in the queue
    assert editor.delete("/api/v1/articles/frobnicator-lease/?language=en").status_code == 204
    match(NEXT_PASTE, address="10.3.3.3")
    queued.refresh_from_db()
    assert (queued.status, queued.count) == ("open", 4)


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/v1/unanswered/", "/api/v1/unanswered/{id}/"])
def test_anonymous_callers_get_401_and_readers_403(queued, django_user_model, url):
    url = url.format(id=queued.pk)
    anonymous = Client().get(url)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "not_authenticated"
    assert "Token" in anonymous["WWW-Authenticate"]
    reader = django_user_model.objects.create_user("reader")
    session = Client()
    session.force_login(reader)
    token = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=reader).key}")
    for c in (session, token):
        refused = c.get(url)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied"


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["attach", "draft", "dismiss"])
def test_actions_are_refused_to_anonymous_callers_and_readers(queued, django_user_model, action):
    url = f"/api/v1/unanswered/{queued.pk}/{action}/"
    assert post(Client(), url, {"article": "oom-demo"}).status_code == 401
    reader = django_user_model.objects.create_user("reader")
    c = Client()
    c.force_login(reader)
    assert post(c, url, {"article": "oom-demo"}).status_code == 403
    queued.refresh_from_db()
    assert queued.status == "open"


@pytest.mark.django_db
def test_an_editor_token_works(queued, django_user_model):
    user = django_user_model.objects.create_user("bot")
    user.user_permissions.add(Permission.objects.get(codename="change_article"))
    c = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert c.get("/api/v1/unanswered/").json()["count"] == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "body", "raw", "status", "code", "words"),
    [
        ("/api/v1/unanswered/999999/attach/", {"article": "oom-demo"}, None, 404, "not_found", "999999"),
        ("/api/v1/unanswered/999999/dismiss/", {}, None, 404, "not_found", "999999"),
        ("/api/v1/unanswered/{id}/attach/", {"article": "no-such-article"}, None, 400, "invalid", "no-such-article"),
        ("/api/v1/unanswered/{id}/attach/", {"article": "oom-demo", "language": "zh-hans"}, None, 400, "invalid",
         "zh-hans"),
        ("/api/v1/unanswered/{id}/attach/", {"article": "oom-demo", "language": "klingon"}, None, 400, "invalid",
         "language"),
        ("/api/v1/unanswered/{id}/attach/", {}, None, 400, "invalid", "article"),
        ("/api/v1/unanswered/{id}/attach/", None, "{broken", 400, "parse_error", "JSON"),
        ("/api/v1/unanswered/{id}/draft/", None, "[1, 2", 400, "parse_error", "JSON"),
        ("/api/v1/unanswered/{id}/draft/", None, "[1, 2]", 400, "invalid", "JSON object"),
        ("/api/v1/unanswered/{id}/draft/", {"title": "x" * 201}, None, 400, "invalid", "title"),
    ],
)
def test_bad_input_is_refused_naming_what_is_wrong(queued, editor, path, body, raw, status, code, words):
    response = post(editor, path.format(id=queued.pk), body, raw=raw)
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"] + json.dumps(error["details"])
    queued.refresh_from_db()
    assert queued.status == "open"


@pytest.mark.django_db
def test_bad_filters_are_refused(queued, editor):
    response = editor.get("/api/v1/unanswered/?kind=everything")
    assert response.status_code == 400 and "kind" in response.json()["error"]["message"]


@pytest.mark.django_db
def test_the_queue_is_in_the_openapi_schema(fixture_kb, editor):
    schema = editor.get("/api/schema/?format=json").json()
    for path in ("/api/v1/unanswered/", "/api/v1/unanswered/{entry_id}/attach/",
                 "/api/v1/unanswered/{entry_id}/draft/", "/api/v1/unanswered/{entry_id}/dismiss/"):
        assert path in schema["paths"], path
    listed = schema["paths"]["/api/v1/unanswered/"]["get"]
    assert {p["name"] for p in listed["parameters"]} >= {"kind", "page", "page_size"}
    assert "201" in schema["paths"]["/api/v1/unanswered/{entry_id}/draft/"]["post"]["responses"]
