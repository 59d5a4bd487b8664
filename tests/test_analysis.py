"""kubectl analysis: upload → task (eager here) → report, limits, privacy, failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from troubleshoot.models import Analysis

KUBECTL = Path(__file__).parent / "fixtures" / "kubectl"
PENDING_TAINT = (KUBECTL / "describe-pod-pending-taint.txt").read_bytes()


@pytest.fixture(autouse=True)
def _run_on_commit(monkeypatch):
    """Tests run inside a transaction: run the queued task when the view's transaction would commit."""
    monkeypatch.setattr("django.db.transaction.on_commit", lambda func, using=None, robust=False: func())


def upload(client, *files, **extra):
    return client.post("/api/v1/analyses/", {"files": [SimpleUploadedFile(n, d) for n, d in files]}, **extra)


@pytest.mark.django_db
def test_upload_is_analysed_and_findings_link_to_articles(client, shipped_kb):
    response = upload(client, ("describe.txt", PENDING_TAINT), ("session.txt", (KUBECTL / "session-mixed.txt")
                                                                 .read_bytes()))
    assert response.status_code == 202
    body = response.json()
    # Inline (no broker) the work is finished before the response; with a broker it is "queued".
    assert body["status"] in ("queued", "done") and len(body["id"]) >= 20
    assert body["url"].endswith(f"/analyses/{body['id']}/")
    report = client.get(f"/api/v1/analyses/{body['id']}/").json()
    assert report["status"] == "done" and report["progress"] == 1.0 and report["error"] is None
    problems = {f["problem"] for f in report["findings"]}
    assert "FailedScheduling.UntoleratedTaint" in problems
    taint = next(f for f in report["findings"] if f["problem"] == "FailedScheduling.UntoleratedTaint")
    assert {"kind", "namespace", "name", "detail", "evidence", "severity"} <= set(taint)
    assert taint["articles"][0]["slug"] == "untolerated-taint"
    assert "untolerated-taint" in [m["slug"] for m in report["matches"]]
    assert report["summary"]["findings"] == len(report["findings"])
    assert [s["name"] for s in report["sources"]] == ["describe.txt", "session.txt"]


@pytest.mark.django_db
def test_json_text_works_too(client, shipped_kb):
    text = PENDING_TAINT.decode()
    response = client.post("/api/v1/analyses/", json.dumps({"text": text}), content_type="application/json")
    assert response.status_code == 202
    assert client.get(f"/api/v1/analyses/{response.json()['id']}/").json()["status"] == "done"


@pytest.mark.django_db
def test_secrets_are_redacted_before_storing_and_reported(client, shipped_kb):
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    text = PENDING_TAINT.decode() + f"\nAWS_SECRET_ACCESS_KEY={secret}\n"
    body = upload(client, ("env.txt", text.encode())).json()
    stored = Analysis.objects.get(pk=body["id"])
    assert secret not in stored.text
    report = client.get(f"/api/v1/analyses/{body['id']}/").json()
    assert secret not in json.dumps(report)
    assert report["redactions"] and report["redactions"][0]["kind"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("files", "status", "words"),
    [
        ([], 400, "Nothing to analyse"),
        ([("core.bin", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)], 400, "core.bin"),
        ([("empty.txt", b"   \n")], 400, "empty"),
    ],
)
def test_bad_uploads_are_refused_with_a_message(client, shipped_kb, files, status, words):
    response = upload(client, *files)
    assert response.status_code == status
    assert words in response.json()["error"]["message"]
    assert Analysis.objects.count() == 0


@pytest.mark.django_db
def test_pasted_text_with_nul_bytes_is_refused_not_stored(client, shipped_kb):
    # PostgreSQL cannot store NUL in a text column: it must be a 400, never a 500 (found by schemathesis)
    response = client.post("/api/v1/analyses/", data=json.dumps({"text": "Events:\x00 Warning"}),
                           content_type="application/json")
    assert response.status_code == 400
    assert "NUL" in response.json()["error"]["message"]
    assert Analysis.objects.count() == 0


@pytest.mark.django_db
def test_uploads_over_the_limit_are_413(client, shipped_kb, settings):
    settings.ANALYSIS_MAX_BYTES = 4096
    response = upload(client, ("big.txt", b"x" * 5000))
    assert response.status_code == 413
    assert "4096" in response.json()["error"]["message"]


@pytest.mark.django_db
def test_an_analysis_is_visible_only_to_its_creator_and_staff(client, shipped_kb, django_user_model):
    from django.test import Client

    body = upload(client, ("describe.txt", PENDING_TAINT)).json()
    assert Client().get(f"/api/v1/analyses/{body['id']}/").status_code == 404
    assert Client().get(f"/analyses/{body['id']}/").status_code == 404
    other = Client()
    other.force_login(django_user_model.objects.create_user("mallory"))
    assert other.get(f"/api/v1/analyses/{body['id']}/").status_code == 404
    staff = Client()
    staff.force_login(django_user_model.objects.create_user("admin", is_staff=True))
    assert staff.get(f"/api/v1/analyses/{body['id']}/").status_code == 200


