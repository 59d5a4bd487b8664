"""The on-call path in a real browser: paste → ranked fixes with evidence; upload → progress → report."""

from __future__ import annotations

from pathlib import Path

KUBECTL = Path(__file__).resolve().parent.parent / "fixtures" / "kubectl"

EVENTS = """Events:
  Type     Reason            Age                 From               Message
  ----     ------            ----                ----               -------
  Warning  FailedScheduling  2m (x9 over 12m)    default-scheduler  0/4 nodes are available: 4 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.
"""


def test_paste_shows_the_right_article_first_with_highlighted_evidence(page, live_kb):
    page.goto(live_kb.url + "/")
    page.fill("textarea#paste", EVENTS)
    page.click("#paste-form button.primary")
    page.wait_for_selector(".match")
    first = page.locator(".match").first
    assert first.get_attribute("data-slug") == "taint-demo"
    assert "best" in (first.get_attribute("class") or "")
    assert "untolerated taint" in first.locator("mark.hit").first.inner_text() or \
        "dedicated" in first.locator("mark.hit").first.inner_text()
    assert first.locator("mark.filled").first.inner_text() == "dedicated"
    assert page.locator("textarea#paste").input_value().startswith("Events:")  # the paste stays for editing
    assert page.locator("#no-match").count() == 0


def test_unrelated_text_says_no_confident_match(page, live_kb):
    page.goto(live_kb.url + "/")
    page.fill("textarea#paste", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree")
    page.click("#paste-form button.primary")
    page.wait_for_selector("#no-match")
    assert "No confident match" in page.locator("#no-match").inner_text()


def test_upload_shows_progress_then_the_report(page, live_kb):
    page.goto(live_kb.url + "/analyses/new/")
    page.set_input_files("input#files", str(KUBECTL / "describe-pod-pending-taint.txt"))
    page.click("#analysis-form button.primary")
    page.wait_for_url("**/analyses/*/")
    page.wait_for_selector(".finding", timeout=30000)
    assert "FailedScheduling.UntoleratedTaint" in page.locator(".finding").first.inner_text() or \
        "FailedScheduling.UntoleratedTaint" in page.content()
    assert page.locator("#overall-matches li").count() >= 1


def test_the_report_page_follows_progress_without_a_reload_by_hand(page, live_kb):
    from troubleshoot.analysis import analysis_run
    from troubleshoot.models import Analysis

    page.goto(live_kb.url + "/analyses/new/")
    page.fill("textarea#analysis-text", "x")  # any analysis gives this browser its session
    page.click("#analysis-form button.primary")
    session_key = next(c["value"] for c in page.context.cookies() if c["name"] == "sessionid")
    queued = Analysis.objects.create(text=(KUBECTL / "describe-pod-pending-taint.txt").read_text(),
                                     session_key=session_key, progress_message="waiting for a worker")
    page.goto(live_kb.url + f"/analyses/{queued.id}/")
    assert page.locator("#analysis-status progress").is_visible()
    assert page.locator("#analysis-status .status").inner_text() == "Queued"
    analysis_run(analysis_id=queued.id)  # a worker picks it up
    page.wait_for_selector(".finding", timeout=15000)  # the page's script notices and shows the report
    assert "FailedScheduling.UntoleratedTaint" in page.content()
