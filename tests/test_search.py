"""Search ranking for known queries, in English and Chinese, and the index following the database."""

from __future__ import annotations

import pytest

from troubleshoot import search
from troubleshoot.models import Article
from troubleshoot.search import articles_search, index_rebuild
from troubleshoot.services import article_delete, article_save, article_to_data


def slugs(results):
    return [(h.slug, h.language) for h in results.hits]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("untolerated taint", [("taint-demo", "en"), ("taint-demo", "zh-hans")]),
        ("OOMKilled exit code 137", [("oom-demo", "en")]),
        ("coredns i/o timeout", [("dns-demo", "en")]),
        ("tolerations", [("taint-demo", "en"), ("taint-demo", "zh-hans")]),
    ],
)
def test_english_queries_rank_the_right_article_first(fixture_kb, query, expected):
    assert slugs(articles_search(query=query))[: len(expected)] == expected


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "expected"), [("污点", "taint-demo"), ("容忍度", "taint-demo"),
                                                 ("调度器拒绝了所有节点", "taint-demo")])
def test_chinese_queries_find_the_chinese_article(fixture_kb, query, expected):
    assert slugs(articles_search(query=query))[0] == (expected, "zh-hans")


@pytest.mark.django_db
def test_stemming_matches_other_word_forms(fixture_kb):
    assert slugs(articles_search(query="restarting coredns"))[0] == ("dns-demo", "en")


@pytest.mark.django_db
def test_filters_by_language_and_component(fixture_kb):
    assert slugs(articles_search(query="taint", language="zh-hans")) == [("taint-demo", "zh-hans")]
    assert slugs(articles_search(query="timeout", component="coredns")) == [("dns-demo", "en")]
    assert slugs(articles_search(query="timeout", component="karpenter")) == []


@pytest.mark.django_db
def test_snippets_highlight_the_query_terms(fixture_kb):
    hit = articles_search(query="OOMKilled").hits[0]
    assert '<b class="match' in hit.snippet


@pytest.mark.django_db
def test_queries_made_only_of_punctuation_return_nothing(fixture_kb):
    assert articles_search(query="*** (( ]]").total == 0
    assert articles_search(query="").total == 0


@pytest.mark.django_db
def test_the_index_follows_edits_drafts_and_deletions(fixture_kb):
    index_rebuild()
    article = Article.objects.get(slug="dns-demo")
    data = article_to_data(article)
    data.title = "Name resolution stalls behind a firewall"
    article_save(data=data, source="api")
    assert slugs(articles_search(query="firewall")) == [("dns-demo", "en")]
    data.status = "draft"
    article_save(data=data, source="api")
    assert articles_search(query="firewall").total == 0
    article_delete(article=Article.objects.get(slug="oom-demo"))
    assert articles_search(query="OOMKilled").total == 0


@pytest.mark.django_db
def test_another_process_edit_is_seen_through_the_revision_counter(fixture_kb, settings):
    index_rebuild()
    # Simulate an edit made by another process: the DB changes, this process's index does not get a task.
    from django.db import transaction

    article = Article.objects.get(slug="dns-demo")
    data = article_to_data(article)
    data.summary = "Seen from elsewhere: quasar"
    with transaction.atomic():
        from troubleshoot import services

        original = services.index_schedule
        services.index_schedule = lambda **kw: None
        try:
            article_save(data=data, source="api")
        finally:
            services.index_schedule = original
    search._state["checked"] = 0.0
    assert slugs(articles_search(query="quasar")) == [("dns-demo", "en")]


@pytest.mark.django_db
def test_a_missing_index_is_rebuilt(fixture_kb, settings):
    import shutil

    shutil.rmtree(settings.KB_INDEX_DIR, ignore_errors=True)
    search._state.update(version=-1, checked=0.0)
    assert slugs(articles_search(query="OOMKilled"))[0] == ("oom-demo", "en")
