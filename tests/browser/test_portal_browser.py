"""A reader's path through the portal in a real browser."""

from __future__ import annotations


def test_home_search_then_article(page, live_kb):
    page.goto(live_kb.url + "/")
    assert page.locator("textarea#paste").is_visible()
    page.fill("header .search-mini input[name=q]", "OOMKilled")
    page.press("header .search-mini input[name=q]", "Enter")
    page.wait_for_url("**/search/?q=OOMKilled*")
    first = page.locator("ol.results li.result a.title").first
    assert first.inner_text() == "Container killed for running out of memory"
    first.click()
    page.wait_for_url("**/articles/oom-demo/**")
    assert page.locator("h1").inner_text() == "Container killed for running out of memory"
    assert page.locator("section.symptoms pre code").first.inner_text().startswith("Last State")
    assert page.locator("section.causes .fix").count() == 1
