"""Fixtures for the kubectl-output engine tests.

The engine is plain Python: these tests need neither a database nor the
search index, so the project-wide autouse fixture is replaced by a no-op.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIXTURES = ROOT / "tests" / "fixtures" / "kubectl"


@pytest.fixture(autouse=True)
def _isolated_index():
    """Override of the project fixture: nothing to isolate here."""
    yield


def load(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.fixture
def fixture_text():
    return load
