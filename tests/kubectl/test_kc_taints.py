"""Taint/toleration parsing and matching semantics."""

from __future__ import annotations

import pytest

from troubleshoot.kubectl.taints import (
    Taint,
    Toleration,
    parse_taint_text,
    parse_toleration_text,
    taints_in_scheduler_message,
    toleration_from_dict,
    untolerated,
)

GPU = Taint("nvidia.com/gpu", "true", "NoSchedule")


@pytest.mark.parametrize("tol, expected", [
    (Toleration("nvidia.com/gpu", "Equal", "true", "NoSchedule"), True),
    (Toleration("nvidia.com/gpu", "Equal", "false", "NoSchedule"), False),
    (Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule"), True),
    (Toleration("nvidia.com/gpu", "Exists", "", ""), True),            # empty effect: all effects
    (Toleration("nvidia.com/gpu", "Exists", "", "NoExecute"), False),  # effect must match
    (Toleration("", "Exists", "", ""), True),                          # tolerates everything
    (Toleration("", "Exists", "", "NoExecute"), False),
    (Toleration("", "Equal", "", ""), False),                          # empty key needs Exists
    (Toleration("other", "Exists", "", ""), False),
    (Toleration("nvidia.com/gpu", "", "true", ""), True),              # operator defaults to Equal
])
def test_toleration_matching(tol, expected):
    assert tol.tolerates(GPU) is expected


def test_untolerated_ignores_prefer_no_schedule_by_default():
    taints = [Taint("a", "", "PreferNoSchedule"), Taint("b", "", "NoSchedule"), Taint("c", "", "NoExecute")]
    assert untolerated(taints, [Toleration("c", "Exists")]) == [Taint("b", "", "NoSchedule")]
    assert Taint("a", "", "PreferNoSchedule") in untolerated(taints, [], blocking_only=False)


@pytest.mark.parametrize("text, taint", [
    ("dedicated=batch:NoSchedule", Taint("dedicated", "batch", "NoSchedule")),
    ("node.kubernetes.io/unreachable:NoExecute", Taint("node.kubernetes.io/unreachable", "", "NoExecute")),
    ("karpenter.sh/disrupted:NoSchedule", Taint("karpenter.sh/disrupted", "", "NoSchedule")),
])
def test_parse_taint_text(text, taint):
    assert parse_taint_text(text) == taint


def test_parse_taint_text_none():
    assert parse_taint_text("<none>") is None
    assert parse_taint_text("") is None


@pytest.mark.parametrize("text, tol", [
    ("node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
     Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300)),
    ("dedicated=gpu:NoSchedule", Toleration("dedicated", "Equal", "gpu", "NoSchedule")),
    ("CriticalAddonsOnly op=Exists", Toleration("CriticalAddonsOnly", "Exists")),
    ("op=Exists", Toleration("", "Exists")),
    (":NoSchedule op=Exists", Toleration("", "Exists", "", "NoSchedule")),
])
def test_parse_toleration_text(text, tol):
    assert parse_toleration_text(text) == tol


def test_toleration_text_round_trip():
    for tol in (Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300),
                Toleration("dedicated", "Equal", "gpu", "NoSchedule"), Toleration("", "Exists")):
        assert parse_toleration_text(str(tol)) == tol


def test_toleration_from_dict():
    tol = toleration_from_dict({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60})
    assert tol == Toleration("k", "Exists", "", "NoExecute", 60)


def test_taints_in_scheduler_message():
    msg = ("0/5 nodes are available: 3 node(s) had untolerated taint {karpenter.sh/controller: true}, "
           "2 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.")
    assert taints_in_scheduler_message(msg) == [Taint("karpenter.sh/controller", "true"),
                                                Taint("node.kubernetes.io/unreachable", "")]
