"""The Slack slash command: signature checks, Block Kit answers and the follow-up task."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from troubleshoot import slack
from troubleshoot.slack import SlackRequestError, blocks_for_match, first_step, verify_request

URL = "/api/v1/integrations/slack/command"
SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
RESPONSE_URL = "https://hooks.slack.com/commands/T0001/1234567890/abcdefghijkl"
KUBECTL = Path(__file__).parent / "fixtures" / "kubectl"
TAINT_EVENT = ("Warning  FailedScheduling  4m12s (x4 over 19m)  default-scheduler  0/3 nodes are available: "
               "3 node(s) had untolerated taint {karpenter.sh/controller: true}. preemption: 0/3 nodes are "
               "available: 3 Preemption is not helpful for scheduling.")


def slack_escape(text: str) -> str:
    """What Slack does to the text of a slash command before sending it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def sign(body: bytes, timestamp: int, secret: str = SECRET) -> str:
    digest = hmac.new(secret.encode(), b"v0:%d:" % timestamp + body, hashlib.sha256).hexdigest()
    return f"v0={digest}"


def command(client, text: str, *, secret: str = SECRET, timestamp: int | None = None, signature: str | None = None,
            headers: bool = True, **fields):
    form = {"token": "legacy", "team_id": "T0001", "channel_id": "C2147483705", "user_id": "U2147483697",
            "user_name": "alice", "command": "/kb", "text": text, "response_url": RESPONSE_URL,
            "trigger_id": "13345224609.738474920.8088930838d88f008e0"} | fields
    body = urlencode(form).encode()
    timestamp = int(time.time()) if timestamp is None else timestamp
    extra = {}
    if headers:
        extra = {"HTTP_X_SLACK_REQUEST_TIMESTAMP": str(timestamp),
                 "HTTP_X_SLACK_SIGNATURE": signature or sign(body, timestamp, secret)}
    return client.post(URL, data=body, content_type="application/x-www-form-urlencoded", **extra)


def all_text(message: dict) -> str:
    """Every piece of text in a Block Kit message, joined."""
    parts = [message.get("text", "")]
    for block in message.get("blocks", []):
        if "text" in block:
            parts.append(block["text"]["text"])
        for element in block.get("elements", []):
            parts.append(element.get("text", ""))
    return "\n".join(parts)


def assert_within_slack_limits(message: dict) -> None:
    assert message["response_type"] in ("ephemeral", "in_channel")
    assert 0 < len(message["blocks"]) <= 50
    for block in message["blocks"]:
        assert block["type"] in ("section", "context", "divider")
        if block["type"] == "section":
            assert 0 < len(block["text"]["text"]) <= 3000
        if block["type"] == "context":
            assert 0 < len(block["elements"]) <= 10
            assert all(0 < len(e["text"]) <= 3000 for e in block["elements"])


@pytest.fixture
def signing_secret(settings):
    settings.SLACK_SIGNING_SECRET = SECRET
    return SECRET


@pytest.fixture
def posts(monkeypatch):
    """Capture what the follow-up task POSTs to response_url."""
    sent: list[dict] = []

    class Reply:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self, n=-1):
            return b"ok"

    def fake_urlopen(request, timeout=None):
        sent.append({"url": request.full_url, "method": request.get_method(), "timeout": timeout,
                     "content_type": request.get_header("Content-type"), "json": json.loads(request.data)})
        return Reply()

    monkeypatch.setattr(slack.urllib.request, "urlopen", fake_urlopen)
    return sent


# --- the endpoint -----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_signed_command_gets_the_matching_article_as_blocks(client, shipped_kb, signing_secret):
    response = command(client, slack_escape(TAINT_EVENT))
    assert response.status_code == 200
    message = response.json()
    assert message["response_type"] == "ephemeral"
    assert_within_slack_limits(message)
    first = message["blocks"][0]["text"]["text"]
    assert "<http://testserver/articles/untolerated-taint/|" in first
    assert "confidence" in first.lower()
    assert "*Likely cause:*" in first
    text = all_text(message)
    assert "Matched line 1" in text and "untolerated taint {karpenter.sh/controller: true}" in text
    assert "*First step" in text and "```" in text  # the fix's first step, with its code
    assert "karpenter.sh/controller" in text.split("*First step", 1)[1]  # filled from the paste
    assert "http://testserver/search/?q=" in text


@pytest.mark.django_db
def test_public_prefix_answers_in_the_channel(client, shipped_kb, signing_secret):
    message = command(client, "public " + slack_escape(TAINT_EVENT)).json()
    assert message["response_type"] == "in_channel"
    assert "/articles/untolerated-taint/" in message["blocks"][0]["text"]["text"]


