from __future__ import annotations

import json

import pytest

from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.rank import HIGH, MEDIUM
from troubleshoot.engine.types import Signature

from . import kb
from .kb import AFFINITY, CPU, CRASH, EC2_AUTH, IMAGE, NODEPOOL, OOM, TAINT, TF_SUBNETS

EVENT_TAINT = (
    "  Warning  FailedScheduling  3m24s (x239 over 19h)  default-scheduler  0/4 nodes are available: "
    "4 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/4 nodes are available: "
    "4 Preemption is not helpful for scheduling."
)
EVENT_CPU = (
    "  Warning  FailedScheduling  12s  default-scheduler  0/3 nodes are available: 3 Insufficient cpu. "
    "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
)
EVENT_AFFINITY = (
    "  Warning  FailedScheduling  12s  default-scheduler  0/2 nodes are available: 2 node(s) didn't match "
    "Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
)


def topics(result) -> list[str]:
    return [m.topic for m in result.matches]


@pytest.mark.parametrize(("text", "topic"), [(EVENT_TAINT, TAINT), (EVENT_CPU, CPU), (EVENT_AFFINITY, AFFINITY)])
def test_each_failed_scheduling_reason_picks_its_own_article(matcher: Matcher, text: str, topic: str) -> None:
    result = matcher.match(text)
    assert result.best is not None and result.best.topic == topic
    assert result.best.confidence == "high"
    others = [m for m in result.matches if m.topic != topic]
    assert all(m.confidence == "low" for m in others)


def test_one_event_with_several_reasons_lists_all_related_articles(matcher: Matcher) -> None:
    text = (
        "Warning  FailedScheduling  default-scheduler  0/10 nodes are available: 1 node(s) had untolerated taint "
        "{karpenter.sh/controller: true}, 7 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/10 nodes are available: 10 Preemption is not helpful for scheduling."
    )
    result = matcher.match(text)
    assert set(topics(result)[:3]) == {TAINT, CPU, AFFINITY}
    assert all(m.confidence in ("high", "medium") for m in result.matches[:3])
    by = {m.topic: m for m in result.matches}
    assert by[TAINT].captures == {"count": "1", "key": "karpenter.sh/controller", "value": "true"}
    assert by[CPU].captures == {"count": "7", "resource": "cpu"}
    # the reason that accounts for more nodes ranks higher among comparable symptoms
    assert topics(result).index(CPU) < topics(result).index(AFFINITY)


def test_evidence_points_at_the_line_and_the_matched_part(matcher: Matcher) -> None:
    text = "Name: web-7d4b9c8f6-x2x9q\nStatus: Pending\nEvents:\n" + EVENT_AFFINITY + "\n"
    best = matcher.match(text).best
    assert best is not None and best.topic == AFFINITY
    ev = best.evidence[0]
    assert ev.line == 4 and ev.how == "phrase" and ev.symptom == "node-affinity-mismatch:en:0"
    assert ev.text[ev.span[0] : ev.span[1]] == "node(s) didn't match Pod's node affinity/selector"
    assert best.cause == 0 and best.symptoms == ["node-affinity-mismatch:en:0"]


def test_describe_events_wrapped_at_80_columns_still_match(matcher: Matcher) -> None:
    msg = EVENT_TAINT.strip()
    wrapped = "Events:\n" + "\n".join(msg[i : i + 80] for i in range(0, len(msg), 80))
    best = matcher.match(wrapped).best
    assert best is not None and best.topic == TAINT and best.confidence == "high"
    chat = (
        "Events:\n  Warning  FailedScheduling  10s  default-scheduler  0/100 nodes are available:\n"
        "    3 node(s) had untolerated\n    taint {node.kubernetes.io/not-ready: },\n    97 Insufficient cpu."
    )
    result = matcher.match(chat)
    assert {TAINT, CPU} <= set(topics(result)[:2])


def test_old_kubernetes_wording_matches_through_fuzzy_but_never_high(matcher: Matcher) -> None:
    text = (
        "0/6 nodes are available: 6 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate."
    )
    result = matcher.match(text)
    assert result.best is not None and result.best.topic == TAINT
    assert result.best.confidence == "medium"
    assert result.best.evidence[0].how == "fuzzy"


