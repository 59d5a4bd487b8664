"""Calibration guards found on real unrelated pastes."""

from __future__ import annotations

from troubleshoot.engine.rank import MEDIUM, article_score
from troubleshoot.engine.reader import is_record_start


def test_slash_dated_and_time_only_log_lines_start_new_records():
    # nginx / Go log lines: a window must not glue separate records into one phrase match.
    assert is_record_start("2024/05/14 16:21:09 [error] 1187#1187: *90433 connect() failed")
    assert is_record_start("16:21:09 worker started")
    assert not is_record_start("continued text of a wrapped message")


def test_a_weak_fuzzy_only_match_stays_low():
    assert article_score([(0.9, 1)], fuzzy_only=True, fuzzy_strength=0.7) < MEDIUM
    assert article_score([(0.9, 1)], fuzzy_only=True, fuzzy_strength=0.8) >= MEDIUM
    assert article_score([(0.9, 1)], fuzzy_only=False) >= MEDIUM
