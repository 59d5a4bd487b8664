"""Answer quality on the representative audit (tests/audit/): real pastes sampled from public issue trackers and
Q&A pages in search order, labelled with the articles that fix them. The floors are the figures measured when the
audit was last tuned (README, "Answer quality on real pastes"), a little below, so a change that makes the matcher
worse on real pastes fails here even when every written-for case in tests/matcher_cases/ still passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from troubleshoot.evaluation import Ranked, evaluate_audit, load_audit
from troubleshoot.matching import match_payload, match_text

AUDIT = Path(__file__).parent / "audit"

# half: (useful answers / all, top-1 on covered pastes, share of confident answers that are wrong, at most)
FLOORS = {"tuning": (0.64, 0.90, 0.03), "heldout": (0.42, 0.74, 0.16)}


def rank(text: str) -> Ranked:
    payload = match_payload(match_text(text=text, limit=5))
    return Ranked(slugs=[m["slug"] for m in payload["matches"]],
                  best=payload["best"]["slug"] if payload["best"] else None)


def test_the_audit_is_representative_in_size_and_split() -> None:
    cases = load_audit(AUDIT)
    halves = {c.half for c in cases}
    assert len(cases) >= 250 and halves == {"tuning", "heldout"}
    assert all(c.source.startswith("http") for c in cases)
    kinds: dict[str, int] = {}
    for c in cases:
        kinds[c.topic] = kinds.get(c.topic, 0) + 1
    assert max(kinds.values()) <= 3  # at most 3 pastes of one failure kind
    shipped = {p.stem for p in (Path(__file__).parents[1] / "troubleshoot" / "kb" / "en").glob("*.md")}
    assert {label for c in cases for label in c.labels} <= shipped  # every label names a shipped article


def test_three_in_four_real_pastes_have_an_article() -> None:
    """Coverage of the representative audit (issue: grow the KB by frequency): the share of pastes whose failure
    a shipped article fixes, by the labels. It falls when an article that real pastes need is removed."""
    cases = load_audit(AUDIT)
    assert sum(1 for c in cases if c.labels) / len(cases) >= 0.75


@pytest.mark.django_db
def test_answers_on_real_pastes_do_not_fall_below_the_measured_figures(shipped_kb) -> None:
    reports = evaluate_audit(load_audit(AUDIT), rank, lambda text: [])
    for half, (useful, top1, wrong) in FLOORS.items():
        f = reports[half].figures()
        assert f["useful"] >= useful, (half, f)
        assert f["top1"] >= top1, (half, f)
        assert f["confident_wrong_rate"] <= wrong, (half, f)
