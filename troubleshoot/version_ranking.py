"""Django side of version awareness: the articles' version ranges checked against the versions a
paste shows or a client gives, and the names a client may give versions for.

The reading and the comparison are plain Python in ``troubleshoot.versions``; this module only
feeds them the articles' ``VersionRange`` rows (prefetched with the matcher's articles)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from troubleshoot.models import Component, VersionRange
from troubleshoot.versions import KNOWN_COMPONENTS, Entry, version_check, version_prior


def article_version_check(article: Any, versions: Mapping[str, str]) -> list[dict[str, str]]:
    """``version_check`` rows for one article (``[]`` when no version is known)."""
    if not versions:
        return []
    entries = [Entry(v.component, v.affected, v.fixed_in, v.note) for v in article.versions.all()]
    return version_check(entries, versions)


def ranking_prior(rows: list[dict[str, str]]) -> float:
    return version_prior(rows)


def component_names() -> set[str]:
    """Names a client may give a version for: the KB's components, the components the articles'
    version ranges name, and what the version reader knows."""
    names = set(Component.objects.values_list("name", flat=True))
    names |= set(VersionRange.objects.values_list("component", flat=True).distinct())
    return names | set(KNOWN_COMPONENTS)