def test_karpenter_json_log_with_nested_error(matcher: Matcher) -> None:
    record = {
        "level": "ERROR",
        "time": "2024-05-21T10:00:00.000Z",
        "logger": "controller",
        "message": "Reconciler error",
        "commit": "1072d3b",
        "controller": "nodeclaim.lifecycle",
        "NodeClaim": {"name": "default-x2x9q"},
        "error": "launching nodeclaim, creating instance, with fleet error(s), UnauthorizedOperation: You are not "
        "authorized to perform this operation. User: arn:aws:sts::111122223333:assumed-role/"
        "KarpenterControllerRole-prod/1716285600 is not authorized to perform: ec2:RunInstances on "
        "resource: arn:aws:ec2:eu-west-1:111122223333:launch-template/lt-0123456789abcdef0 because no "
        "identity-based policy allows the ec2:RunInstances action.",
    }
    text = '{"level":"INFO","message":"discovered subnets"}\n' + json.dumps(record)
    best = matcher.match(text).best
    assert best is not None and best.topic == EC2_AUTH and best.confidence == "high"
    assert best.captures == {"action": "ec2:RunInstances"}
    assert {e.line for e in best.evidence} == {2}


def test_terraform_box_error(matcher: Matcher) -> None:
    text = "\n".join(
        [
            "\u2577",
            "\u2502 Error: creating EKS Node Group (prod:general): operation error EKS: CreateNodegroup, https",
            "\u2502 response error StatusCode: 400, RequestID: 0e1f2a3b-4c5d-6e7f-8a9b-0c1d2e3f4a5b,",
            "\u2502 InvalidParameterException: Subnets specified must be in at least two different AZs",
            "\u2502 ",
            '\u2502   with module.eks.aws_eks_node_group.this["general"],',
            "\u2575",
        ]
    )
    best = matcher.match(text).best
    assert best is not None and best.topic == TF_SUBNETS and best.confidence == "high"
    assert best.evidence[0].line == 2


def test_karpenter_event_and_image_pull_captures(matcher: Matcher) -> None:
    text = (
        'Warning  FailedScheduling  46s  karpenter  Failed to schedule pod, incompatible with nodepool "gpu", '
        'daemonset overhead={"cpu":"200m","pods":"3"}, incompatible requirements, key karpenter.sh/capacity-type, '
        "karpenter.sh/capacity-type In [on-demand] not in karpenter.sh/capacity-type In [spot]\n"
        'Warning  Failed  3s  kubelet  Failed to pull image "registry.example.com/app:v2": rpc error: code = '
        'NotFound desc = failed to pull and unpack image "registry.example.com/app:v2": failed to resolve '
        'reference "registry.example.com/app:v2": registry.example.com/app:v2: not found'
    )
    result = matcher.match(text)
    by = {m.topic: m for m in result.matches}
    assert by[NODEPOOL].confidence == "high" and by[NODEPOOL].captures == {"nodepool": "gpu"}
    assert by[NODEPOOL].cause == 1
    assert by[IMAGE].captures == {"image": "registry.example.com/app:v2"}


def test_generic_backoff_alone_is_low_but_oomkilled_describe_is_confident(matcher: Matcher) -> None:
    alone = matcher.match(
        "Warning  BackOff  2m (x50 over 12m)  kubelet  Back-off restarting failed container "
        "app in pod web-7d4b9c8f6-x2x9q_default(0e1f2a3b-4c5d-6e7f-8a9b-0c1d2e3f4a5b)"
    )
    assert alone.best is None
    assert topics(alone) == [CRASH] and alone.matches[0].confidence == "low"
    describe = "\n".join(
        [
            "    State:          Waiting",
            "      Reason:       CrashLoopBackOff",
            "    Last State:     Terminated",
            "      Reason:       OOMKilled",
            "      Exit Code:    137",
            "  Warning  BackOff  2m (x50 over 12m)  kubelet  Back-off restarting failed container app in pod web",
        ]
    )
    result = matcher.match(describe)
    assert result.best is not None and result.best.topic == OOM


UNRELATED = {
    "python": 'Traceback (most recent call last):\n  File "/app/server.py", line 42, in handle\n    '
    "user = users[request.args[\"id\"]]\nKeyError: 'id'",
    "java": 'Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()"\n'
    "\tat com.example.App.run(App.java:27)\n\tat com.example.App.main(App.java:12)",
    "nginx": "2024/05/21 10:00:00 [emerg] 1#1: bind() to 0.0.0.0:80 failed (98: Address already in use)\n"
    "nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)",
    "postgres": '2024-05-21 10:00:00.123 UTC [42] FATAL:  password authentication failed for user "app"\n'
    "2024-05-21 10:00:00.123 UTC [42] DETAIL:  Connection matched pg_hba.conf line 99",
    "npm": "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.2.0",
    "go": "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\n"
    "main.main()\n\t/tmp/sandbox/prog.go:8 +0x1d\nexit status 2",
    "go_nil": "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: "
    "segmentation violation code=0x1 addr=0x0 pc=0x48f2a1]\n\ngoroutine 1 [running]:\nmain.main()\n"
    "\t/tmp/sandbox/prog.go:9 +0x1d\nexit status 2",
    "helm": "Error: INSTALLATION FAILED: cannot re-use a name that is still in use\n"
    "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress",
    "prose": "Hello team, the deploy went fine yesterday, can someone check the dashboard? Thanks!",
}


