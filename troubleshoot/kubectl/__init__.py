"""Offline analysis of text printed by kubectl (Kubernetes / EKS / Karpenter).

No Django here: this package is plain Python so it can run in a view, a
Celery task or a test without settings.

    >>> from troubleshoot.kubectl import analyze_text
    >>> report = analyze_text(pasted_text)
    >>> [f.problem for f in report.findings]
"""

from .codes import PROBLEM_CODES
from .engine import analyze_text
from .models import Finding, Report, Section
from .splitter import split_sections

__all__ = ["PROBLEM_CODES", "Finding", "Report", "Section", "analyze_text", "split_sections"]
