from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from troubleshoot.engine.normalize import normalize, normalize_cached


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-05-21T10:00:00.123456Z started", "<ts> started"),
        ("2024-05-21 10:00:00 started", "<ts> started"),
        ("E0521 10:00:00.123456 boom", "<ts> boom"),
        ("May 21 10:00:00 host kubelet: x", "<ts> host kubelet: x"),
        ("Warning  BackOff  3m24s (x239 over 19h)  kubelet", "warning backoff <dur> (x<num> over <dur>) kubelet"),
        ("created 39s ago", "created <dur> ago"),
        ("uid 5f2c1b7e-1111-2222-3333-444455556666", "uid <uuid>"),
        ("image@sha256:" + "ab" * 32, "image@sha256:<hex>"),
        ("commit 1072d3b", "commit <hex>"),
        ("pc=0x48f2a1 addr=0x0", "pc=<hex> addr=<hex>"),
        ("dial tcp 10.0.1.2:443: i/o timeout", "dial tcp <ip>: i/o timeout"),
        ("peer [fd00:ec2::23]:443 refused", "peer <ip> refused"),
        ("cidr 10.0.0.0/16", "cidr <ip>"),
        ("instance i-0abc12345def67890 ami-0123456789abcdef0", "instance i-<id> ami-<id>"),
        (
            "eni-0a1b2c3d4e5f60789 subnet-0123abcd sg-0a1b2c3d vol-0abc1234def567890 lt-0abc1234def567890",
            "eni-<id> subnet-<id> sg-<id> vol-<id> lt-<id>",
        ),
        ("account 123456789012", "account <account>"),
        ("arn:aws:iam::123456789012:role/KarpenterNodeRole-demo", "arn:aws:iam::<account>:role/<name>"),
        (
            "arn:aws:ec2:us-west-2:123456789012:launch-template/lt-0abc",
            "arn:aws:ec2:<region>:<account>:launch-template/<name>",
        ),
        ("pod karpenter-7d4b9c8f6-x2x9q crashed", "pod karpenter-<hash> crashed"),
        ("pod aws-node-x2x9q crashed", "pod aws-node-<hash> crashed"),
        ("node ip-10-0-1-2.ec2.internal", "node <node>"),
        ("node ip-10-0-1-2.us-west-2.compute.internal", "node <node>"),
        ("node i-0abc12345def67890.us-east-1.compute.internal", "node <node>"),
        (
            "0/3 nodes are available: 3 node(s) had untolerated taint",
            "<num>/<num> nodes are available: <num> node(s) had untolerated taint",
        ),
        ("2 Insufficient cpu, 1 Insufficient memory", "<num> insufficient cpu, <num> insufficient memory"),
        ('request id: "AbCdEf0123456789"', "request id: <id>"),
        ("v1.29.3-eks-1234abc", "<ver>"),
        ("memory 4336Mi", "memory <qty>"),
    ],
)
def test_masks(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@pytest.mark.parametrize(
    "kept",
    [
        "karpenter.sh/controller",
        "node.kubernetes.io/not-ready",
        "failedscheduling",
        "backoff",
        "/readyz",
        "exit code 137",
        "status code: 403",
        "statuscode: 500",
        "http 502",
        "403 forbidden",
        "sigkill",
        "unauthorizedoperation",
        "insufficientinstancecapacity",
        "ec2:runinstances",
        "karpenter.k8s.aws/instance-category",
        "topology.kubernetes.io/zone=us-west-2a",
        "us-west-2",
        "m5.large",
        "c6i.2xlarge",
        "apps/v1",
        "nodeclaim",
    ],
)
def test_meaningful_tokens_are_kept(kept: str) -> None:
    assert kept in normalize(f"prefix {kept} suffix")


def test_lowercase_whitespace_and_quote_variants() -> None:
    assert normalize("Pod\u2019s  node\taffinity\u00a0\u201cX\u201d") == 'pod\'s node affinity "x"'
    assert normalize("\uff10/\uff13 nodes") == "<num>/<num> nodes"  # full-width digits
    assert normalize("  ") == ""


def test_cached_is_same() -> None:
    s = "0/3 nodes are available at 2024-05-21T10:00:00Z"
    assert normalize_cached(s) == normalize(s)


TOKENS = [
    "0/3",
    "nodes",
    "are",
    "available:",
    "node(s)",
    "{karpenter.sh/controller:",
    "true}",
    "10.0.1.2:443",
    "ip-10-0-1-2.ec2.internal",
    "i-0abc12345def67890",
    "arn:aws:iam::123456789012:role/x",
    "3m24s",
    "(x239",
    "over",
    "19h)",
    "2024-05-21T10:00:00Z",
    "E0521",
    "10:00:00.123",
    "exit",
    "code",
    "137",
    "karpenter-7d4b9c8f6-x2x9q",
    "sha256:" + "a1" * 32,
    "5f2c1b7e-1111-2222-3333-444455556666",
    "<num>",
    "<ts>",
    "status",
    "403",
    "forbidden",
    "::1",
    "fd00::",
    "v1.2.3",
    "4Gi",
    "-",
    "'",
    '"',
    "\u201c",
    "\u2019",
    "\u00a0",
    "\uff11",
    "x",
    "1",
    "12",
    "123456789012",
    "0x1f",
    "a-1",
]


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=12), st.sampled_from([" ", "", "  ", "-", ":", "/", "."]))
def test_idempotent_on_log_like_text(parts: list[str], sep: str) -> None:
    s = sep.join(parts)
    once = normalize(s)
    assert normalize(once) == once


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80))
def test_idempotent_on_arbitrary_text(s: str) -> None:
    once = normalize(s)
    assert normalize(once) == once


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789abcdefxi-.:/ <>", max_size=60))
def test_idempotent_on_digit_soup(s: str) -> None:
    once = normalize(s)
    assert normalize(once) == once
