"""Recording what the KB could not answer: from the home page, the API (and so the CLI client), Slack,
analyses and "No" votes; one entry per masked template, counted per occurrence and per distinct client;
no secret anywhere; nothing at all with KB_LEARN=false; never in the way of an answer.

Credentials are fabricated and assembled at run time so that secret scanners do not flag this file."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from io import StringIO
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.test import Client

from troubleshoot.models import UnansweredClient, UnansweredTemplate

from .unknown_error import PASTES

TEMPLATE = ("<ts> warning failedfrobnicate pod/<pod> frobnicator at <ip> refused the widget lease <num> after <dur> "
            "on <node>")
TAINT = ("Warning  FailedScheduling  3m (x4 over 9m)  default-scheduler  0/5 nodes are available: "
         "5 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/5 nodes are available: "
         "5 Preemption is not helpful for scheduling.")

AWS_KEY = "AKIA" + "Z7Q4" + "MX2P" + "LW9R" + "B3TD"
BEARER = "eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiJrYi10ZXN0In0" + "." + "c2lnbmF0dXJlLXN0dWZm"
PASSWORD = "Tr0ub4dor" + "-and-3"
SECRETS = (AWS_KEY, BEARER, PASSWORD)
SECRET_PASTE = (f"E0501 10:00:00.123456 1 widget.go:42] failed to sync widget gizmo-7 from 10.0.0.8: "
                f"AWS_ACCESS_KEY_ID={AWS_KEY} Authorization: Bearer {BEARER} password={PASSWORD}\n"
                f"export AWS_ACCESS_KEY_ID={AWS_KEY}\ncurl -H 'Authorization: Bearer {BEARER}' https://x/\n")

SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def api_match(text: str, *, address: str = "10.9.9.1", client: Client | None = None):
    c = client or Client(REMOTE_ADDR=address)
    return c.post("/api/v1/match/", json.dumps({"text": text}), content_type="application/json")


def slack_command(text: str, *, user: str = "U2147483697"):
    body = urlencode({"team_id": "T0001", "user_id": user, "command": "/kb", "text": text,
                      "response_url": "https://hooks.slack.com/commands/T0001/1/abc"}).encode()
    timestamp = int(time.time())
    digest = hmac.new(SLACK_SECRET.encode(), b"v0:%d:" % timestamp + body, hashlib.sha256).hexdigest()
    return Client().post("/api/v1/integrations/slack/command", data=body,
                         content_type="application/x-www-form-urlencoded",
                         HTTP_X_SLACK_REQUEST_TIMESTAMP=str(timestamp), HTTP_X_SLACK_SIGNATURE=f"v0={digest}")


@pytest.mark.django_db
def test_an_unknown_error_pasted_three_times_by_three_clients_is_one_entry_with_count_3(fixture_kb):
    for i, paste in enumerate(PASTES):
        response = api_match(paste, address=f"10.9.9.{i}")
        assert response.status_code == 200 and response.json()["best"] is None
    entry = UnansweredTemplate.objects.get()
    assert (entry.kind, entry.status, entry.count, entry.clients) == ("unanswered", "open", 3, 3)
    assert entry.template == TEMPLATE
    assert entry.examples == ["<ts> Warning FailedFrobnicate pod/api-<hash> frobnicator at <ip> refused the widget "
                              "lease <num> after <dur> on <node>"]
    assert entry.first_seen <= entry.last_seen
    assert [n["slug"] for n in entry.near] == [m["slug"] for m in response.json()["matches"]][:3]


@pytest.mark.django_db
def test_the_same_client_pasting_again_adds_to_the_count_not_to_the_clients(fixture_kb):
    for paste in PASTES:
        api_match(paste, address="10.9.9.9")
    entry = UnansweredTemplate.objects.get()
    assert (entry.count, entry.clients) == (3, 1)


@pytest.mark.django_db
def test_every_surface_records_into_the_same_entry(fixture_kb, settings, django_user_model):
    settings.SLACK_SIGNING_SECRET = SLACK_SECRET
    Client(REMOTE_ADDR="10.1.1.1").post("/match/", {"text": PASTES[0]})           # the home page
    user = django_user_model.objects.create_user("cli")
    from rest_framework.authtoken.models import Token

    token = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    api_match(PASTES[1], client=token)                                             # the API / CLI client
    assert slack_command(PASTES[2]).status_code == 200                             # Slack
    entry = UnansweredTemplate.objects.get()
    assert (entry.count, entry.clients) == (3, 3)


@pytest.mark.django_db
def test_an_analysis_records_what_no_article_answers(fixture_kb, client, django_capture_on_commit_callbacks):
    text = PASTES[0] + "\n" + "plain prose about nothing\n"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/analyses/", json.dumps({"text": text}), content_type="application/json")
    assert response.status_code == 202
    assert client.get(f"/api/v1/analyses/{response.json()['id']}/").json()["status"] == "done"
    entry = UnansweredTemplate.objects.get()
    assert entry.template == TEMPLATE and entry.count == 1


@pytest.mark.django_db
def test_a_confident_answer_records_nothing(fixture_kb, client):
    assert api_match(TAINT).json()["best"]["slug"] == "taint-demo"
    client.post("/match/", {"text": TAINT})
    assert UnansweredTemplate.objects.count() == 0


@pytest.mark.django_db
def test_a_no_vote_records_the_paste_as_answered_wrong_next_to_its_article(fixture_kb):
    c = Client(REMOTE_ADDR="10.2.2.2")
    response = c.post("/api/v1/feedback/", json.dumps({"article": "oom-demo", "helpful": False,
                                                       "query": PASTES[0]}), content_type="application/json")
    assert response.status_code == 201
    entry = UnansweredTemplate.objects.get()
    assert (entry.kind, entry.article, entry.template, entry.count) == ("answered-wrong", "oom-demo", TEMPLATE, 1)
    c.post("/api/v1/feedback/", json.dumps({"article": "oom-demo", "helpful": True, "query": PASTES[1]}),
           content_type="application/json")
    assert UnansweredTemplate.objects.count() == 1  # a "Yes" records nothing


@pytest.mark.django_db
def test_the_results_page_no_button_sends_the_matched_lines(fixture_kb, client):
    page = client.post("/match/", {"text": TAINT}).content.decode()
    assert f'<input type="hidden" name="line" value="{TAINT}">' in page
    response = client.post("/feedback/", {"article": "taint-demo", "helpful": "0", "line": [TAINT], "next": "/"})
    assert response.status_code == 302
    entry = UnansweredTemplate.objects.get(kind="answered-wrong")
    assert entry.article == "taint-demo" and "untolerated taint" in entry.template


@pytest.mark.django_db
def test_a_planted_secret_appears_nowhere_in_the_database_or_the_api(fixture_kb, settings, admin_client):
    settings.SLACK_SIGNING_SECRET = SLACK_SECRET
    Client(REMOTE_ADDR="10.3.3.1").post("/match/", {"text": SECRET_PASTE})
    api_match(SECRET_PASTE, address="10.3.3.2")
    slack_command(SECRET_PASTE)
    Client().post("/api/v1/feedback/", json.dumps({"article": "oom-demo", "helpful": False, "query": SECRET_PASTE}),
                  content_type="application/json")
    Client().post("/feedback/", {"article": "oom-demo", "helpful": "0", "line": SECRET_PASTE.split("\n")})
    entry = UnansweredTemplate.objects.get(kind="unanswered")
    assert entry.count == 3 and "[redacted:aws-access-key-id]" in entry.template
    api = admin_client.get("/api/v1/unanswered/?status=all").content.decode()
    assert "failed to sync widget" in api
    dump = StringIO()
    call_command("dumpdata", stdout=dump)
    everything = dump.getvalue() + api + admin_client.get("/unanswered/").content.decode()
    for secret in SECRETS:
        for form in (secret, secret.lower(), json.dumps(secret)[1:-1]):
            assert form not in everything, secret


@pytest.mark.django_db
def test_only_a_keyed_hash_of_the_client_is_stored(fixture_kb, django_user_model):
    api_match(PASTES[0], address="203.0.113.77")
    stored = UnansweredClient.objects.get().client
    assert len(stored) == 32 and "203.0.113.77" not in stored
    assert stored != hashlib.sha256(b"203.0.113.77").hexdigest()[:32]


@pytest.mark.django_db
def test_kb_learn_false_records_nothing(fixture_kb, settings, client, django_capture_on_commit_callbacks):
    settings.KB_LEARN = False
    settings.SLACK_SIGNING_SECRET = SLACK_SECRET
    client.post("/match/", {"text": PASTES[0]})
    api_match(PASTES[1])
    slack_command(PASTES[2])
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/api/v1/analyses/", json.dumps({"text": PASTES[0]}), content_type="application/json")
    client.post("/api/v1/feedback/", json.dumps({"article": "oom-demo", "helpful": False, "query": PASTES[0]}),
                content_type="application/json")
    client.post("/feedback/", {"article": "oom-demo", "helpful": "0", "line": [PASTES[0]]})
    assert UnansweredTemplate.objects.count() == 0 and UnansweredClient.objects.count() == 0
    home = client.get("/").content.decode()
    assert "Nothing you paste is stored." in home and "masked templates" not in home


@pytest.mark.django_db
def test_a_recording_failure_never_breaks_the_answer(fixture_kb, monkeypatch, caplog):
    from troubleshoot.learning import services

    def broken(**kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr(services, "paste_templates", lambda *a, **k: broken())
    response = api_match(PASTES[0])
    assert response.status_code == 200 and response.json()["matches"]
    assert "could not record" in caplog.text


@pytest.mark.django_db
def test_the_answers_are_counted_for_prometheus(fixture_kb, client):
    from troubleshoot.metrics import MATCH_ANSWERS_TOTAL

    def value(outcome, surface):
        return MATCH_ANSWERS_TOTAL.labels(outcome, surface)._value.get()

    before = (value("answered", "api"), value("unanswered", "api"), value("answered-wrong", "vote"))
    api_match(TAINT)
    api_match(PASTES[0])
    client.post("/api/v1/feedback/", json.dumps({"article": "oom-demo", "helpful": False}),
                content_type="application/json")
    after = (value("answered", "api"), value("unanswered", "api"), value("answered-wrong", "vote"))
    assert [b - a for a, b in zip(before, after)] == [1, 1, 1]
    metrics = client.get("/metrics").content.decode()
    assert 'kb_match_answers_total{outcome="answered-wrong",surface="vote"}' in metrics


@pytest.mark.django_db
def test_recording_is_cheap(fixture_kb):
    api_match(PASTES[0])  # warm the matcher and the first row
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        api_match(PASTES[1], address="10.7.7.7")
    learning = [q["sql"].split()[0] for q in queries.captured_queries if "unanswered" in q["sql"].lower()]
    assert learning == ["SELECT", "SELECT", "INSERT", "UPDATE"]  # the row, its clients; a new client, the counts
