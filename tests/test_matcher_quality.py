"""Answer quality on the shipped KB: every labelled case, and exact order for key pastes."""

from __future__ import annotations

from pathlib import Path

import pytest

from troubleshoot.evaluation import Ranked, evaluate, load_cases
from troubleshoot.matching import match_payload, match_text

CASES = Path(__file__).parent / "matcher_cases"


def rank(text: str) -> Ranked:
    payload = match_payload(match_text(text=text, limit=5))
    return Ranked(slugs=[m["slug"] for m in payload["matches"]],
                  best=payload["best"]["slug"] if payload["best"] else None)


@pytest.fixture
def report(shipped_kb):
    return evaluate(load_cases(CASES), rank)


@pytest.mark.django_db
def test_every_shipped_article_is_found_first_for_its_own_cases(report):
    misses = [f"{r.case.path.parent.name}/{r.case.path.name} -> {r.ranked.slugs[:3]}"
              for r in report.results if r.case.expected is not None and r.rank != 1]
    assert misses == []


@pytest.mark.django_db
def test_unrelated_errors_get_no_confident_answer(report):
    wrong = [f"{r.case.path.name} -> {r.ranked.best}" for r in report.results
             if r.case.expected is None and r.ranked.best is not None]
    assert wrong == []


@pytest.mark.django_db
def test_each_shipped_article_has_at_least_three_labelled_cases(shipped_kb):
    from troubleshoot.models import Article

    counts = {p.name: len(list(p.glob("*.txt"))) for p in CASES.iterdir() if p.is_dir()}
    for slug in Article.objects.filter(language="en").values_list("slug", flat=True):
        assert counts.get(slug, 0) >= 3, slug


def slugs_for(text: str) -> list[str]:
    return [m["slug"] for m in match_payload(match_text(text=text, limit=5))["matches"]]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0/3 nodes are available: 3 node(s) had untolerated taint {karpenter.sh/controller: true}.",
         ["untolerated-taint"]),
        ("0/6 nodes are available: 6 Insufficient memory. preemption: 0/6 nodes are available: "
         "6 No preemption victims found for incoming pod.", ["insufficient-cpu-memory"]),
        ("0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector.",
         ["node-affinity-mismatch"]),
        ("Warning  FailedScheduling  fargate-scheduler  Misconfigured Fargate Profile: fargate profile karpenter "
         "blocked for new launches due to: Pod execution role is not found in auth config or does not have all "
         "required permissions for launching fargate pods", ["karpenter-pending-on-fargate"]),
        ('{"level":"ERROR","time":"2024-11-02T08:00:01.000Z","logger":"controller","message":"failed launching '
         'nodeclaim","error":"missing required startup taint, karpenter.sh/unregistered"}',
         ["karpenter-missing-startup-taint"]),
        ("error: You must be logged in to the server (Unauthorized)", ["kubectl-unauthorized"]),
        ("exec /usr/local/bin/python: exec format error", ["exec-format-error"]),
    ],
)
def test_key_pastes_rank_in_this_exact_order(shipped_kb, text, expected):
    assert slugs_for(text)[: len(expected)] == expected


DENIED = ('User: arn:aws:sts::111122223333:assumed-role/{role}/1731429849 is not authorized to perform: {action} on '
          'resource: {resource} because no identity-based policy allows the {action} action')


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("role", "action", "resource", "first", "then"),
    [
        # Karpenter's own role: its IAM article, then the generic denial article
        ("KarpenterControllerRole-prod", "ec2:RunInstances", "arn:aws:ec2:eu-west-1:111122223333:instance/*",
         "karpenter-iam-denied", "aws-authorization-denied-controller"),
        # another controller's role, no article of its own for the denial: the generic one, filled from the paste
        ("external-dns-prod", "route53:ChangeResourceRecordSets",
         "arn:aws:route53:::hostedzone/Z0452713392NDA7C5SB4P", "aws-authorization-denied-controller", None),
    ],
)
def test_a_specific_denial_article_wins_over_the_family_article(shipped_kb, role, action, resource, first, then):
    text = "AccessDenied: " + DENIED.format(role=role, action=action, resource=resource)
    payload = match_payload(match_text(text=text, limit=5))
    slugs = [m["slug"] for m in payload["matches"]]
    assert payload["best"] is not None and payload["best"]["slug"] == first
    if then:
        assert slugs[1] == then
    assert action in payload["best"]["fix"]["body"] or role in payload["best"]["fix"]["body"]