@pytest.mark.django_db
def test_text_nothing_matches_gets_a_clear_no_match_with_a_search_link(client, shipped_kb, signing_secret):
    message = command(client, "KeyError: 'user_id' in the billing report generator").json()
    assert_within_slack_limits(message)
    text = all_text(message)
    assert "No confident match" in text
    assert "http://testserver/search/?q=KeyError" in text


@pytest.mark.django_db
def test_a_forged_signature_is_403(client, shipped_kb, signing_secret):
    response = command(client, TAINT_EVENT, secret="not-the-secret")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "invalid_signature"


@pytest.mark.django_db
def test_a_body_changed_after_signing_is_403(client, shipped_kb, signing_secret):
    timestamp = int(time.time())
    signature = sign(urlencode({"text": "kubectl get pods"}).encode(), timestamp)
    response = command(client, TAINT_EVENT, timestamp=timestamp, signature=signature)
    assert response.status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("offset", [-6 * 60, 6 * 60])
def test_a_stale_timestamp_is_403_even_when_signed_correctly(client, shipped_kb, signing_secret, offset):
    response = command(client, TAINT_EVENT, timestamp=int(time.time()) + offset)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "stale_request" and "5 minutes" in error["message"]


@pytest.mark.django_db
def test_missing_signature_headers_are_401(client, shipped_kb, signing_secret):
    response = command(client, TAINT_EVENT, headers=False)
    assert response.status_code == 401
    assert set(response.json()["error"]) == {"code", "message", "details"}


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["", "   "])
def test_without_a_signing_secret_the_endpoint_is_503(client, shipped_kb, settings, value):
    settings.SLACK_SIGNING_SECRET = value
    response = command(client, TAINT_EVENT, secret="anything")
    assert response.status_code == 503
    assert "SLACK_SIGNING_SECRET" in response.json()["error"]["message"]


@pytest.mark.django_db
def test_no_token_or_session_or_csrf_is_needed(shipped_kb, signing_secret, settings):
    from django.test import Client

    settings.KB_PUBLIC_READ = False  # the signature alone is enough, even on a private KB
    response = command(Client(enforce_csrf_checks=True), slack_escape(TAINT_EVENT))
    assert response.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["help", "HELP", "public help"])
def test_help(client, shipped_kb, signing_secret, text):
    message = command(client, text).json()
    assert message["response_type"] == "ephemeral"
    body = all_text(message)
    assert "/kb public" in body and "/kb help" in body


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["", "   ", "public", "```\n```"])
def test_empty_text_explains_the_usage(client, shipped_kb, signing_secret, text):
    message = command(client, text).json()
    assert message["response_type"] == "ephemeral"
    assert "Paste the error after the command" in all_text(message)


@pytest.mark.django_db
def test_a_long_paste_is_answered_by_the_follow_up_task(client, shipped_kb, signing_secret, posts):
    paste = ("$ kubectl describe pod checkout-worker-7b9c5d4f8-hv6lq\n"
             + (KUBECTL / "describe-pod-pending-taint.txt").read_text()
             + "      AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")
    assert len(paste) > slack.SYNC_MAX_CHARS
    response = command(client, slack_escape(paste))
    assert response.status_code == 200
    assert "Working on it" in all_text(response.json())
    assert len(posts) == 1
    post = posts[0]
    assert post["url"] == RESPONSE_URL and post["method"] == "POST" and post["timeout"] == 10
    assert post["content_type"].startswith("application/json")
    message = post["json"]
    assert_within_slack_limits(message)
    text = all_text(message)
    assert "Analysis of" in text and "finding" in text
    assert "http://testserver/articles/untolerated-taint/" in text
    assert "wJalrXUtnFEMI" not in json.dumps(message)  # redacted before it was queued


@pytest.mark.django_db
def test_several_kubectl_commands_are_analysed_even_when_short(client, shipped_kb, signing_secret, posts):
    paste = ("$ kubectl get pods\nNAME READY STATUS RESTARTS AGE\nweb-1 0/1 Pending 0 5m\n"
             "$ kubectl get events\nLAST SEEN TYPE REASON OBJECT MESSAGE\n"
             "5m Warning FailedScheduling pod/web-1 " + TAINT_EVENT.split("default-scheduler  ")[1])
    assert len(paste) < slack.SYNC_MAX_CHARS
    assert "Working on it" in all_text(command(client, slack_escape(paste)).json())
    assert len(posts) == 1 and "untolerated-taint" in json.dumps(posts[0]["json"])


