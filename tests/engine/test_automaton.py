from __future__ import annotations

import time

from troubleshoot.engine.automaton import PhraseIndex, fragments, runs
from troubleshoot.engine.bench import synthetic_signatures
from troubleshoot.engine.normalize import normalize
from troubleshoot.engine.types import Signature

from .kb import AFFINITY, CPU, SIGNATURES, TAINT


def by_topic(index: PhraseIndex, topic: str):
    return next(s for s, sig in zip(index.sigs, SIGNATURES) if sig.topic == topic)


def test_fragments_split_on_placeholders_and_punctuation_and_mark_values() -> None:
    norm = normalize("0/3 nodes are available: 3 node(s) had untolerated taint {karpenter.sh/controller: true}.")
    frags = fragments(norm)
    assert ("node(s) had untolerated taint", False) in frags
    assert ("karpenter.sh/controller", True) in frags
    assert ("nodes are available", False) in frags
    assert runs("a b c d e f g h i") == ["a b c d", "e f g h i"]


def test_generic_fragments_are_dropped_and_distinctive_ones_kept() -> None:
    index = PhraseIndex(SIGNATURES)
    taint = by_topic(index, TAINT)
    texts = [f.text for f in taint.frags]
    assert "node(s) had untolerated taint" in texts
    assert "nodes are available" not in texts
    assert not any("preemption" in t for t in texts)
    cpu = by_topic(index, CPU)
    assert [f.text for f in cpu.frags] == ["insufficient cpu"]


def test_coverage_full_partial_and_none() -> None:
    index = PhraseIndex(SIGNATURES)
    taint = by_topic(index, TAINT)

    def cov(text: str) -> float:
        return index.candidates(index.scan(normalize(text))).get(taint.index, 0.0)

    assert cov("0/3 nodes are available: 3 node(s) had untolerated taint {karpenter.sh/controller: true}.") == 1.0
    other_value = cov("0/9 nodes are available: 9 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.")
    assert 0.8 < other_value < 1.0  # the example taint value weighs little
    assert cov("0/3 nodes are available: 3 Insufficient cpu.") == 0.0
    # a fragment must sit on word boundaries
    assert cov("xnode(s) had untolerated taintx") == 0.0


def test_coverage_counts_fragments_in_signature_order() -> None:
    sig = Signature("k", "t", "en", "alpha bravo charlie, delta echo foxtrot, golf hotel india")
    index = PhraseIndex([sig, Signature("k2", "u", "en", "unrelated words here")])
    in_order = index.candidates(index.scan("alpha bravo charlie x delta echo foxtrot y golf hotel india"))[0]
    shuffled = index.candidates(index.scan("golf hotel india x delta echo foxtrot y alpha bravo charlie"))[0]
    assert in_order == 1.0
    assert shuffled < 0.5


def test_idf_makes_shared_words_weigh_less() -> None:
    index = PhraseIndex(SIGNATURES)
    assert index.idf("untolerated") > index.idf("node(s)")
    taint = by_topic(index, TAINT)
    affinity = by_topic(index, AFFINITY)
    assert taint.specificity > 0.5 and affinity.specificity > 0.5


def test_scan_cost_does_not_grow_with_signature_count() -> None:
    text = normalize(
        "\n".join(
            f"I0521 10:00:{i % 60:02d}.000 1 reflector.go:{i}] Listing and watching *v1.Pod from cache"
            for i in range(3000)
        )
    )
    small = PhraseIndex(synthetic_signatures(30))
    large = PhraseIndex(synthetic_signatures(3000))

    def timed(index: PhraseIndex) -> float:
        best = 1e9
        for _ in range(5):
            t0 = time.perf_counter()
            index.candidates(index.scan(text))
            best = min(best, time.perf_counter() - t0)
        return best

    assert timed(large) < 4 * timed(small) + 0.01
