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


def test_kubectl_get_rows_are_never_glued_onto_a_long_header():
    from troubleshoot.engine.reader import read

    table = ("NAMESPACE     NAME                                READY   STATUS      RESTARTS        AGE\n"
             "default       pdf-renderer-58b7c9d6f-2hwnm        0/1     OOMKilled   7 (2m11s ago)   34m\n"
             "default       web-6d4cf56db6-x7k2p                1/1     Running     0               2d\n")
    assert [line.number for line in read(table)] == [1, 2, 3]


def test_describe_fields_of_one_block_are_matched_together():
    from troubleshoot.engine.matcher import Matcher
    from troubleshoot.engine.types import Signature

    matcher = Matcher([Signature("oom:en:0", "oom", "en", "Last State: Terminated Reason: OOMKilled Exit Code: 137",
                                 pattern=r"Reason:\s+OOMKilled\s+Exit Code:\s+(?P<code>137)")])
    paste = ("    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
             "      Started:      Mon, 20 May 2024 10:00:00 +0000\n")
    result = matcher.match(paste)
    assert result.best is not None and result.best.topic == "oom"
    assert result.best.captures.get("code") == "137"
