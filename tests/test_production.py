"""Production settings and health: check --deploy, security headers, CSP, /readyz, /metrics, JSON logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_check_deploy_is_clean_with_the_documented_production_settings(tmp_path):
    env = {**os.environ, "DJANGO_DEBUG": "false", "DJANGO_HTTPS": "true", "KB_DATA_DIR": str(tmp_path),
           "DJANGO_SECRET_KEY": "x7" * 30 + "-a-long-random-production-secret",
           "DJANGO_ALLOWED_HOSTS": "kb.example.internal"}
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set by the browser tests in this process
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_plain_http_keeps_working_with_debug_off(client, settings):
    settings.DEBUG = False
    response = client.get("/healthz")
    assert response.status_code == 200  # no redirect to https without DJANGO_HTTPS


@pytest.mark.django_db
def test_pages_carry_security_headers_and_a_csp_without_inline_script(client, fixture_kb):
    response = client.get("/articles/oom-demo/")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    policy = response["Content-Security-Policy"]
    script = next(d for d in policy.split(";") if d.strip().startswith("script-src"))
    assert "'self'" in script and "unsafe-inline" not in script and "unsafe-eval" not in script
    page = response.content.decode()
    assert "<script>" not in page and " onclick=" not in page


@pytest.mark.django_db
def test_swagger_ui_needs_no_inline_script(client):
    page = client.get("/api/docs/").content.decode()
    assert "<script>" not in page.replace(" ", "")


@pytest.mark.django_db
def test_readyz_reports_database_and_index(client, fixture_kb):
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["checks"]["database"]["ok"] and body["checks"]["index"]["ok"]
    assert "broker" not in body["checks"]  # no broker configured


@pytest.mark.django_db
def test_readyz_fails_when_the_broker_is_unreachable(client, fixture_kb, settings):
    settings.KB_BROKER_CONFIGURED = True
    from kbapp.celery import app

    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = client.get("/readyz")
    finally:
        app.conf.broker_url = settings.CELERY_BROKER_URL
    assert response.status_code == 503
    assert response.json()["checks"]["broker"]["ok"] is False


@pytest.mark.django_db
def test_metrics_export_match_latency(client, fixture_kb):
    client.post("/api/v1/match/", data=json.dumps({"text": "OOMKilled"}), content_type="application/json")
    text = client.get("/metrics").content.decode()
    assert "kb_match_seconds_bucket" in text and "kb_matches_total" in text


def test_json_log_lines():
    import logging

    from kbapp.logging import JSONFormatter

    record = logging.LogRecord("troubleshoot", logging.WARNING, __file__, 1, "index %s rebuilt", ("x",), None)
    line = json.loads(JSONFormatter().format(record))
    assert line["level"] == "WARNING" and line["message"] == "index x rebuilt" and line["logger"] == "troubleshoot"


@pytest.mark.django_db
def test_no_traceback_reaches_a_client(client, fixture_kb, monkeypatch, settings):
    settings.DEBUG = False
    from troubleshoot import views

    def explode(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(views.selectors, "articles_recent", explode)
    client.raise_request_exception = False
    response = client.get("/")
    assert response.status_code == 500
    assert b"secret internals" not in response.content and b"Traceback" not in response.content


@pytest.mark.django_db
def test_an_unexpected_api_error_is_json_without_internals(client, fixture_kb, monkeypatch):
    from troubleshoot.api import views

    def explode(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(views, "match_text", explode)
    response = client.post("/api/v1/match/", data=json.dumps({"text": "x"}), content_type="application/json")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "server_error"
    assert b"secret internals" not in response.content
