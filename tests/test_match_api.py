"""POST /api/v1/match/: shape, errors, Markdown for chat, and the results page."""

from __future__ import annotations

import json

import pytest

TAINT_EVENT = ("Warning  FailedScheduling  3m (x4 over 9m)  default-scheduler  0/5 nodes are available: "
               "5 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/5 nodes are available: "
               "5 Preemption is not helpful for scheduling.")


def post(client, body, **extra):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post("/api/v1/match/", data=data, content_type="application/json", **extra)


@pytest.mark.django_db
def test_it_returns_ranked_matches_with_evidence_captures_cause_and_filled_fix(client, fixture_kb):
    body = post(client, {"text": "pod is pending\n" + TAINT_EVENT}).json()
    best = body["best"]
    assert best["slug"] == "taint-demo" and best["language"] == "en"
    assert best["confidence"] in ("high", "medium")
    assert body["matches"][0] == best
    assert best["captures"] == {"key": "dedicated", "value": "gpu"}
    evidence = best["evidence"][0]
    assert evidence["line"] == 2
    start, end = evidence["span"]
    assert "dedicated" in evidence["text"][start:end] or "untolerated taint" in evidence["text"][start:end]
    assert best["cause"]["title"] == "The nodes are reserved by a taint"
    assert 'key: "dedicated"' in best["fix"]["body"] and 'value: "gpu"' in best["fix"]["body"]
    assert best["fix"]["filled"] == ["key", "value"]
    assert set(body["stats"]) >= {"lines", "templates", "ms"}
    assert best["url"] == "http://testserver/articles/taint-demo/"


@pytest.mark.django_db
def test_the_users_language_is_preferred_with_english_as_fallback(client, fixture_kb):
    zh = post(client, {"text": TAINT_EVENT, "language": "zh-hans"}).json()
    assert (zh["best"]["slug"], zh["best"]["language"]) == ("taint-demo", "zh-hans")
    oom = post(client, {"text": "Last State: Terminated\n  Reason: OOMKilled\n  Exit Code: 137",
                        "language": "zh-hans"}).json()
    assert (oom["matches"][0]["slug"], oom["matches"][0]["language"]) == ("oom-demo", "en")
    assert len({m["slug"] for m in zh["matches"]}) == len(zh["matches"])  # one entry per topic


@pytest.mark.django_db
def test_unrelated_text_gets_no_confident_match(client, fixture_kb):
    text = ('Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
            "    main()\nKeyError: 'user_id'")
    body = post(client, {"text": text}).json()
    assert body["best"] is None
    assert all(m["confidence"] == "low" for m in body["matches"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "text"),
        ({"text": ""}, "text"),
        ({"text": "   \n  "}, "empty"),
        ({"text": 42}, "must be a string"),
        ({"text": ["a"]}, "must be a string"),
        ({"text": "x", "limit": "many"}, "limit"),
        ({"text": "x", "limit": 0}, "limit"),
        ({"text": "x", "language": "fr"}, "language"),
        ('{"text": "unterminated', "JSON"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_bad_requests_are_400_with_a_message(client, fixture_kb, body, words):
    response = post(client, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert words.lower() in (error["message"] + json.dumps(error["details"])).lower()


@pytest.mark.django_db
def test_text_over_the_limit_is_413_naming_it(client, fixture_kb, settings):
    settings.MATCH_MAX_BYTES = 2048
    response = post(client, {"text": "x" * 3000})
    assert response.status_code == 413
    assert "2048" in response.json()["error"]["message"]
    assert "MATCH_MAX_BYTES" in response.json()["error"]["message"]


@pytest.mark.django_db
def test_markdown_for_chat_tools(client, fixture_kb):
    response = post(client, {"text": TAINT_EVENT}, HTTP_ACCEPT="text/markdown")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    assert text.startswith("### [Pods Pending on an untolerated node taint](http://testserver/articles/taint-demo/)")
    assert "**Fix:** Tolerate the taint" in text
    via_param = client.post("/api/v1/match/?format=markdown", data=json.dumps({"text": "hello world"}),
                            content_type="application/json")
    assert via_param.content.decode().startswith("**No confident match.**")


@pytest.mark.django_db
def test_results_page_keeps_the_paste_and_highlights_evidence_and_filled_values(client, fixture_kb):
    page = client.post("/match/", {"text": TAINT_EVENT}).content.decode()
    assert "0/5 nodes are available" in page.split("</textarea>")[0]
    assert '<mark class="hit">' in page
    assert '<mark class="filled" title="filled in from your paste">dedicated</mark>' in page
    assert 'href="/articles/taint-demo/"' in page or 'href="http://testserver/articles/taint-demo/"' in page
    assert "No confident match" not in page


@pytest.mark.django_db
def test_results_page_says_plainly_when_nothing_fits(client, fixture_kb):
    page = client.post("/match/", {"text": "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve"}).content
    assert b'id="no-match"' in page and b"/search/?q=" in page


@pytest.mark.django_db
def test_results_page_refuses_an_empty_paste(client, fixture_kb):
    response = client.post("/match/", {"text": "  "})
    assert response.status_code == 400 and b"the box was empty" in response.content


@pytest.mark.django_db
def test_binary_garbage_does_not_break_matching(client, fixture_kb):
    garbage = bytes(range(256)).decode("latin-1") * 20
    response = post(client, {"text": garbage})
    assert response.status_code == 200 and response.json()["best"] is None


def test_the_recall_query_is_short_and_distinct():
    from troubleshoot.matching import RECALL_TERMS, recall_query

    text = "Error: foo bar baz\n" * 1000 + " ".join(f"word{i}" for i in range(100))
    query = recall_query(text).split()
    assert query[:3] == ["error", "foo", "bar"] and len(query) == len(set(query)) <= RECALL_TERMS


RBAC_PASTE = ('I0312 10:01:02.123456       1 main.go:10] starting\n'
              'Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:ci:deployer" cannot '
              'list resource "secrets" in API group "" in the namespace "payments"')


@pytest.mark.django_db
def test_no_confident_match_still_says_what_the_paste_is_about(client, fixture_kb):
    body = post(client, {"text": RBAC_PASTE}).json()
    assert body["best"] is None
    assert body["read"] == ["Kubernetes RBAC refused `system:serviceaccount:ci:deployer` to `list` `secrets` in "
                            "namespace `payments`"]
    markdown = post(client, {"text": RBAC_PASTE}, HTTP_ACCEPT="text/markdown").content.decode()
    assert "What the paste says:\n- Kubernetes RBAC refused" in markdown


@pytest.mark.django_db
def test_no_match_page_lists_what_was_read_and_prefills_search_with_the_worst_line(client, fixture_kb):
    page = client.post("/match/", {"text": RBAC_PASTE}).content.decode()
    assert 'id="no-match"' in page and "What your paste says" in page
    assert "Kubernetes RBAC refused" in page
    assert 'name="q" id="no-match-q" value="Error from server (Forbidden): secrets is forbidden' in page


@pytest.mark.django_db
def test_each_suggestion_says_why(client, fixture_kb):
    body = post(client, {"text": TAINT_EVENT}).json()
    assert body["matches"][0]["why"][0].startswith("its message")
