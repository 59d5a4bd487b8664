from __future__ import annotations

from troubleshoot.engine.automaton import PhraseIndex
from troubleshoot.engine.fuzzy import FuzzyIndex, line_tokens
from troubleshoot.engine.normalize import normalize

from .kb import SIGNATURES, TAINT


def test_line_tokens_drop_placeholders_and_edge_punctuation() -> None:
    toks = line_tokens("<num>/<num> nodes are available: <num> node(s) had taint {a: b},")
    assert toks == ["/", "nodes", "are", "available", "node(s", "had", "taint", "a", "b"]


def test_old_kubernetes_wording_nearly_matches_new_signature() -> None:
    fz = FuzzyIndex(PhraseIndex(SIGNATURES))
    old = normalize(
        "0/6 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/master: }, "
        "that the pod didn't tolerate, 5 Insufficient memory."
    )
    hits = dict(fz.match(old))
    taint_sigs = {i for i, s in enumerate(SIGNATURES) if s.topic == TAINT}
    assert taint_sigs & set(hits)
    assert max(hits[i] for i in taint_sigs & set(hits)) >= 0.72


def test_terminal_split_word_still_matches() -> None:
    fz = FuzzyIndex(PhraseIndex(SIGNATURES))
    hits = dict(fz.match(normalize("3 node(s) had untolerat ed taint {karpenter.sh/controller: true}")))
    assert any(SIGNATURES[i].topic == TAINT for i in hits)


def test_unrelated_lines_do_not_match() -> None:
    fz = FuzzyIndex(PhraseIndex(SIGNATURES))
    for text in [
        'Traceback (most recent call last): File "/app/main.py", line 3, in <module>',
        "nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)",
        "0/3 nodes are available: 3 Insufficient memory.",
        "ok",
    ]:
        assert fz.match(normalize(text)) == [], text
