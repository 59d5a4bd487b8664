"""Symptom-matching engine of Troubleshoot KB (plain Python, no Django).

Public API::

    from troubleshoot.engine import Matcher, Signature
    matcher = Matcher(signatures)                 # build once
    result = matcher.match(paste, limit=5, language="en", recall=None)

Stages, usable on their own: :mod:`.reader` (``read``), :mod:`.normalize`
(``normalize``), :mod:`.condense` (``condense``), :mod:`.automaton`
(``PhraseIndex``), :mod:`.patterns` (``PatternSet``, ``validate_pattern``),
:mod:`.fuzzy` (``FuzzyIndex``), :mod:`.rank` (scores and thresholds),
:mod:`.fill` (``fill_placeholders``, ``render_defaults``) and
:mod:`.bench` (``bench``, ``synthetic_signatures``).
"""

from .fill import fill_placeholders, render_defaults
from .matcher import Matcher
from .normalize import normalize
from .patterns import validate_pattern
from .rank import HIGH, MEDIUM
from .reader import read
from .types import ArticleMatch, Evidence, Line, MatchResult, Signature

__all__ = [
    "Matcher",
    "Signature",
    "Evidence",
    "ArticleMatch",
    "MatchResult",
    "Line",
    "read",
    "normalize",
    "validate_pattern",
    "fill_placeholders",
    "render_defaults",
    "HIGH",
    "MEDIUM",
]