@pytest.mark.django_db
def test_when_the_broker_is_down_a_long_paste_is_matched_at_once(client, shipped_kb, signing_secret, posts,
                                                                 monkeypatch):
    from kombu.exceptions import OperationalError

    def refuse(*args, **kwargs):
        raise OperationalError("[Errno 111] Connection refused")

    monkeypatch.setattr(slack.slack_followup, "apply_async", refuse)
    paste = TAINT_EVENT + "\n" + "\n".join(f"noise line {i} " + "x" * 60 for i in range(400))
    message = command(client, slack_escape(paste)).json()
    assert posts == []
    text = all_text(message)
    assert "/articles/untolerated-taint/" in text
    assert "not reachable" in text


@pytest.mark.django_db
def test_the_follow_up_task_logs_delivery_failures_and_never_raises(shipped_kb, monkeypatch, caplog):
    import urllib.error

    def broken(request, timeout=None):
        raise urllib.error.URLError("connection refused")

    monkeypatch.setattr(slack.urllib.request, "urlopen", broken)
    slack.slack_followup("https://hooks.slack.com/commands/x", TAINT_EVENT, "https://kb.example.com")
    assert "posting to response_url failed" in caplog.text


@pytest.mark.django_db
def test_the_follow_up_task_reports_a_crash_to_the_user(shipped_kb, monkeypatch, posts):
    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(slack, "answer_for", crash)
    slack.slack_followup(RESPONSE_URL, TAINT_EVENT, "https://kb.example.com")
    assert len(posts) == 1 and "analysis failed" in all_text(posts[0]["json"])


def test_the_follow_up_only_posts_to_slack(posts):
    for url in ("http://hooks.slack.com/commands/x", "https://evil.example.com/slack.com",
                "https://hooks.slack.com.evil.example.com/x", "file:///etc/passwd", ""):
        slack.slack_followup(url, "text", "https://kb.example.com")
    assert posts == []


# --- the helpers ------------------------------------------------------------------------


def test_verify_request_directly():
    body = b"text=hello"
    now = 1_700_000_000
    good = {"X-Slack-Request-Timestamp": str(now), "X-Slack-Signature": sign(body, now)}
    verify_request(body, good, SECRET, now=now + 299)
    for headers, status in [({}, 401), ({"X-Slack-Signature": good["X-Slack-Signature"]}, 401),
                            ({**good, "X-Slack-Request-Timestamp": "yesterday"}, 403),
                            ({**good, "X-Slack-Signature": "v0=" + "0" * 64}, 403)]:
        with pytest.raises(SlackRequestError) as caught:
            verify_request(body, headers, SECRET, now=now)
        assert caught.value.status == status
    with pytest.raises(SlackRequestError) as caught:
        verify_request(body, good, SECRET, now=now + 301)
    assert caught.value.status == 403
    with pytest.raises(SlackRequestError):
        verify_request(b"\xff\xfe not utf-8", good, SECRET, now=now)


def test_slack_formatting_is_undone():
    assert slack.clean_text("Node: &lt;none&gt; &amp; more") == "Node: <none> & more"
    assert slack.clean_text("see <https://example.com/a|example.com/a> now") == "see example.com/a now"
    assert slack.clean_text("```\nError: boom\n```") == "Error: boom"
    assert slack.parse_command("public ```x```") == ("match", "x", True)
    assert slack.parse_command("publicity stunt") == ("match", "publicity stunt", False)


def test_blocks_stay_within_slack_limits_for_huge_articles():
    huge = {"slug": "big", "title": "T" * 500, "language": "en", "url": "/articles/big/", "score": 0.9,
            "confidence": "high", "cause": {"number": 1, "title": "C" * 5000, "body": ""},
            "fix": {"title": "F" * 800, "body": "Run this:\n\n```sh\n" + "echo <x> & y\n" * 2000 + "```\n",
                    "verify": "", "filled": []},
            "evidence": [{"line": 3, "text": "E" * 5000, "symptom": "", "span": [0, 1], "how": "pattern"}],
            "captures": {}}
    payload = {"matches": [huge] * 5, "best": huge, "stats": {}}
    message = blocks_for_match(payload, base_url="https://kb.example.com")
    assert_within_slack_limits(message)
    text = all_text(message)
    assert "<https://kb.example.com/articles/big/|" in text
    assert "&lt;x&gt; &amp; y" in text and "<x>" not in text
    assert text.count("```") % 2 == 0  # truncated code blocks are still closed


def test_first_step_prefers_the_paragraph_that_introduces_the_code():
    body = "Patch the add-on:\n\n```yaml\ntolerations: []\n```\n\nThen restart it.\n"
    assert first_step(body, 1000) == "Patch the add-on:\n```tolerations: []```"
    assert first_step("Restart **kubelet** on the node.\n\nMore text.", 1000) == "Restart *kubelet* on the node."
    assert first_step("```sh\nkubectl get nodes\n```\nafter", 1000) == "```kubectl get nodes```"
