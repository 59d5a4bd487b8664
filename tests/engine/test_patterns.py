from __future__ import annotations

import time

from troubleshoot.engine.patterns import STRIKES, PatternSet, alternative_literals, required_literal, validate_pattern
from troubleshoot.engine.types import Signature

TAINT_PATTERN = r"(?P<count>\d+) node\(s\) had untolerated taint \{(?P<key>[^:}]+):\s?(?P<value>[^}]*)\}"


def test_required_literal() -> None:
    assert required_literal(TAINT_PATTERN) == "node(s) had untolerated taint {"
    assert required_literal(r'incompatible with nodepool "(?P<np>[^"]+)"') == 'incompatible with nodepool "'
    assert required_literal(r"foo|bar") is None  # top-level alternation: no single literal
    assert required_literal(r"(?x) spaced out") is None
    assert required_literal(r"Exit Codes?: (?P<code>\d+)") == "exit code"


def test_validate_pattern_reports_problems() -> None:
    assert validate_pattern(TAINT_PATTERN) is None
    assert "invalid regular expression" in (validate_pattern(r"(?P<x>unclosed") or "")
    assert "no named groups" in (validate_pattern(r"just text") or "")
    assert validate_pattern(r"just text", require_groups=False) is None
    assert "empty string" in (validate_pattern(r"(?P<x>a*)") or "")
    t0 = time.perf_counter()
    slow = validate_pattern(r"(?P<x>(a|aa)+)$")
    assert slow is not None and "too slow" in slow
    assert time.perf_counter() - t0 < 5.0  # a bound against a hang, not a benchmark


def test_pattern_captures_named_groups_case_insensitively() -> None:
    ps = PatternSet([Signature("k", "t", "en", "x", pattern=TAINT_PATTERN)])
    found = ps.run(0, "0/3 nodes are available: 3 NODE(S) had untolerated taint {karpenter.sh/controller: true}.")
    assert found is not None
    span, caps = found
    assert caps == {"count": "3", "key": "karpenter.sh/controller", "value": "true"}
    assert span[0] == len("0/3 nodes are available: ")


def test_catastrophic_pattern_returns_quickly_and_is_disabled_after_repeated_timeouts() -> None:
    ps = PatternSet([Signature("k", "t", "en", "x", pattern=r"(?P<x>(a|aa)+)$")], timeout=0.05)
    for strike in range(STRIKES):
        t0 = time.perf_counter()
        assert ps.run(0, "a" * 60 + "b") is None
        assert time.perf_counter() - t0 < 2.0  # a bound against a hang (unlimited, this never ends), not a benchmark
        assert (0 in ps.disabled) == (strike == STRIKES - 1)
    assert ps.run(0, "a" * 60 + "b") is None  # skipped from now on
    assert 0 in ps.disabled


def test_invalid_pattern_is_skipped_not_fatal() -> None:
    ps = PatternSet(
        [Signature("k", "t", "en", "x", pattern="(unclosed"), Signature("k2", "t", "en", "y", pattern="ok (?P<v>\\d+)")]
    )
    assert 0 in ps.errors and 0 not in ps.compiled
    assert ps.run(1, "OK 42") == ((0, 5), {"v": "42"})


def test_prefilter_finds_only_lines_with_the_literal() -> None:
    sigs = [
        Signature("a", "t", "en", "x", pattern=TAINT_PATTERN),
        Signature("b", "u", "en", "y", pattern=r'incompatible with nodepool "(?P<np>[^"]+)"'),
    ]
    ps = PatternSet(sigs)
    texts = [
        "nothing here",
        'Failed to schedule pod, INCOMPATIBLE with nodepool "default"',
        "1 node(s) had untolerated taint {a: b}",
    ]
    assert ps.prefilter_many(texts) == {1: {1}, 2: {0}}
    assert ps.prefilter(texts[2]) == {0}


def test_may_match_needs_the_required_literal_and_says_yes_without_one() -> None:
    ps = PatternSet([Signature("k", "t", "en", "x", pattern=TAINT_PATTERN),
                     Signature("k2", "t", "en", "y", pattern=r"(?P<n>\d+)")])
    assert ps.may_match(0, "0/3 nodes are available: 3 node(s) had untolerated taint {a: b}.".lower())
    assert not ps.may_match(0, "0/3 nodes are available: 3 insufficient cpu.")
    assert ps.may_match(1, "anything")  # no literal every match must contain: always searched


def test_the_required_literal_is_read_inside_mandatory_groups() -> None:
    # a message kept whole in a named group is still prefiltered by its words
    assert required_literal("(?P<error>Subnets specified must be in at least two different AZs)") == (
        "subnets specified must be in at least two different azs")
    assert required_literal("(?:(?P<code>NodeCreationFailure)\\W{1,6})?Instances failed to join") == (
        "instances failed to join")
    # optional groups, alternations and lookarounds are never required
    assert required_literal("(?:abcdef)? xy") is None
    assert required_literal("foo (?:barbaz|quxquux) zz") is None
    assert required_literal("soft error(?![^\\n]{0,30}AccessDenied)") == "soft error"


def test_alternatives_give_one_literal_per_branch() -> None:
    # a pattern that is only a list of codes has no single literal, but every match holds one of its branches
    codes = r"(?P<code>IamNodeRoleNotFound|Ec2SubnetNotFound|AmiIdNotFound)\b"
    assert required_literal(codes) is None
    assert alternative_literals(codes) == ("iamnoderolenotfound", "ec2subnetnotfound", "amiidnotfound")
    assert alternative_literals(r'failed calling webhook "(?P<w>[^"]+)"|conversion webhook for \S+') == (
        'failed calling webhook "', "conversion webhook for")
    assert alternative_literals(r"(?:ab|cdefgh) tail") is None  # a branch too short to be a literal
    assert alternative_literals(r"(?:Abcdef|[xy]+) tail") is None  # a branch without any literal
    assert alternative_literals(r"(?=lookahead|other)(?P<n>\d+)") is None  # lookarounds do not count


def test_alternative_literals_prefilter_and_gate_a_pattern() -> None:
    ps = PatternSet([Signature("k", "t", "en", "x", pattern=r"(?P<code>IamNodeRoleNotFound|Ec2SubnetNotFound)\b")])
    lines = ["nodegroup health: Ec2SubnetNotFound subnet-0abc", "all good"]
    assert ps.prefilter_many(lines) == {0: {0}}
    assert ps.may_match(0, lines[0].lower()) and not ps.may_match(0, lines[1].lower())
