"""Prometheus metrics: match latency, analysis durations, request counts. Exposed at /metrics.

Counters live in each process. With several gunicorn workers, set PROMETHEUS_MULTIPROC_DIR
to a shared empty folder so prometheus_client aggregates them (see its multiprocess docs).
"""

from __future__ import annotations

import os

from django.http import HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

MATCH_SECONDS = Histogram("kb_match_seconds", "Time to match one paste (engine and database)",
                          buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
MATCH_TOTAL = Counter("kb_matches_total", "Pastes matched", ["outcome"])
# Answers as their users saw them: "answered" (a confident best answer), "unanswered" (none),
# "answered-wrong" (a "No, this didn't fix it" vote); by surface (page, api, slack, analysis, vote).
MATCH_ANSWERS_TOTAL = Counter("kb_match_answers_total", "Matches by outcome for their user", ["outcome", "surface"])
ANALYSIS_SECONDS = Histogram("kb_analysis_seconds", "Time to analyse one upload",
                             buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300))
ANALYSIS_TOTAL = Counter("kb_analyses_total", "Analyses finished", ["status"])


def metrics_view(request: HttpRequest) -> HttpResponse:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        data = generate_latest(registry)
    else:
        data = generate_latest()
    return HttpResponse(data, content_type=CONTENT_TYPE_LATEST)
