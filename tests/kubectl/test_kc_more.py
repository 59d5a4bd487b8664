"""Less common layouts and the problem-code catalogue."""

from __future__ import annotations

import re
from pathlib import Path

from troubleshoot.kubectl import PROBLEM_CODES, analyze_text
from troubleshoot.kubectl.parse_tables import parse_events
from troubleshoot.kubectl.synthetic import generate_session

PKG = Path(__file__).resolve().parents[2] / "troubleshoot" / "kubectl"


def findings(text: str, problem: str | None = None):
    return [f for f in analyze_text(text).findings if problem is None or f.problem == problem]


def test_every_code_in_the_analysers_is_catalogued():
    literal = re.compile(r'"((?:[A-Z][A-Za-z0-9]+)\.(?:[A-Z][A-Za-z]+))"')
    used: set[str] = set()
    for path in (PKG / "analyzers").glob("*.py"):
        used |= set(literal.findall(path.read_text(encoding="utf-8")))
    used |= {"CrashLoopBackOff"}
    missing = {c for c in used if c not in PROBLEM_CODES and not c.endswith(".NotReady")}
    assert not missing
    assert all(desc.endswith(".") for desc in PROBLEM_CODES.values())


def test_every_emitted_code_is_catalogued(fixture_text):
    folder = PKG.parents[1] / "tests" / "fixtures" / "kubectl"
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()))
    text += "\n" + generate_session(300_000, seed=7)
    for f in analyze_text(text).findings:
        assert f.problem in PROBLEM_CODES, f.problem


def test_events_wide_layout():
    header = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT",
              "NAME"]
    row = ["2m", "Warning", "FailedScheduling", "pod/web-1", "", "default-scheduler",
           "0/3 nodes are available: 3 Insufficient memory.", "40m", "17", "web-1.17c3a1f0b2d4e5a6"]
    widths = [max(len(h), len(r)) + 3 for h, r in zip(header, row)]
    lines = ["".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in (header, row)]
    (event,) = parse_events("\n".join(lines), "kubectl get events -o wide -n shop").events
    assert (event.kind, event.name, event.count, event.namespace) == ("Pod", "web-1", 17, "shop")
    assert event.message == "0/3 nodes are available: 3 Insufficient memory."


def test_init_container_crashloop_from_table():
    text = ("NAME    READY   STATUS                  RESTARTS      AGE\n"
            "api-1   0/1     Init:CrashLoopBackOff   6 (1m ago)    9m\n")
    (f,) = findings(text)
    assert f.problem == "CrashLoopBackOff"


def test_crashloop_from_events_only():
    text = ("LAST SEEN           TYPE      REASON    OBJECT      MESSAGE\n"
            "2m (x40 over 1h)    Warning   BackOff   pod/api-1   Back-off restarting failed container api in pod "
            "api-1_default(0b6d4f2a-91c3-4e5f-8a7b-3c2d1e0f9a8b)\n")
    (f,) = findings(text)
    assert (f.problem, f.severity) == ("CrashLoopBackOff", "warning")


def test_describe_evicted_pod():
    text = ("Name:             node-exporter-k9p2w\nNamespace:        monitoring\nPriority:         0\n"
            "Node:             ip-10-0-45-6.eu-west-1.compute.internal/10.0.45.6\n"
            "Status:           Failed\nReason:           Evicted\n"
            "Message:          The node was low on resource: ephemeral-storage. Threshold quantity: 2145752505, "
            "available: 1832140Ki.\n"
            "Containers:\n  node-exporter:\n    Image:          quay.io/prometheus/node-exporter:v1.8.0\n"
            "    State:          Terminated\n      Reason:       ContainerStatusUnknown\n"
            "      Exit Code:    137\n    Ready:          False\n    Restart Count:  0\n")
    (f,) = findings(text)
    assert f.problem == "Pod.Evicted"
    assert "ephemeral-storage" in f.detail
    assert "Reason:           Evicted" in f.evidence


def test_sandbox_ip_exhaustion():
    text = ("NAMESPACE   LAST SEEN   TYPE      REASON                   OBJECT      MESSAGE\n"
            "shop        1m          Warning   FailedCreatePodSandBox   pod/web-1   Failed to create pod sandbox: "
            "rpc error: code = Unknown desc = failed to setup network for sandbox \"4f1c\": plugin type=\"aws-cni\" "
            "name=\"aws-cni\" failed (add): add cmd: failed to assign an IP address to container\n")
    (f,) = findings(text)
    assert f.problem == "Pod.SandboxCreationFailed"
    assert "VPC CNI" in f.detail


def test_describe_nodepool_crd():
    text = """Name:         gpu
Namespace:{trailing}
Labels:       <none>
Annotations:  karpenter.sh/nodepool-hash: 5911638413390153853
API Version:  karpenter.sh/v1
Kind:         NodePool
Metadata:
  Creation Timestamp:  2024-05-14T08:02:09Z
  Generation:          1
Spec:
  Template:
    Spec:
      Node Class Ref:
        Group:  karpenter.k8s.aws
        Kind:   EC2NodeClass
        Name:   gpu
      Taints:
        Effect:  NoSchedule
        Key:     nvidia.com/gpu
        Value:   true
Status:
  Conditions:
    Last Transition Time:  2024-05-14T08:02:11Z
    Message:               EC2NodeClass not ready
    Observed Generation:   1
    Reason:                NodeClassNotReady
    Status:                False
    Type:                  NodeClassReady
    Last Transition Time:  2024-05-14T08:02:11Z
    Message:               NodeClassReady=False
    Observed Generation:   1
    Reason:                UnhealthyDependents
    Status:                False
    Type:                  Ready
Events:                    <none>
""".format(trailing="    ")
    report = analyze_text(text)
    assert report.resources == {"NodePool": 1}
    (f,) = report.findings
    assert (f.kind, f.name, f.problem) == ("NodePool", "gpu", "NodePool.NotReady")
    assert "EC2NodeClass not ready" in f.detail
    assert any("Message:               EC2NodeClass not ready" in e for e in f.evidence)


def test_get_all_with_kind_prefixed_names():
    text = """$ kubectl get all -n shop
NAME                       READY   STATUS             RESTARTS      AGE
pod/api-7d9f8b6c5d-x2x8k   0/1     CrashLoopBackOff   4 (30s ago)   5m

NAME          TYPE        CLUSTER-IP      EXTERNAL-IP   PORT(S)   AGE
service/api   ClusterIP   172.20.41.112   <none>        80/TCP    5m

NAME                  READY   UP-TO-DATE   AVAILABLE   AGE
deployment.apps/api   0/1     1            0           5m
"""
    got = {(f.kind, f.namespace, f.name, f.problem) for f in analyze_text(text).findings}
    assert got == {("Pod", "shop", "api-7d9f8b6c5d-x2x8k", "CrashLoopBackOff"),
                   ("Deployment", "shop", "api", "Deployment.Unavailable")}
