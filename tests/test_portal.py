"""Portal pages: home, search, article layout, browse, language switch, health, and sanitising."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from troubleshoot.kbformat import CauseData, FixData, ReferenceData, SymptomData
from troubleshoot.models import Article
from troubleshoot.services import article_save, article_to_data


@pytest.mark.django_db
def test_home_shows_the_paste_box_recent_articles_and_components(client, fixture_kb):
    page = client.get("/").content.decode()
    assert '<textarea name="text"' in page
    assert "Container killed for running out of memory" in page
    assert 'href="/components/coredns/"' in page


@pytest.mark.django_db
def test_article_page_is_laid_out_as_problem_symptoms_causes_fixes(client, fixture_kb):
    response = client.get("/articles/taint-demo/")
    assert response.status_code == 200
    page = response.content.decode()
    order = [page.index(h) for h in ("Problem", "Symptoms", "Causes and fixes", "Best practices", "References")]
    assert order == sorted(order)
    assert "had untolerated taint {karpenter.sh/controller: true}." in page
    assert "data-copy" in page
    assert 'class="highlight"' in page  # Pygments
    assert "example.com/dedicated" in page  # placeholder shown with its default
    assert "{{" not in page
    assert 'hreflang="zh-hans"' in page


@pytest.mark.django_db
def test_article_language_comes_from_the_parameter_or_the_ui_language(client, fixture_kb):
    assert "节点污点" in client.get("/articles/taint-demo/?language=zh-hans").content.decode()
    page = client.get("/articles/taint-demo/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "节点污点" in page
    # No Chinese version: English is shown.
    assert "DNS lookups" in client.get("/articles/dns-demo/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


@pytest.mark.django_db
def test_unknown_and_unpublished_articles_are_404(client, fixture_kb):
    assert client.get("/articles/nope/").status_code == 404
    data = article_to_data(Article.objects.get(slug="dns-demo"))
    data.status = "draft"
    article_save(data=data)
    assert client.get("/articles/dns-demo/").status_code == 404


@pytest.mark.django_db
def test_editors_see_drafts_and_an_edit_link(client, fixture_kb, django_user_model):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("ed", password="pw")
    user.user_permissions.add(Permission.objects.get(codename="change_article"))
    client.force_login(user)
    page = client.get("/articles/oom-demo/").content.decode()
    assert "/admin/troubleshoot/article/" in page


@pytest.mark.django_db
def test_search_page_shows_highlighted_snippets_and_filters(client, fixture_kb):
    page = client.get("/search/", {"q": "OOMKilled"}).content.decode()
    assert "Container killed for running out of memory" in page
    assert '<b class="match' in page
    assert client.get("/search/", {"q": "taint", "language": "zh-hans"}).content.decode().count('class="result"') == 1


@pytest.mark.django_db
def test_browse_by_component(client, fixture_kb):
    assert "CoreDNS" in client.get("/components/").content.decode()
    page = client.get("/components/coredns/").content.decode()
    assert "DNS lookups time out inside pods" in page
    assert "Container killed" not in page
    assert client.get("/components/unknown/").status_code == 404


@pytest.mark.django_db
def test_ui_is_translated_to_chinese(client, fixture_kb):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'lang="zh-hans"' in page
    assert "集群输出了什么" in page


def test_healthz_is_cheap_and_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


XSS_PAYLOADS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "<iframe src=https://evil.example></iframe>",
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    "<svg onload=alert(1)>",
    '<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>',
    "<object data=x></object><embed src=x>",
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    "<form action=https://evil.example><input name=x></form>",
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
]


@pytest.mark.django_db
@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_no_script_reaches_the_page_from_any_markdown_field(client, fixture_kb, payload):
    data = article_to_data(Article.objects.get(slug="oom-demo", language="en"))
    data.problem = payload
    data.best_practices = payload
    data.environment = payload
    data.summary = payload
    data.title = payload[:200]
    data.causes = [CauseData(title=payload, body=payload)]
    data.fixes = [FixData(title=payload, body=payload, verify=payload, cause=0)]
    data.symptoms = [SymptomData(text=payload, source=payload)]
    data.references = [ReferenceData(title=payload, url="https://example.com/")]
    article_save(data=data)
    page = client.get("/articles/oom-demo/").content.decode()
    assert payload not in page or "<" not in payload
    content = page[page.index("<main>"):page.index("</main>")]
    # Our own "did this fix it?" form is the one legitimate form on the page.
    content = re.sub(r'<section class="was-it-useful">.*?</section>', "", content, flags=re.S)
    assert_no_active_content(content)


class _ActiveContent(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag in {"script", "iframe", "object", "embed", "svg", "math", "form", "input", "style", "img"}:
            self.found.append(tag)
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on") or name == "style":
                self.found.append(f"{tag}[{name}]")
            if name in {"href", "src", "action", "data"} and not value.startswith(("http://", "https://", "/",
                                                                                      "#", "?", "mailto:")):
                self.found.append(f"{tag}[{name}={value[:30]}]")


def assert_no_active_content(html):
    parser = _ActiveContent()
    parser.feed(html)
    assert parser.found == []
