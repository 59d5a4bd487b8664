"""Versions: read them from pastes, compare them with the articles' version ranges.

Plain Python (no Django), like the engine:

    >>> from troubleshoot.versions import read_versions, version_check, Entry
    >>> versions = read_versions(pasted_text)          # {"Karpenter": "1.1.1", ...}
    >>> version_check([Entry("Karpenter", affected="1.1.1")], versions)
    [{"component": "Karpenter", "version": "1.1.1", "status": "affected", ...}]
"""

from .check import AFFECTED_PRIOR, FIXED_PRIOR, STATUSES, Entry, describe, status, version_check, version_prior
from .ranges import Range, parse_range, reading_span
from .reader import KNOWN_COMPONENTS, PRODUCTS, Reading, read_versions, readings

__all__ = ["AFFECTED_PRIOR", "FIXED_PRIOR", "KNOWN_COMPONENTS", "PRODUCTS", "STATUSES", "Entry", "Range", "Reading",
           "describe", "parse_range", "read_versions", "readings", "reading_span", "status", "version_check",
           "version_prior"]