@pytest.mark.django_db
def test_a_token_user_owns_the_analysis(shipped_kb, django_user_model):
    from django.test import Client
    from rest_framework.authtoken.models import Token

    user = django_user_model.objects.create_user("bot")
    token = Token.objects.create(user=user)
    bot = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    body = upload(bot, ("describe.txt", PENDING_TAINT)).json()
    assert Analysis.objects.get(pk=body["id"]).owner == user
    assert bot.get(f"/api/v1/analyses/{body['id']}/").json()["status"] == "done"


@pytest.mark.django_db
def test_a_crash_inside_the_task_ends_as_failed(client, shipped_kb, monkeypatch):
    from troubleshoot import analysis

    def boom(*args, **kwargs):
        raise RuntimeError("parser exploded")

    monkeypatch.setattr(analysis, "analyze_text", boom)
    body = upload(client, ("describe.txt", PENDING_TAINT)).json()
    report = client.get(f"/api/v1/analyses/{body['id']}/").json()
    assert report["status"] == "failed"
    assert "parser exploded" in report["error"]


@pytest.mark.django_db
def test_stuck_and_old_analyses_are_cleaned_up(shipped_kb, settings):
    from datetime import timedelta

    from django.utils import timezone

    from troubleshoot.analysis import analyses_expire

    old = Analysis.objects.create(text="x", status="done")
    too_old = timezone.now() - timedelta(days=settings.ANALYSIS_RETENTION_DAYS + 1)
    Analysis.objects.filter(pk=old.pk).update(created=too_old)
    stuck = Analysis.objects.create(text="x", status="running",
                                    started=timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT * 3))
    assert analyses_expire() == 1
    assert not Analysis.objects.filter(pk=old.pk).exists()
    stuck.refresh_from_db()
    assert stuck.status == "failed" and "stopped without finishing" in stuck.error


@pytest.mark.django_db
def test_the_web_form_runs_without_javascript(client, shipped_kb):
    page = client.get("/analyses/new/").content.decode()
    assert 'enctype="multipart/form-data"' in page
    response = client.post("/analyses/new/", {"text": PENDING_TAINT.decode()})
    assert response.status_code == 302
    report = client.get(response["Location"]).content.decode()
    assert "FailedScheduling.UntoleratedTaint" in report
    assert 'http-equiv="refresh"' not in report  # done: no more refreshing


@pytest.mark.django_db
def test_the_web_form_shows_errors(client, shipped_kb):
    response = client.post("/analyses/new/", {"text": ""})
    assert response.status_code == 400 and "Nothing to analyse" in response.content.decode()


@pytest.mark.django_db
def test_analyze_command(shipped_kb, capsys):
    from django.core.management import call_command

    call_command("analyze", str(KUBECTL / "describe-pod-pending-taint.txt"))
    out = capsys.readouterr().out
    assert "FailedScheduling.UntoleratedTaint" in out and "untolerated-taint" in out
    call_command("analyze", str(KUBECTL / "describe-pod-pending-taint.txt"), "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["findings"][0]["articles"]


@pytest.mark.django_db
def test_a_broker_that_is_down_gives_a_clear_503_not_a_500(client, shipped_kb, monkeypatch):
    from troubleshoot import tasks

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(tasks.analysis_run_task, "apply_async", refuse)
    response = upload(client, ("describe.txt", PENDING_TAINT))
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "queue_unavailable" and "unreachable" in error["message"]
    assert Analysis.objects.get(pk=error["details"]["id"]).status == "failed"
    # Matching still works.
    ok = client.post("/api/v1/match/", data=json.dumps({"text": "OOMKilled"}), content_type="application/json")
    assert ok.status_code == 200


@pytest.mark.django_db
def test_utf16_uploads_are_read_and_other_encodings_are_refused_by_name(client, shipped_kb):
    utf16 = upload(client, ("powershell.txt", PENDING_TAINT.decode().encode("utf-16")))
    assert utf16.status_code == 202
    assert client.get(f"/api/v1/analyses/{utf16.json()['id']}/").json()["findings"]
    latin = ("Événement échoué à l'étape ñ " * 200).encode("latin-1")
    refused = upload(client, ("latin1.txt", latin))
    assert refused.status_code == 400 and "latin1.txt" in refused.json()["error"]["message"]
    assert "UTF-8" in refused.json()["error"]["message"]
