"""Who may do what: anonymous, reader, editor, staff × endpoints × KB_PUBLIC_READ; the error
shape for every status; throttling; feedback; schema."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.authtoken.models import Token

ARTICLE = {"slug": "perm-test", "title": "Permission test", "language": "en",
           "symptoms": [{"text": "permission test symptom"}]}


@pytest.fixture
def users(django_user_model):
    reader = django_user_model.objects.create_user("reader")
    editor = django_user_model.objects.create_user("editor")
    editor.user_permissions.add(*Permission.objects.filter(
        codename__in=["add_article", "change_article", "delete_article"]))
    staff = django_user_model.objects.create_superuser("staff", password="pw")
    return {"anonymous": None, "reader": reader, "editor": editor, "staff": staff}


def client_for(user, *, token=False):
    if user is None:
        return Client()
    if token:
        return Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    c = Client()
    c.force_login(user)
    return c


def call(c, method, url, body=None):
    kwargs = {"content_type": "application/json"}
    if body is not None:
        kwargs["data"] = json.dumps(body)
    return getattr(c, method)(url, **kwargs)


READS = [("get", "/api/v1/articles/"), ("get", "/api/v1/articles/oom-demo/"), ("get", "/api/v1/components/"),
         ("post", "/api/v1/match/", {"text": "OOMKilled"}), ("get", "/api/schema/?format=json")]
WRITES = [("post", "/api/v1/articles/", ARTICLE), ("patch", "/api/v1/articles/oom-demo/", {"title": "New"}),
          ("delete", "/api/v1/articles/dns-demo/")]
PAGES = ["/", "/articles/oom-demo/", "/search/?q=oom", "/components/", "/analyses/new/"]


@pytest.mark.django_db
@pytest.mark.parametrize("public", [True, False])
@pytest.mark.parametrize(("role", "token"), [("anonymous", False), ("reader", False), ("reader", True),
                                             ("editor", False), ("editor", True), ("staff", False), ("staff", True)])
def test_permission_matrix(settings, fixture_kb, users, public, role, token):
    settings.KB_PUBLIC_READ = public
    c = client_for(users[role], token=token)
    for method, url, *body in READS:
        response = call(c, method, url, *body)
        expected = 200 if (public or role != "anonymous") else 401
        assert response.status_code == expected, (method, url, response.status_code)
    for method, url, *body in WRITES:
        response = call(c, method, url, *body)
        if role in ("editor", "staff"):
            assert response.status_code in (200, 201, 204), (method, url, response.content)
        elif role == "anonymous":
            assert response.status_code == 401, (method, url)
        else:
            assert response.status_code == 403, (method, url)
    for url in PAGES:
        response = c.get(url)
        if token:
            continue  # tokens are for the API; pages use sessions
        assert response.status_code == (200 if (public or role != "anonymous") else 401), url


@pytest.mark.django_db
def test_revisions_need_the_change_permission(fixture_kb, users):
    assert client_for(users["reader"]).get("/api/v1/articles/oom-demo/revisions/").status_code == 403
    assert client_for(users["editor"]).get("/api/v1/articles/oom-demo/revisions/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "url", "body", "content_type", "status", "code"),
    [
        ("post", "/api/v1/match/", "{broken", "application/json", 400, "parse_error"),
        ("get", "/api/v1/articles/missing/", None, None, 404, "not_found"),
        ("delete", "/api/v1/match/", None, None, 405, "method_not_allowed"),
        ("post", "/api/v1/match/", "text=hello", "text/csv", 415, "unsupported_media_type"),
    ],
)
def test_every_error_has_the_same_shape(client, fixture_kb, method, url, body, content_type, status, code):
    kwargs = {}
    if body is not None:
        kwargs = {"data": body, "content_type": content_type}
    response = getattr(client, method)(url, **kwargs)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and "details" in error


@pytest.mark.django_db
def test_401_and_403_have_the_error_shape(settings, fixture_kb, users):
    settings.KB_PUBLIC_READ = False
    unauthorized = Client().get("/api/v1/articles/")
    assert unauthorized.status_code == 401 and unauthorized.json()["error"]["code"] == "not_authenticated"
    assert "Token" in unauthorized["WWW-Authenticate"]
    forbidden = call(client_for(users["reader"]), "post", "/api/v1/articles/", ARTICLE)
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "permission_denied"


@pytest.mark.django_db
def test_throttling_answers_429_with_retry_after(settings, fixture_kb, users):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"anon": "3/min", "user": "5/min"}}
    anonymous = Client()
    statuses = [anonymous.get("/api/v1/components/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = anonymous.get("/api/v1/components/")
    assert limited.json()["error"]["code"] == "throttled" and int(limited["Retry-After"]) > 0
    reader = client_for(users["reader"], token=True)
    assert [reader.get("/api/v1/components/").status_code for _ in range(6)] == [200] * 5 + [429]


@pytest.mark.django_db
def test_feedback_is_one_vote_per_voter_and_a_bounded_prior(client, fixture_kb, users):
    from troubleshoot.feedback import PRIOR_MAX, feedback_priors

    for _ in range(100):
        response = call(client, "post", "/api/v1/feedback/", {"article": "oom-demo", "helpful": True})
        assert response.status_code == 201
    assert response.json()["counts"] == {"helpful": 1, "unhelpful": 0}
    call(client, "post", "/api/v1/feedback/", {"article": "oom-demo", "helpful": False})
    assert call(client, "post", "/api/v1/feedback/", {"article": "oom-demo", "helpful": False}).json()["counts"] == {
        "helpful": 0, "unhelpful": 1}
    for _ in range(50):
        c = Client()
        call(c, "post", "/api/v1/feedback/", {"article": "dns-demo", "helpful": True})
    assert 0 < feedback_priors()["dns-demo"] <= PRIOR_MAX


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "status"), [
    ({"article": "nope", "helpful": True}, 404), ({"article": "oom-demo"}, 400),
    ({"article": "oom-demo", "helpful": "yes"}, 400), ([1], 400)])
def test_bad_feedback_is_refused(client, fixture_kb, body, status):
    response = call(client, "post", "/api/v1/feedback/", body)
    assert response.status_code == status and response.json()["error"]["message"]


@pytest.mark.django_db
def test_feedback_orders_near_ties_but_never_overrides_a_strong_match(client, fixture_kb):
    from troubleshoot.matching import match_payload, match_text

    text = "Last State: Terminated\n  Reason: OOMKilled\n  Exit Code: 137"
    baseline = match_payload(match_text(text=text))["matches"]
    for _ in range(200):
        call(Client(), "post", "/api/v1/feedback/", {"article": "dns-demo", "helpful": True})
    for _ in range(200):
        call(Client(), "post", "/api/v1/feedback/", {"article": "oom-demo", "helpful": False})
    from troubleshoot import feedback

    feedback._cache["at"] = 0.0
    after = match_payload(match_text(text=text))["matches"]
    assert after[0]["slug"] == baseline[0]["slug"] == "oom-demo"


def test_the_prior_is_bounded_and_monotonic():
    from troubleshoot.feedback import PRIOR_MAX, prior_for

    values = [prior_for(n) for n in range(-1000, 1001, 50)]
    assert values == sorted(values)
    assert all(-PRIOR_MAX <= v <= PRIOR_MAX for v in values)


@pytest.mark.django_db
def test_the_schema_validates(tmp_path):
    from django.core.management import call_command

    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for path in ("/api/v1/match/", "/api/v1/analyses/", "/api/v1/articles/{slug}/", "/api/v1/feedback/"):
        assert path in text


@pytest.mark.django_db
def test_swagger_ui_is_served_offline(client):
    page = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in page and "cdn" not in page.lower()
