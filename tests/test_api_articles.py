"""GET /api/v1/articles/ and /api/v1/articles/<slug>/."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_list_is_paginated_with_the_documented_fields(client, fixture_kb):
    body = client.get("/api/v1/articles/", {"page_size": 2}).json()
    assert body["count"] == 4 and len(body["results"]) == 2 and body["next"] and body["previous"] is None
    first = body["results"][0]
    assert {"slug", "title", "language", "summary", "components", "url"} <= set(first)
    assert first["url"].startswith("http://testserver/articles/")


@pytest.mark.django_db
def test_page_size_is_capped_at_200(client, fixture_kb):
    response = client.get("/api/v1/articles/", {"page_size": 5000})
    assert response.status_code == 200 and response.json()["count"] == 4


@pytest.mark.django_db
def test_list_filters_by_language_component_and_query(client, fixture_kb):
    langs = client.get("/api/v1/articles/", {"language": "zh-hans"}).json()
    assert [(r["slug"], r["language"]) for r in langs["results"]] == [("taint-demo", "zh-hans")]
    comp = client.get("/api/v1/articles/", {"component": "coredns"}).json()
    assert [r["slug"] for r in comp["results"]] == ["dns-demo"]
    found = client.get("/api/v1/articles/", {"q": "OOMKilled"}).json()
    assert [r["slug"] for r in found["results"]][0] == "oom-demo"


@pytest.mark.django_db
def test_an_unknown_language_is_a_400_naming_it(client, fixture_kb):
    response = client.get("/api/v1/articles/", {"language": "fr"})
    assert response.status_code == 400
    assert "fr" in response.json()["error"]["message"]


@pytest.mark.django_db
def test_detail_gives_the_whole_record(client, fixture_kb):
    body = client.get("/api/v1/articles/taint-demo/", {"language": "en"}).json()
    for key in ("slug", "title", "language", "summary", "components", "environment", "problem", "symptoms",
                "causes", "fixes", "versions", "references", "translations", "url", "updated"):
        assert key in body, key
    assert body["symptoms"][0]["pattern"].startswith("untolerated taint")
    assert body["symptoms"][0]["cause"] == 1 and body["fixes"][0]["cause"] == 1
    assert body["translations"][0]["language"] == "zh-hans"


@pytest.mark.django_db
def test_detail_in_chinese(client, fixture_kb):
    assert client.get("/api/v1/articles/taint-demo/", {"language": "zh-hans"}).json()["title"].startswith("节点")


@pytest.mark.django_db
def test_unknown_slug_is_a_404_in_the_error_shape(client, fixture_kb):
    response = client.get("/api/v1/articles/nope/")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "not_found" and "nope" in error["message"]
