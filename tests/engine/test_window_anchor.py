"""A message pattern that matched inside a window (several lines joined) is anchored to the one line that
holds the whole match, so evidence points at that line and an article's symptoms on different lines count
as different lines."""

from troubleshoot.engine.evidence import anchor
from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.reader import read
from troubleshoot.engine.types import Signature


def test_a_match_inside_one_line_of_a_window_is_that_lines() -> None:
    lines = read("  first line of text\n  second line holds the match\nthird")
    joined = " ".join(line.text.strip() for line in lines[:2])
    start = joined.index("holds")
    line, size, text, span = anchor(lines, 0, 2, joined, (start, start + len("holds the match")))
    assert (line, size) == (1, 1)
    assert text[span[0]:span[1]] == "holds the match"


def test_a_match_across_lines_keeps_the_window() -> None:
    lines = read("error: the message was\nwrapped by the terminal")
    joined = " ".join(line.text.strip() for line in lines)
    line, size, text, span = anchor(lines, 0, 2, joined, (joined.index("was"), joined.index("wrapped") + 7))
    assert (line, size, text) == (0, 2, joined)


def test_a_pattern_matched_in_a_window_points_at_its_own_line() -> None:
    sig = Signature(key="t:en:0", topic="t", language="en", weight=2.0,
                    text='skipping, unable to resolve instance types, resolving node class, '
                         'EC2NodeClass.karpenter.k8s.aws "default" not found',
                    pattern=r"skipping, unable to resolve instance types")
    paste = ('{"level":"ERROR","message":"listing instance types, resolving node class, '
             'EC2NodeClass.karpenter.k8s.aws \\"default\\" not found"}\n'
             '{"level":"ERROR","message":"skipping, unable to resolve instance types"}')
    [ev] = Matcher([sig]).match(paste).matches[0].evidence
    assert (ev.line, ev.how) == (2, "pattern")
    assert ev.text[ev.span[0]:ev.span[1]] == "skipping, unable to resolve instance types"