@pytest.mark.parametrize("name", sorted(UNRELATED))
def test_unrelated_errors_give_no_confident_match(matcher: Matcher, name: str) -> None:
    result = matcher.match(UNRELATED[name])
    assert result.best is None, (name, result.matches)
    assert all(m.score < MEDIUM for m in result.matches)


def test_go_panic_needs_the_distinctive_frame(matcher: Matcher) -> None:
    cni = UNRELATED["go_nil"].replace(
        "main.main()", "github.com/aws/amazon-vpc-cni-k8s/pkg/ipamd.(*IPAMContext).nodeInit(0xc000123456)"
    )
    best = matcher.match(cni).best
    assert best is not None and best.topic == kb.CNI_PANIC


def test_language_preference_and_fallback(matcher: Matcher) -> None:
    zh = matcher.match(EVENT_TAINT, language="zh-hans")
    assert zh.best is not None and (zh.best.topic, zh.best.language) == (TAINT, "zh-hans")
    assert len([m for m in zh.matches if m.topic == TAINT]) == 1  # one entry per topic
    cpu = matcher.match(EVENT_CPU, language="zh-hans")
    assert cpu.best is not None and (cpu.best.topic, cpu.best.language) == (CPU, "en")
    assert matcher.match(EVENT_TAINT).best.language == "en"  # type: ignore[union-attr]


def test_recall_is_used_only_without_signature_hits_and_is_always_low(matcher: Matcher) -> None:
    calls: list[tuple[str, int]] = []

    def recall(query: str, n: int) -> list[tuple[str, float]]:
        calls.append((query, n))
        return [("coredns-timeouts", 12.5), ("vpc-cni-ip-exhaustion", 5.0)]

    result = matcher.match("E0521 10:00:00.1 1 dns.go:1] lookup kubernetes.default.svc: i/o timeout", recall=recall)
    assert calls and calls[0][0].startswith("lookup kubernetes.default.svc: i/o timeout") and calls[0][1] == 5
    assert [m.topic for m in result.matches] == ["coredns-timeouts", "vpc-cni-ip-exhaustion"]
    assert all(m.confidence == "low" and m.score <= 0.3 for m in result.matches)
    assert result.best is None
    calls.clear()
    assert matcher.match(EVENT_CPU, recall=recall).best is not None
    assert calls == []

    def broken(query: str, n: int) -> list[tuple[str, float]]:
        raise RuntimeError("index missing")

    result = matcher.match("nothing known here", recall=broken)
    assert result.matches == [] and "recall_error" in result.stats


def test_specific_signature_beats_generic_one() -> None:
    sigs = [
        Signature("generic:en:0", "pending-pods", "en", "0/3 nodes are available: 3 node(s) had", weight=1.0),
        Signature("generic:en:1", "pending-pods", "en", "pod is unschedulable", weight=1.0),
        kb.SIGNATURES[0],
        kb.SIGNATURES[2],
        kb.SIGNATURES[3],
    ]
    m = Matcher(sigs)
    result = m.match(EVENT_TAINT)
    assert topics(result)[0] == TAINT
    generic = [x for x in result.matches if x.topic == "pending-pods"]
    assert generic and generic[0].confidence != "high" and generic[0].score < result.matches[0].score - 0.2


def test_empty_one_line_and_huge_inputs(matcher: Matcher) -> None:
    empty = matcher.match(b"")
    assert empty.matches == [] and empty.best is None and empty.stats["lines"] == 0
    one = matcher.match("OOMKilled")
    assert one.best is not None and one.best.topic == OOM
    filler = "".join(
        f"2024-05-21T10:{i // 60 % 60:02d}:{i % 60:02d}Z INFO controller reconciled nodeclaim default-x2x9q "
        f"in {i % 97}ms (node ip-10-0-{i % 250}-{i % 200}.ec2.internal)\n"
        for i in range(45_000)
    )
    big = filler + EVENT_CPU
    assert len(big) > 5_000_000
    result = matcher.match(big.encode())
    assert result.best is not None and result.best.topic == CPU
    assert result.best.evidence[0].line == 45_001
    assert result.stats["lines"] == 45_001 and result.stats["templates"] < 50


def test_stats_and_thresholds_are_consistent(matcher: Matcher) -> None:
    result = matcher.match(EVENT_CPU)
    assert set(result.stats) >= {"lines", "templates", "ms"}
    for m in result.matches:
        assert 0.0 <= m.score <= 1.0
        assert m.confidence == ("high" if m.score >= HIGH else "medium" if m.score >= MEDIUM else "low")
