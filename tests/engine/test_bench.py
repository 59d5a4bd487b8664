from __future__ import annotations

from troubleshoot.engine.bench import bench, default_texts, synthetic_paste, synthetic_signatures
from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.patterns import validate_pattern


def test_synthetic_signatures_are_distinct_and_valid() -> None:
    sigs = synthetic_signatures(200)
    assert 600 <= len(sigs) <= 800
    assert len({s.key for s in sigs}) == len(sigs)
    assert len({s.text for s in sigs}) == len(sigs)
    assert len({s.topic for s in sigs}) == 200
    assert all(validate_pattern(s.pattern) is None for s in sigs if s.pattern)
    assert synthetic_signatures(5) == synthetic_signatures(5)  # deterministic


def test_synthetic_articles_are_findable_by_their_own_text() -> None:
    sigs = synthetic_signatures(50)
    m = Matcher(sigs)
    for sig in sigs[1::17]:
        matches = m.match(synthetic_paste(3000, tail=sig.text)).matches
        assert matches and matches[0].topic == sig.topic  # findable; random words need not be confident


def test_bench_reports_percentiles() -> None:
    m = Matcher(synthetic_signatures(10))
    texts = default_texts()
    res = bench(m, {"1 line": texts["1 line"], "5 KB": texts["5 KB"]}, repeat=3)
    assert set(res) == {"1 line", "5 KB"}
    for row in res.values():
        assert row["p50"] > 0 and row["p95"] >= row["p50"] and row["bytes"] > 0
