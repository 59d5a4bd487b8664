"""Versions read from a paste or given by the client, checked against the articles' version ranges:
the match API, its ranking prior, the Markdown and Slack answers, the results page and analyses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from troubleshoot.engine.types import ArticleMatch, MatchResult

TAINT_EVENT = ("Warning  FailedScheduling  3m (x4 over 9m)  default-scheduler  0/5 nodes are available: "
               "5 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/5 nodes are available: "
               "5 Preemption is not helpful for scheduling.")
KARPENTER_IMAGE = "    Image:          public.ecr.aws/karpenter/controller:1.1.1@sha256:f2e1d0c9b8a7f6e5d4c3b2a1\n"
CASES = Path(__file__).parent / "matcher_cases"


def post(client, body, **extra):
    return client.post("/api/v1/match/", data=json.dumps(body), content_type="application/json", **extra)


@pytest.fixture
def ranged_kb(fixture_kb):
    """The fixture KB with version ranges: taint-demo affects Karpenter 1.0 and 1.1 (fixed in 1.2.0)."""
    from troubleshoot.models import Article, VersionRange

    for taint in Article.objects.filter(slug="taint-demo"):     # English and Chinese
        VersionRange.objects.create(article=taint, component="Karpenter", affected=">=1.0.0 <1.2.0",
                                    fixed_in="1.2.0", note="the demo taint message")
    return fixture_kb


@pytest.mark.django_db
def test_versions_given_by_the_client_are_checked_against_the_articles_ranges(client, ranged_kb):
    body = post(client, {"text": TAINT_EVENT, "versions": {"Karpenter": "1.1.1"}}).json()
    assert body["versions"] == {"Karpenter": "1.1.1"}
    assert body["best"]["slug"] == "taint-demo"
    assert body["best"]["version_check"] == [
        {"component": "Karpenter", "version": "1.1.1", "status": "affected", "affected": ">=1.0.0 <1.2.0",
         "fixed_in": "1.2.0", "note": "the demo taint message"}]
    later = post(client, {"text": TAINT_EVENT, "versions": {"karpenter": "1.2.3"}}).json()
    assert later["best"]["version_check"][0]["status"] == "fixed"
    assert later["versions"] == {"Karpenter": "1.2.3"}     # the KB's spelling of the name


@pytest.mark.django_db
def test_versions_are_read_from_the_paste_and_the_client_overrides_them(client, ranged_kb):
    body = post(client, {"text": KARPENTER_IMAGE + TAINT_EVENT}).json()
    assert body["versions"] == {"Karpenter": "1.1.1"}
    assert body["best"]["version_check"][0]["status"] == "affected"
    given = post(client, {"text": KARPENTER_IMAGE + TAINT_EVENT, "versions": {"Karpenter": "0.37.0"}}).json()
    assert given["versions"] == {"Karpenter": "0.37.0"}
    assert given["best"]["version_check"][0]["status"] == "unaffected"


@pytest.mark.django_db
def test_a_range_that_straddles_the_articles_range_is_unknown_and_no_version_means_no_check(client, ranged_kb):
    body = post(client, {"text": TAINT_EVENT, "versions": {"Karpenter": ">=0.32.0 <1.1.0"}}).json()
    assert body["best"]["version_check"][0]["status"] == "unknown"
    plain = post(client, {"text": TAINT_EVENT}).json()
    assert plain["versions"] == {} and plain["best"]["version_check"] == []


@pytest.mark.django_db
@pytest.mark.parametrize(("versions", "named"), [
    ({"Karpneter": "1.1.1"}, "'Karpneter' is not a component"),
    ({"Karpenter": "latest"}, "'latest' (for Karpenter) is not a version"),
    ({"Karpenter": ""}, "versions"),
    (["Karpenter", "1.1.1"], "versions"),
    ({"Karpenter": None}, "versions"),
])
def test_bad_versions_are_refused_naming_the_key_or_value(client, ranged_kb, versions, named):
    response = post(client, {"text": TAINT_EVENT, "versions": versions})
    assert response.status_code == 400
    assert named in json.dumps(response.json(), ensure_ascii=False)


@pytest.mark.django_db
def test_the_version_prior_orders_near_ties_but_never_overturns_strong_evidence(ranged_kb):
    from troubleshoot.matching import MatchOutcome, _current, match_payload
    from troubleshoot.models import Article, VersionRange

    VersionRange.objects.create(article=Article.objects.get(slug="oom-demo", language="en"),
                                component="Karpenter", affected="", fixed_in="1.0.0")
    _, articles = _current()

    def ranked(oom_score: float, taint_score: float) -> list[str]:
        result = MatchResult(matches=[ArticleMatch("oom-demo", "en", oom_score, "medium"),
                                      ArticleMatch("taint-demo", "en", taint_score, "medium")])
        result.best = result.matches[0]
        outcome = MatchOutcome(result=result, articles=articles, ms=1.0)
        return [m["slug"] for m in match_payload(outcome, versions={"Karpenter": "1.1.1"})["matches"]]

    # oom-demo is fixed in what you run (-), taint-demo affects it (+): a near tie flips...
    assert ranked(0.61, 0.60) == ["taint-demo", "oom-demo"]
    # ...a clear lead does not
    assert ranked(0.80, 0.60) == ["oom-demo", "taint-demo"]


@pytest.mark.django_db
def test_a_strong_match_fixed_in_what_you_run_stays_first_and_says_so(client, ranged_kb):
    body = post(client, {"text": TAINT_EVENT, "versions": {"Karpenter": "1.3.0"}}).json()
    assert body["best"]["slug"] == "taint-demo"
    assert body["best"]["version_check"][0]["status"] == "fixed"


@pytest.mark.django_db
def test_markdown_answers_carry_the_version_check(client, ranged_kb):
    response = post(client, {"text": TAINT_EVENT, "versions": {"Karpenter": "1.1.1"}}, HTTP_ACCEPT="text/markdown")
    assert "_You run Karpenter 1.1.1: affected, fixed in 1.2.0._" in response.content.decode()


@pytest.mark.django_db
def test_the_results_page_shows_what_you_run(client, ranged_kb):
    page = client.post("/match/", {"text": KARPENTER_IMAGE + TAINT_EVENT}).content.decode()
    assert "You run Karpenter 1.1.1: affected, fixed in 1.2.0." in page
    zh = client.post("/match/", {"text": KARPENTER_IMAGE + TAINT_EVENT}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "你使用的 Karpenter 1.1.1：受影响，已在 1.2.0 中修复。" in zh.content.decode()


def test_slack_answers_carry_the_version_check():
    from troubleshoot.slack import blocks_for_match

    match = {"slug": "taint-demo", "title": "Pods Pending on an untolerated node taint", "url": "/articles/taint-demo/",
             "confidence": "high", "score": 0.9, "evidence": [], "cause": None, "fix": None,
             "version_check": [{"component": "Karpenter", "version": "1.1.1", "status": "affected",
                                "affected": ">=1.0.0 <1.2.0", "fixed_in": "1.2.0", "note": ""}]}
    message = blocks_for_match({"matches": [match], "best": match}, base_url="https://kb.example.internal")
    assert "You run Karpenter 1.1.1: affected, fixed in 1.2.0." in json.dumps(message)


@pytest.mark.django_db
def test_analysis_reports_carry_versions_and_each_article_its_version_check(shipped_kb):
    from troubleshoot.analysis import analysis_compute

    paste = (CASES / "karpenter-controller-crashloop" / "describe-pod-probe-failures.txt").read_text()
    report = analysis_compute(paste.replace("controller:1.0.5@", "controller:1.1.1@"))
    assert report["versions"]["Karpenter"] == "1.1.1"
    assert report["summary"]["versions"] == report["versions"]
    crashloop = next(m for m in report["matches"] if m["slug"] == "karpenter-controller-crashloop")
    assert {(r["affected"], r["status"]) for r in crashloop["version_check"]} == {
        ("1.1.1", "affected"), (">=0.34.0 <0.36.0", "unaffected")}
    linked = [a for f in report["findings"] for a in f["articles"] if a["slug"] == "karpenter-controller-crashloop"]
    assert linked and all(a["version_check"] == crashloop["version_check"] for a in linked)


@pytest.mark.django_db
def test_the_analysis_api_and_page_show_the_versions(client, fixture_kb, monkeypatch):
    # tests run inside a transaction: run the queued work when the view's transaction would commit
    monkeypatch.setattr("django.db.transaction.on_commit", lambda func, using=None, robust=False: func())
    text = KARPENTER_IMAGE.strip() + "\n" + TAINT_EVENT + "\n"
    created = client.post("/api/v1/analyses/", data=json.dumps({"text": text}), content_type="application/json")
    analysis = client.get(f"/api/v1/analyses/{created.json()['id']}/").json()
    assert analysis["status"] == "done" and analysis["versions"] == {"Karpenter": "1.1.1"}
    page = client.get(f"/analyses/{created.json()['id']}/").content.decode()
    assert "Versions in this upload" in page and "Karpenter <code>1.1.1</code>" in page
