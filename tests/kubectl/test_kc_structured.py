"""``-o yaml`` / ``-o json`` parsing."""

from __future__ import annotations

import json

from troubleshoot.kubectl.resources import Event, Resource
from troubleshoot.kubectl.structured import iter_objects, load_json, load_yaml, parse_structured


def _parse_yaml(text: str) -> tuple[list[Resource], list[Event]]:
    return parse_structured(load_yaml(text))


def test_pod_yaml(fixture_text):
    (pod,), events = _parse_yaml(fixture_text("pod.yaml"))
    assert not events
    assert (pod.kind, pod.namespace, pod.name) == ("Pod", "warehouse", "inventory-sync-66b9d7c8f4-jx5tq")
    assert pod.phase == "Running"
    c = pod.containers["sync"]
    assert (c.reason, c.last_reason, c.last_exit_code, c.restart_count) == ("CrashLoopBackOff", "Error", 1, 9)
    assert c.last_message.startswith("panic: failed to connect to postgres")
    assert pod.node_selector == {"kubernetes.io/arch": "amd64"}
    assert len(pod.tolerations or []) == 2
    assert pod.ready == "0/1"
    assert "reason: CrashLoopBackOff" in c.evidence   # before the engine swaps in source lines


def test_pod_list_json(fixture_text):
    resources, _ = parse_structured(load_json(fixture_text("pods-list.json")))
    names = [r.name for r in resources]
    assert names == ["image-resizer-7f9c8b6d5-p4k7m", "thumbnailer-5b8d9c7f6-r2w9x", "uploader-6c9d8e7f5-h3j8k",
                     "transcoder-85f6d9c7b-v5n2q"]
    evicted = resources[-1]
    assert (evicted.phase, evicted.reason) == ("Failed", "Evicted")
    assert evicted.message.startswith("The node was low on resource: memory.")


def test_nodeclaim_v1(fixture_text):
    (claim,), _ = _parse_yaml(fixture_text("nodeclaim.yaml"))
    assert (claim.kind, claim.namespace) == ("NodeClaim", "")
    launched = claim.conditions["Launched"]
    assert launched.status == "False"
    assert "InsufficientInstanceCapacity" in launched.message
    assert claim.fields["nodepool"] == "gpu"
    assert [str(t) for t in claim.taints or []] == ["nvidia.com/gpu=true:NoSchedule"]


def test_nodeclaim_v1beta1(fixture_text):
    (claim,), _ = _parse_yaml(fixture_text("nodeclaim-v1beta1.yaml"))
    assert claim.conditions["Initialized"].reason == "StartupTaintsExist"
    assert claim.node_name == "ip-10-0-77-14.eu-west-1.compute.internal"


def test_multi_document_nodepool_and_nodeclass(fixture_text):
    resources, _ = _parse_yaml(fixture_text("nodepool.yaml"))
    by_kind = {r.kind: r for r in resources}
    assert set(by_kind) == {"NodePool", "EC2NodeClass"}
    assert by_kind["NodePool"].conditions["NodeClassReady"].status == "False"
    assert by_kind["NodePool"].fields["nodeclass"] == "gpu"
    assert by_kind["EC2NodeClass"].conditions["SubnetsReady"].message == "SubnetSelector did not match any Subnets"


def test_list_items_without_kind_take_the_list_kind():
    doc = {"kind": "PodList", "items": [{"metadata": {"name": "a", "namespace": "x"}}]}
    (obj,) = list(iter_objects(doc))
    assert obj["kind"] == "Pod"


def test_events_core_and_events_k8s_io():
    text = json.dumps({"kind": "List", "items": [
        {"kind": "Event", "type": "Warning", "reason": "FailedScheduling", "message": "0/1 nodes are available",
         "involvedObject": {"kind": "Pod", "name": "a", "namespace": "x"}, "count": 4},
        {"kind": "Event", "apiVersion": "events.k8s.io/v1", "type": "Warning", "reason": "Failed",
         "note": "Error: ImagePullBackOff", "regarding": {"kind": "Pod", "name": "b", "namespace": "y"},
         "reportingController": "kubelet"},
    ]})
    resources, events = parse_structured(load_json(text))
    assert not resources
    assert [(e.kind, e.namespace, e.name, e.count) for e in events] == [("Pod", "x", "a", 4), ("Pod", "y", "b", 1)]
    assert events[1].message == "Error: ImagePullBackOff" and events[1].source == "kubelet"


def test_node_yaml_taints_and_conditions():
    text = """
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-5.eu-west-1.compute.internal
spec:
  taints:
  - effect: NoSchedule
    key: dedicated
    value: gpu
  unschedulable: true
status:
  conditions:
  - type: Ready
    status: "False"
    reason: KubeletNotReady
    message: 'PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s'
"""
    (node,), _ = _parse_yaml(text)
    assert node.namespace == ""
    assert node.ready == "NotReady"
    assert node.fields["unschedulable"] is True
    assert node.conditions["Ready"].message.startswith("PLEG is not healthy")


def test_broken_yaml_document_is_skipped():
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\nkey: [unclosed\n---\n"
            "kind: Node\nmetadata:\n  name: n\n")
    resources, _ = _parse_yaml(text)
    assert sorted(r.name for r in resources) == ["a", "n"]


def test_scalars_and_garbage_are_ignored():
    assert parse_structured(load_yaml("just a string")) == ([], [])
    assert load_json("{not json") == []
