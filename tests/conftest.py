"""Shared fixtures. Each test gets its own index folder and fresh per-process caches,
so the database (rolled back per test) and the derived index never disagree."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_KB = FIXTURES / "kb"


@pytest.fixture(autouse=True)
def _generous_throttles(settings):
    """Tests send many requests from one client; the throttling tests set their own rates."""
    from django.core.cache import cache

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"anon": "100000/min", "user": "100000/min"}}
    cache.clear()


@pytest.fixture(autouse=True)
def _isolated_index(settings, tmp_path):
    settings.KB_INDEX_DIR = tmp_path / "index"
    settings.KB_SYNC_INTERVAL = 0.0
    from troubleshoot import search

    search._state.update(checked=0.0, version=-1)
    try:
        from troubleshoot import matching

        matching._cache.update(version=None, matcher=None, checked=0.0, articles={})
    except ImportError:  # the matcher engine is optional for the foundation tests
        pass
    yield


@pytest.fixture
def fixture_kb(db):
    """The small, stable test knowledge base under tests/fixtures/kb, imported."""
    from troubleshoot.services import kb_import

    return kb_import(root=FIXTURE_KB)


@pytest.fixture(scope="session")
def shipped_items():
    """The shipped article files, parsed once per test session."""
    from django.conf import settings

    from troubleshoot.kbformat import load_folder

    return load_folder(settings.KB_SHIPPED_DIR)


@pytest.fixture
def shipped_kb(db, settings, shipped_items):
    from troubleshoot.services import kb_import

    return kb_import(root=settings.KB_SHIPPED_DIR, items=shipped_items)
