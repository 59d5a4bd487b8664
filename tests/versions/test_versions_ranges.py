"""Version numbers and the range formats articles use."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from troubleshoot.versions import parse_range, reading_span
from troubleshoot.versions.numbers import parse_version

KB = Path(__file__).resolve().parents[2] / "troubleshoot" / "kb"


@pytest.mark.parametrize("text, version", [
    ("v1.29.3-eks-ae9a62a", "1.29.3"),
    ("1.18.3-eksbuild.1", "1.18.3"),
    ("v1.11.1-eksbuild.9", "1.11.1"),
    ("1.1.1@sha256:0123abcd", "1.1.1"),
    ("v1.29.0-minimal-eksbuild.1", "1.29.0"),
    ("1.0.0-rc.1", "1.0.0-rc.1"),
])
def test_versions_are_read_without_their_build_suffix(text, version):
    assert str(parse_version(text).version) == version


def test_a_pre_release_sorts_before_its_release():
    assert parse_version("1.0.0-rc.1").version < parse_version("1.0.0").version < parse_version("1.0.1").version


def test_words_are_not_versions():
    assert parse_version("latest") is None
    assert parse_version("stable-1") is None


@pytest.mark.parametrize("text, shown", [
    (">=1.25", ">=1.25.0"),
    ("<1.25", "<1.25.0"),
    ("<=1.19", "<1.20.0"),                     # every 1.19.x
    (">=1.20 <1.22", ">=1.20.0 <1.22.0"),
    (">=0.34.0 <0.36.0", ">=0.34.0 <0.36.0"),
    ("1.1.1", "1.1.1"),
    ("1.29", ">=1.29.0 <1.30.0"),
    ("1.28+", ">=1.28.0"),
    ("1.1.x", ">=1.1.0 <1.2.0"),
    ("1.20 - 1.22", ">=1.20.0 <1.23.0"),
    (">= 1.20, < 1.22", ">=1.20.0 <1.22.0"),
    ("~> 20.8", ">=20.8.0 <21.0.0"),
    ("^1.2.3", ">=1.2.3 <2.0.0"),
    ("<1.18 || >=1.35", "<1.18.0 || >=1.35.0"),
    ("terraform-provider-helm >=3.0.0", "terraform-provider-helm >=3.0.0"),
])
def test_range_formats(text, shown):
    assert str(parse_range(text)) == shown


def test_free_text_is_not_a_range():
    assert parse_range("platform versions with access entries (Kubernetes 1.23+ from late 2023)") is None
    assert parse_range("") is None


def test_every_range_in_the_shipped_articles_is_read_or_knowingly_free_text():
    ranges = []
    for path in sorted(KB.glob("*/*.md")):
        front = yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])
        for entry in front.get("versions") or []:
            for key in ("affected", "fixed_in"):
                if entry.get(key):
                    ranges.append((path.name, key, str(entry[key])))
    assert ranges
    unread = {text for _, key, text in ranges if key == "affected" and parse_range(text) is None}
    assert unread == {"platform versions with access entries (Kubernetes 1.23+ from late 2023)"}
    assert all(parse_version(text) for _, key, text in ranges if key == "fixed_in")


def test_a_reading_may_be_a_range():
    assert str(reading_span(">=0.32.0 <1.1.0")) == ">=0.32.0 <1.1.0"
    assert str(reading_span("1.29")) == ">=1.29.0 <1.30.0"
    assert reading_span("nonsense") is None
