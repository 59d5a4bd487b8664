"""A phrase hit is checked against its symptom's own pattern: a line with the symptom's words but not its
message (another condition in the same sentence) is weaker evidence, and a pattern that reads what the reader
drops (a JSON field) is tried on the line as pasted."""

from __future__ import annotations

from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.types import Signature

DISK = "Pod was rejected: The node had condition: [DiskPressure]."
PID_LINE = "  Warning  Evicted  2m  kubelet  Pod was rejected: The node had condition: [PIDPressure].\n"


def _disk(pattern: str | None) -> Matcher:
    return Matcher([Signature("disk:en:0", "disk-pressure", "en", DISK, pattern=pattern, weight=1.0)])


def test_a_line_the_pattern_rejects_is_weaker_than_the_same_words_without_a_pattern() -> None:
    loose = _disk(None).match(PID_LINE).matches
    strict = _disk(r"The node had condition: \[(?P<condition>DiskPressure)\]").match(PID_LINE).matches
    assert loose and strict and loose[0].evidence[0].how == "phrase"
    assert strict[0].score < loose[0].score
    # the message the pattern defines is still a pattern hit, and stronger than the phrase alone
    exact = _disk(r"The node had condition: \[(?P<condition>DiskPressure)\]").match(PID_LINE.replace("PID", "Disk"))
    assert exact.matches[0].evidence[0].how == "pattern" and exact.matches[0].score > loose[0].score


def test_a_pattern_on_a_json_field_is_tried_on_the_record_as_pasted() -> None:
    text = 'if kind is a CRD, it should be installed before calling Start {"kind": "EC2NodeClass.karpenter.k8s.aws"}'
    sig = Signature("crd:en:0", "crd-not-installed", "en", text, weight=1.0,
                    pattern=r'before calling Start[^\n]*?\\?"kind\\?":\s*\\?"(?P<kind>\w+)\.karpenter')
    paste = ('{"level":"ERROR","logger":"controller","message":"if kind is a CRD, it should be installed before '
             'calling Start","kind":"NodePool.karpenter.sh","error":"no matches for kind \\"NodePool\\""}\n')
    result = Matcher([sig]).match(paste)
    top = result.matches[0]
    assert top.evidence[0].how == "pattern" and top.captures["kind"] == "NodePool"


def test_a_near_miss_its_own_pattern_rejects_never_makes_a_confident_answer() -> None:
    known = ('unable to recognize "manifest.yaml": no matches for kind "Provisioner" in version "karpenter.sh/v1alpha5" '
             'while building the scheduler plugins')
    other = Signature("o:en:0", "other", "en", "Error from server (NotFound): the server could not find the resource")
    paste = ('error: unable to recognize "pdb.yaml": no matches for kind "PodDisruptionBudget" in version '
             '"policy/v1beta1" while building the scheduler plugins now')
    loose = Matcher([Signature("k:en:0", "karpenter-v1", "en", known, weight=2.0), other]).match(paste)
    assert loose.best is not None  # the same words, no pattern to say otherwise
    strict = Matcher([Signature("k:en:0", "karpenter-v1", "en", known, weight=2.0, pattern=(
        r'no matches for kind "(?P<kind>Provisioner)" in version "(?P<version>karpenter\.sh/v1alpha\d)"')), other])
    result = strict.match(paste)
    assert result.matches and result.matches[0].topic == "karpenter-v1"  # still the closest article
    assert result.best is None and result.matches[0].confidence == "low"


def test_a_masked_value_is_no_reason_to_doubt_the_words() -> None:
    sig = Signature("dns:en:0", "dns", "en", "[ERROR] plugin/errors: 2 example.com. A: read udp 10.0.0.5:41234->10.0.0.2:53: "
                    "i/o timeout", pattern=r"read udp \S+->(?P<upstream>[\d.]+):53: i/o timeout", weight=1.0)
    masked = "[ERROR] plugin/errors: 2 example.org. A: read udp X.X.X.X:45662->Y.Y.Y.Y:53: i/o timeout\n"
    other = "[ERROR] plugin/errors: 2 example.org. A: read udp 10.1.2.3:45662->10.1.2.4:5353: i/o timeout\n"
    m = Matcher([sig])
    assert m.match(masked).matches[0].score > m.match(other).matches[0].score


def test_a_line_whose_fields_break_the_symptoms_conditions_is_weaker() -> None:
    text = 'no matches for kind "TargetGroupBinding" in version "elbv2.k8s.aws/v1beta1"'
    paste = 'error: unable to recognize "cron.yaml": no matches for kind "CronJob" in version "batch/v1beta1"\n'
    loose = Matcher([Signature("alb:en:0", "alb", "en", text, weight=2.0)]).match(paste).matches
    strict = Matcher([Signature("alb:en:0", "alb", "en", text, weight=2.0,
                                when=(("crd.version", r"elbv2\.k8s\.aws/v\w+"),))]).match(paste).matches
    assert loose and strict and strict[0].score < loose[0].score
    own = paste.replace("CronJob", "TargetGroupBinding").replace("batch/v1beta1", "elbv2.k8s.aws/v1beta1")
    held = Matcher([Signature("alb:en:0", "alb", "en", text, weight=2.0,
                              when=(("crd.version", r"elbv2\.k8s\.aws/v\w+"),))]).match(own).matches
    assert held[0].score >= loose[0].score  # conditions that hold: not doubted


def test_a_rejected_phrase_on_an_info_line_makes_no_confident_answer() -> None:
    # the words of a failure inside a routine start-up message the symptom's pattern rules out
    sig = Signature("pleg:en:0", "pleg", "en", "PLEG is not healthy: pleg has yet to be successful", weight=1.5,
                    pattern=r"^(?!.{0,160}skipping pod synchronization).{0,400}?PLEG is not healthy: pleg has yet")
    other = Signature("o:en:0", "other", "en", "Error getting node: node not found")
    body = ("kubelet.go:2010] skipping pod synchronization - [container runtime status check may not have completed "
            "yet, PLEG is not healthy: pleg has yet to be successful]\n")
    m = Matcher([sig, other])
    info = m.match("I0612 08:00:01.000001    1801 " + body)
    error = m.match("E0612 08:00:01.000001    1801 " + body)
    assert info.best is None and info.matches[0].topic == "pleg"  # still the closest article
    assert error.best is not None and error.matches[0].score > info.matches[0].score
