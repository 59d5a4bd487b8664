"""Engine tests run without Django: make the repository root importable."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from troubleshoot.engine.matcher import Matcher  # noqa: E402

from .kb import SIGNATURES  # noqa: E402


@pytest.fixture(scope="session")
def matcher() -> Matcher:
    return Matcher(SIGNATURES)
