"""The public entry point: report shape, progress, de-duplication, unparsed text."""

from __future__ import annotations

import json

from troubleshoot.kubectl import Finding, Report, Section, analyze_text, split_sections
from troubleshoot.kubectl.engine import dedupe, logs_target


def test_public_api_shapes(fixture_text):
    report = analyze_text(fixture_text("session-mixed.txt"))
    assert isinstance(report, Report)
    assert all(isinstance(s, Section) for s in report.sections)
    assert all(isinstance(f, Finding) for f in report.findings)
    assert report.resources["Pod"] == 7
    assert report.resources["Node"] == 3
    data = report.to_dict()
    json.dumps(data)   # serialisable as is
    assert set(data) == {"sections", "findings", "resources", "unparsed_text"}
    assert set(data["findings"][0]) == {"kind", "namespace", "name", "problem", "detail", "evidence", "severity",
                                        "members", "inferred"}
    assert set(data["sections"][0]) == {"command", "format", "start_line", "text"}


def test_findings_are_sorted_by_severity(fixture_text):
    report = analyze_text(fixture_text("get-pods-all.txt"))
    ranks = [{"critical": 0, "warning": 1, "info": 2}[f.severity] for f in report.findings]
    assert ranks == sorted(ranks)


def test_progress_is_reported_in_order(fixture_text):
    calls: list[tuple[float, str]] = []
    analyze_text(fixture_text("session-mixed.txt"), progress=lambda f, m: calls.append((f, m)))
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions)
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert 3 <= len(calls) <= 8
    assert all(isinstance(m, str) and m for _, m in calls)


def test_broken_progress_callback_does_not_break_analysis(fixture_text):
    def boom(fraction: float, message: str) -> None:
        raise RuntimeError("celery went away")

    report = analyze_text(fixture_text("get-nodes.txt"), progress=boom)
    assert report.findings


def test_dedup_same_pod_in_table_and_describe(fixture_text):
    text = fixture_text("get-pods-all.txt") + "\n" + fixture_text("describe-pod-crashloop-oom.txt")
    report = analyze_text(text)
    ledger = [f for f in report.findings if f.name == "ledger-7c6d5b8f9-m4n8s"]
    assert [f.problem for f in ledger] == ["CrashLoopBackOff.OOMKilled"]
    (f,) = ledger
    assert any(e.startswith("payments      ledger-7c6d5b8f9-m4n8s") for e in f.evidence)   # table row
    assert "      Reason:       OOMKilled" in f.evidence                                    # describe
    assert "Container ledger" in f.detail


def test_dedup_pod_without_namespace_joins_described_pod(fixture_text):
    text = fixture_text("get-pods.txt") + "\n" + fixture_text("describe-pod-pending-taint.txt")
    report = analyze_text(text)
    worker = [f for f in report.findings if f.name == "checkout-worker-7b9c5d4f8-hv6lq"]
    assert {f.problem for f in worker} == {"FailedScheduling.UntoleratedTaint", "Karpenter.IncompatibleNodePool"}
    assert all(f.namespace == "default" for f in worker)
    assert report.resources["Pod"] == 6


def test_dedup_events_seen_twice(fixture_text):
    text = (fixture_text("describe-pod-imagepull-unauthorized.txt") + "\n"
            + fixture_text("get-events-all.txt") + "\n" + fixture_text("get-pods-wide.txt"))
    report = analyze_text(text)
    pulls = [f for f in report.findings if f.name == "payments-5f4b8c7d6-wq2rn"]
    assert len(pulls) == 1
    assert pulls[0].problem == "ImagePull.Unauthorized" and pulls[0].severity == "critical"


def test_dedupe_merges_evidence_and_keeps_worst_severity():
    a = Finding("Pod", "ns", "p", "X", "short", ["line 1"], "warning")
    b = Finding("Pod", "ns", "p", "X", "a longer detail", ["line 1", "line 2"], "critical")
    (merged,) = dedupe([a, b])
    assert merged.evidence == ["line 1", "line 2"]
    assert merged.severity == "critical"
    assert merged.detail == "a longer detail"


def test_unparsed_text_keeps_what_was_not_understood(fixture_text):
    report = analyze_text(fixture_text("session-mixed.txt"))
    assert "exec /usr/local/bin/resizer: exec format error" in report.unparsed_text   # logs
    assert "arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu" in report.unparsed_text
    assert "No resources found in kube-system namespace." in report.unparsed_text
    assert "Taints:             dedicated=batch:NoSchedule" in report.unparsed_text   # grep fragment
    assert "checkout" not in report.unparsed_text.split("\n")[0]


def test_plain_logs_go_to_unparsed_text():
    text = "2024-05-14T09:00:01Z ERROR failed to connect to redis: dial tcp 10.0.0.5:6379: i/o timeout\n"
    report = analyze_text(text)
    assert report.findings == []
    assert report.unparsed_text.strip() == text.strip()
    assert [s.format for s in report.sections] == ["text"]


def test_logs_target():
    assert logs_target("kubectl logs -n media image-resizer-7f --previous") == "image-resizer-7f"
    assert logs_target("kubectl logs pod/api-1 -c app") == "api-1"
    assert logs_target("kubectl logs -c app --tail 50 api-1") == "api-1"
    assert logs_target("kubectl logs deploy/api") == ""
    assert logs_target("kubectl get pods") == ""


def test_split_sections_is_reexported():
    assert split_sections("NAME   STATUS   ROLES   AGE   VERSION\nn1   Ready   <none>   1d   v1\n")[0].format \
        == "nodes-table"


def test_every_fixture_is_analysed_without_unparsed_structured_sections(fixture_text):
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "kubectl"
    for path in sorted(folder.iterdir()):
        report = analyze_text(path.read_text(encoding="utf-8"))
        assert report.sections, path.name
        assert sum(report.resources.values()) > 0, path.name
        for section in report.sections:
            if section.format in ("yaml", "json", "describe"):
                assert section.text not in report.unparsed_text, (path.name, section.format)
