"""Symptoms that match on structured fields (``when``) rather than on their words."""

from __future__ import annotations

import json

from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.types import Signature

CNI_DENIED = Signature(
    key="cni:en:0", topic="vpc-cni-iam", language="en",
    text="AccessDenied: User: arn:aws:sts::111122223333:assumed-role/eks-nodes/i-1 is not authorized to perform: "
         "ec2:CreateNetworkInterface",
    when=(("aws.action", r"ec2:(?:CreateNetworkInterface|AssignPrivateIpAddresses|AttachNetworkInterface)"),),
    weight=2.0,
)
KARPENTER_DENIED = Signature(
    key="kar:en:0", topic="karpenter-iam", language="en",
    text="UnauthorizedOperation: User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole/s is not "
         "authorized to perform: ec2:RunInstances",
    when=(("aws.code", "UnauthorizedOperation|AccessDenied"), ("component", "Karpenter")), weight=2.0,
)
RBAC = Signature(
    key="rbac:en:0", topic="rbac-forbidden", language="en",
    text='pods is forbidden: User "system:serviceaccount:ci:bot" cannot list resource "pods" in API group "" in the '
         'namespace "prod"',
    when=(("k8s.reason", "Forbidden"), ("k8s.verb", r"[a-z]+")),
)


def matcher() -> Matcher:
    return Matcher([CNI_DENIED, KARPENTER_DENIED, RBAC])


def test_a_denied_cni_action_matches_whatever_words_surround_it() -> None:
    paste = ('{"level":"error","ts":"2024-03-01T10:00:00Z","caller":"ipamd/ipamd.go:700","msg":"Failed to increase '
             'pool size","error":"operation error EC2: AssignPrivateIpAddresses, https response error StatusCode: '
             '403, RequestID: 1, api error UnauthorizedOperation: User: arn:aws:sts::111122223333:assumed-role/'
             'nodes-role/i-0 is not authorized to perform: ec2:AssignPrivateIpAddresses because no identity-based '
             'policy allows it"}')
    result = matcher().match(paste)
    assert result.matches[0].topic == "vpc-cni-iam"
    assert result.best is not None and result.best.topic == "vpc-cni-iam"
    assert result.matches[0].captures["action"] == "ec2:AssignPrivateIpAddresses"
    assert result.matches[0].evidence[0].how == "fields"


def test_the_component_condition_can_come_from_the_rest_of_the_paste() -> None:
    rec = {"level": "ERROR", "logger": "controller", "controller": "nodeclaim.lifecycle",
           "message": "Reconciler error", "error": "creating instance, UnauthorizedOperation: You are not authorized "
                                                  "to perform this operation."}
    result = matcher().match(json.dumps(rec))
    assert result.matches and result.matches[0].topic == "karpenter-iam"


def test_conditions_that_do_not_all_hold_do_not_match() -> None:
    result = matcher().match("UnauthorizedOperation: You are not authorized to perform this operation.")
    assert "karpenter-iam" not in [m.topic for m in result.matches if m.confidence != "low"]


def test_rbac_fields_are_captured_for_the_fix() -> None:
    result = matcher().match('Error from server (Forbidden): secrets is forbidden: User "alice" cannot get resource '
                             '"secrets" in API group "" in the namespace "payments"')
    top = result.matches[0]
    assert top.topic == "rbac-forbidden"
    assert (top.captures["user"], top.captures["verb"], top.captures["resource"], top.captures["namespace"]) == (
        "alice", "get", "secrets", "payments")


def test_what_was_read_is_said_in_words() -> None:
    result = matcher().match('Error from server (Forbidden): secrets is forbidden: User "alice" cannot get resource '
                             '"secrets" in API group "" in the namespace "payments"')
    assert result.read == ["Kubernetes RBAC refused `alice` to `get` `secrets` in namespace `payments`"]


def test_a_condition_regex_that_backtracks_cannot_hang_a_match() -> None:
    evil = Signature(key="evil:en:0", topic="evil", language="en", text="x", when=(("k8s.user", "(a+)+$"),))
    line = 'pods is forbidden: User "' + "a" * 150 + '!" cannot list resource "pods" in API group ""'
    Matcher([evil], pattern_timeout=0.01).match(line)
