"""The command-line client (python -m troubleshoot.client) against a live server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PENDING_TAINT = Path(__file__).parent / "fixtures" / "kubectl" / "describe-pod-pending-taint.txt"
TAINT_EVENT = ("Warning  FailedScheduling  3m  default-scheduler  0/3 nodes are available: 3 node(s) had "
               "untolerated taint {karpenter.sh/controller: true}. preemption: 0/3 nodes are available: "
               "3 Preemption is not helpful for scheduling.\n")


def run(*args: str, url: str, stdin: str | bytes | None = None, token: str | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("KB_URL", "KB_TOKEN", "DJANGO_SETTINGS_MODULE")}
    env["KB_URL"] = url
    if token is not None:
        env["KB_TOKEN"] = token
    data = stdin.encode() if isinstance(stdin, str) else (stdin if stdin is not None else b"")
    result = subprocess.run([sys.executable, "-m", "troubleshoot.client", *args], input=data, capture_output=True,
                            cwd=ROOT, env=env, timeout=timeout)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode("utf-8", "replace"),
                                       result.stderr.decode("utf-8", "replace"))


@pytest.fixture
def kb_server(live_server, transactional_db, settings):
    from troubleshoot.services import kb_import

    kb_import(root=settings.KB_SHIPPED_DIR)
    return live_server


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


def test_match_reads_stdin_and_prints_a_readable_answer(kb_server):
    result = run("match", "-", url=kb_server.url, stdin="pod is pending\n" + TAINT_EVENT)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("1. Pods stay Pending because every node has a taint the pod does not tolerate")
    assert f"{kb_server.url}/articles/untolerated-taint/" in out
    assert "matched line 2: Warning FailedScheduling" in out
    assert "likely cause: A system add-on has no toleration" in out
    assert "fix: " in out and 'key = "karpenter.sh/controller"' in out  # the top fix, filled from the paste


def test_match_json_and_limit(kb_server, tmp_path):
    paste = tmp_path / "event.txt"
    paste.write_text(TAINT_EVENT)
    result = run("match", str(paste), "--json", "--limit", "2", url=kb_server.url)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["best"]["slug"] == "untolerated-taint"
    assert 1 <= len(body["matches"]) <= 2
    assert body["best"]["url"] == f"{kb_server.url}/articles/untolerated-taint/"


def test_match_with_no_confident_answer_says_so(kb_server):
    result = run("match", "-", url=kb_server.url, stdin="KeyError: 'user_id' in report.py line 3\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("No confident match")


def test_the_apis_error_message_is_shown(kb_server):
    result = run("match", "-", "--language", "fr", url=kb_server.url, stdin=TAINT_EVENT)
    assert result.returncode == 1
    assert result.stderr.startswith("error: HTTP 400: language")
    assert "Traceback" not in result.stderr


def test_empty_input_and_missing_files_are_usage_errors(kb_server, tmp_path):
    empty = run("match", "-", url=kb_server.url, stdin="  \n\n")
    assert empty.returncode == 2 and "nothing to match: stdin is empty" in empty.stderr
    missing = run("analyze", str(tmp_path / "nope.txt"), url=kb_server.url)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    blank = tmp_path / "blank.txt"
    blank.write_text("")
    assert run("analyze", str(blank), url=kb_server.url).returncode == 2


def test_analyze_waits_for_the_report_and_keeps_the_session(kb_server):
    # Anonymous analyses are visible only to the session that created them: polling works
    # only because the client sends the session cookie back.
    result = run("analyze", str(PENDING_TAINT), "--wait", url=kb_server.url)
    assert result.returncode == 0, result.stderr
    assert "done 100%" in result.stderr
    out = result.stdout
    assert out.startswith("Analysis ") and ": done, " in out
    assert "[critical] Pod default/checkout-worker-7b9c5d4f8-hv6lq" in out
    assert f"{kb_server.url}/articles/untolerated-taint/" in out  # stored paths made absolute
    assert f"Report: {kb_server.url}/analyses/" in out


def test_analyze_json(kb_server):
    result = run("analyze", str(PENDING_TAINT), "-", "--wait", "--json", url=kb_server.url, stdin=TAINT_EVENT)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "done"
    assert [s["name"] for s in report["sources"]] == ["describe-pod-pending-taint.txt", "stdin.txt"]
    assert any(m["slug"] == "untolerated-taint" for m in report["matches"])


def test_analyze_without_wait_prints_where_to_find_it(kb_server):
    result = run("analyze", str(PENDING_TAINT), url=kb_server.url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Analysis ") and f"{kb_server.url}/analyses/" in result.stdout


def test_a_closed_port_gives_a_clear_message():
    url = f"http://127.0.0.1:{closed_port()}"
    for args in (["match", "-"], ["analyze", str(PENDING_TAINT), "--wait"]):
        result = run(*args, url=url, stdin=TAINT_EVENT, timeout=30)
        assert result.returncode == 3
        assert result.stderr.startswith(f"error: cannot connect to {url} (connection refused)")
        assert "KB_URL" in result.stderr and "Traceback" not in result.stderr


def test_the_token_is_sent(kb_server, settings, django_user_model):
    from rest_framework.authtoken.models import Token

    from troubleshoot.models import Analysis

    settings.KB_PUBLIC_READ = False  # nothing without a token now
    user = django_user_model.objects.create_user("oncall", password="x")
    token = Token.objects.create(user=user)

    anonymous = run("match", "-", url=kb_server.url, stdin=TAINT_EVENT)
    assert anonymous.returncode == 1
    assert "HTTP 401" in anonymous.stderr and "KB_TOKEN" in anonymous.stderr

    wrong = run("match", "-", url=kb_server.url, stdin=TAINT_EVENT, token="0" * 40)
    assert wrong.returncode == 1 and "Invalid token" in wrong.stderr

    good = run("match", "-", "--json", url=kb_server.url, stdin=TAINT_EVENT, token=token.key)
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["best"]["slug"] == "untolerated-taint"

    analysed = run("analyze", str(PENDING_TAINT), "--wait", "--json", url=kb_server.url, token=token.key)
    assert analysed.returncode == 0, analysed.stderr
    assert Analysis.objects.get(pk=json.loads(analysed.stdout)["id"]).owner == user


def test_the_client_does_not_need_django():
    code = ("import sys, troubleshoot.client as c; "
            "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules), 'imports Django'")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
