"""The kubectl analysis on real uploads (tests/fixtures/real_uploads): the figures the README reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from troubleshoot.analysis_quality import HALVES, Figures, Outcome, Result, evaluate, load_uploads, ratio, summary

UPLOADS = Path(__file__).parent / "fixtures" / "real_uploads"


def test_every_upload_has_a_source_a_judgement_and_a_half():
    uploads = load_uploads(UPLOADS)
    assert len(uploads) >= 40
    assert {u.half for u in uploads} == set(HALVES)
    assert all(u.path.is_file() and u.source.startswith("https://") for u in uploads)
    assert len({u.path.name for u in uploads}) == len(uploads) == len(list(UPLOADS.glob("*.txt")))


def test_figures_count_only_what_each_measure_is_about():
    uploads = load_uploads(UPLOADS)[:3]     # 01 shows a problem with an article, 02 too, 03 too
    figures = Figures([Result(uploads[0], Outcome(["X"], ["warning"], ["node-affinity-mismatch"])),
                       Result(uploads[1], Outcome([], [], [])),
                       Result(uploads[2], Outcome(["Y"], ["info"], ["oomkilled"]))])
    assert figures.findings() == (2, 3)
    assert figures.right_first() == (1, 3)
    assert figures.quiet() == (0, 0) and ratio(figures.quiet()) == 1.0
    assert "findings 2/3 (67%)" in summary(figures)


@pytest.mark.django_db
def test_real_uploads_give_findings_and_the_right_article_first(shipped_kb):
    from troubleshoot.management.commands.evaluate_analysis import analyse_with_kb

    figures = evaluate(load_uploads(UPLOADS), analyse_with_kb)
    misses = [(r.upload.path.name, why) for r, why in figures.misses()]
    assert ratio(figures.findings()) >= 0.9, misses
    assert ratio(figures.right_first()) >= 0.9, misses
    assert ratio(figures.quiet()) == 1.0, misses
    for half in HALVES:
        assert ratio(figures.half(half).findings()) >= 0.85, (half, misses)
