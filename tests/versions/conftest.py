"""The version reader and checker are plain Python: no database, no index."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "versions"


@pytest.fixture(autouse=True)
def _isolated_index():
    """Override of the project fixture: nothing to isolate here."""
    yield


@pytest.fixture
def version_text():
    return lambda name: (FIXTURES / name).read_text(encoding="utf-8")
