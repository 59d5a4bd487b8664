"""``kubectl describe`` parsing: the indentation tree and the kind mappers."""

from __future__ import annotations

from troubleshoot.kubectl.describe import parse_object, read_events_table, read_table, split_objects
from troubleshoot.kubectl.describe_map import detect_kind, parse_describe
from troubleshoot.kubectl.taints import Taint, Toleration


def _one(text: str, command: str | None = None):
    result = parse_describe(text, command)
    assert len(result.resources) == 1, result.unparsed
    return result.resources[0]


def test_tree_nests_by_indentation(fixture_text):
    (lines,) = split_objects(fixture_text("describe-pod-crashloop-oom.txt"))
    obj = parse_object(lines)
    containers = obj.child("Containers")
    ledger = containers.child("ledger")
    assert ledger.child("State").value == "Waiting"
    assert ledger.child("State").get("Reason") == "CrashLoopBackOff"
    assert ledger.child("Last State").get("Exit Code") == "137"
    assert obj.child("Labels").multiline_values() == ["app=ledger", "pod-template-hash=7c6d5b8f9"]


def test_split_objects_on_name_lines():
    text = "Name:  a\nNamespace:  x\n\nName:  b\nNamespace:  y\n"
    assert [o[0] for o in split_objects(text)] == ["Name:  a", "Name:  b"]


def test_conditions_table_of_pod(fixture_text):
    obj = parse_object(split_objects(fixture_text("describe-pod-crashloop-oom.txt"))[0])
    rows = read_table(obj.child("Conditions"))
    assert [(r.cells["Type"], r.cells["Status"]) for r in rows][:3] == [
        ("PodReadyToStartContainers", "True"), ("Initialized", "True"), ("Ready", "False")]


def test_events_table_ages_and_counts(fixture_text):
    obj = parse_object(split_objects(fixture_text("describe-pod-crashloop-oom.txt"))[0])
    rows = read_events_table(obj.child("Events"))
    assert len(rows) == 5
    assert rows[-1].cells["Age"] == "2m1s (x71 over 21m)"
    assert rows[-1].cells["Reason"] == "BackOff"
    assert rows[-1].cells["Message"].startswith("Back-off restarting failed container ledger")


def test_events_with_unknown_age_and_wrapped_message():
    text = (
        "Name:         web-1\n"
        "Namespace:    default\n"
        "Node:         <none>\n"
        "Status:       Pending\n"
        "Containers:\n"
        "  web:\n"
        "    Image:  nginx\n"
        "Events:\n"
        "  Type     Reason            Age          From               Message\n"
        "  ----     ------            ----         ----               -------\n"
        "  Warning  FailedScheduling  <unknown>    default-scheduler  0/2 nodes are available: 2 Insufficient\n"
        " memory. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.\n"
        "  Normal   NotTriggerScaleUp  3m (x5 over 8m)  cluster-autoscaler  pod didn't trigger scale-up:\n"
    )
    pod = _one(text)
    sched = pod.events[0]
    assert sched.age == "<unknown>"
    assert "2 Insufficient memory." in sched.message
    assert len(sched.evidence) == 2
    assert pod.events[1].count == 5


def test_pod_mapping(fixture_text):
    pod = _one(fixture_text("describe-pod-crashloop-oom.txt"))
    assert (pod.kind, pod.namespace, pod.name) == ("Pod", "payments", "ledger-7c6d5b8f9-m4n8s")
    assert pod.phase == "Running"
    assert pod.node_name == "ip-10-0-12-34.eu-west-1.compute.internal"
    c = pod.containers["ledger"]
    assert (c.state, c.reason, c.last_state, c.last_reason, c.last_exit_code) == (
        "Waiting", "CrashLoopBackOff", "Terminated", "OOMKilled", 137)
    assert c.ready is False and c.restart_count == 5
    assert "      Reason:       OOMKilled" in c.evidence
    assert pod.ready == "0/1"
    assert pod.conditions["Ready"].status == "False"


def test_pod_tolerations_and_selectors(fixture_text):
    pod = _one(fixture_text("describe-pod-pending-taint.txt"))
    assert pod.tolerations == [
        Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300),
        Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300),
    ]
    assert pod.node_selector == {"karpenter.sh/capacity-type": "spot"}
    assert pod.node_name == ""
    assert len(pod.events) == 2 and all(e.reason == "FailedScheduling" for e in pod.events)
    assert pod.events[1].source == "karpenter"


def test_node_mapping(fixture_text):
    node = _one(fixture_text("describe-node-notready.txt"))
    assert node.kind == "Node"
    assert node.taints == [Taint("node.kubernetes.io/not-ready", "", "NoExecute"),
                           Taint("node.kubernetes.io/not-ready", "", "NoSchedule"),
                           Taint("dedicated", "batch", "NoSchedule")]
    ready = node.conditions["Ready"]
    assert ready.status == "False"
    assert ready.reason == "KubeletNotReady"
    assert ready.message.endswith("cni plugin not initialized")
    assert node.conditions["DiskPressure"].status == "True"
    assert node.conditions["MemoryPressure"].reason == "KubeletHasSufficientMemory"
    assert {e.reason for e in node.events} == {"EvictionThresholdMet", "NodeHasDiskPressure", "NodeNotReady"}


def test_node_unknown_conditions(fixture_text):
    node = _one(fixture_text("describe-node-unknown.txt"))
    assert node.conditions["Ready"].status == "Unknown"
    assert node.conditions["Ready"].message == "Kubelet stopped posting node status."
    assert node.ready == "Unknown"


def test_nodeclaim_generic_crd_describe(fixture_text):
    claim = _one(fixture_text("describe-nodeclaim.txt"))
    assert (claim.kind, claim.namespace, claim.name) == ("NodeClaim", "", "default-x8z4k")
    assert claim.conditions["Launched"].status == "True"
    reg = claim.conditions["Registered"]
    assert (reg.status, reg.reason, reg.message) == ("Unknown", "NodeNotFound", "Node not registered with cluster")
    assert any("Message:               Node not registered with cluster" in line for line in reg.evidence)
    assert claim.labels["karpenter.sh/nodepool"] == "default"
    assert claim.fields["nodepool"] == "default"
    assert claim.fields["provider_id"] == "aws:///eu-west-1a/i-04d1f8b3c6a2e9f70"


def test_pvc_mapping(fixture_text):
    pvc = _one(fixture_text("describe-pvc.txt"))
    assert (pvc.kind, pvc.namespace, pvc.name) == ("PersistentVolumeClaim", "default", "data-orders-db-0")
    assert pvc.phase == "Pending"
    assert pvc.fields["storage_class"] == "gp3-encrypted"
    assert pvc.fields["used_by"] == ["orders-db-0"]
    assert pvc.events[0].reason == "ProvisioningFailed"


def test_detect_kind_from_command_and_keys():
    obj = parse_object(["Name:  x", "Replicas:  1 desired | 1 updated | 1 total | 0 available | 1 unavailable",
                        "StrategyType:  RollingUpdate"])
    assert detect_kind(obj, None) == "Deployment"
    assert detect_kind(parse_object(["Name:  x"]), "kubectl describe nodepool x") == "NodePool"
    assert detect_kind(parse_object(["Name:  x"]), "kubectl describe pvc/x") == "PersistentVolumeClaim"


def test_deployment_replicas_and_conditions():
    text = (
        "Name:                   storefront\n"
        "Namespace:              web\n"
        "Replicas:               3 desired | 3 updated | 3 total | 1 available | 2 unavailable\n"
        "StrategyType:           RollingUpdate\n"
        "Conditions:\n"
        "  Type           Status  Reason\n"
        "  ----           ------  ------\n"
        "  Available      False   MinimumReplicasUnavailable\n"
        "  Progressing    False   ProgressDeadlineExceeded\n"
    )
    dep = _one(text)
    assert dep.fields["available_replicas"] == 1 and dep.fields["replicas"] == 3
    assert dep.conditions["Progressing"].reason == "ProgressDeadlineExceeded"


def test_unknown_describe_goes_to_unparsed():
    result = parse_describe("Name:  thing\nFoo:   bar\n", None)
    assert not result.resources
    assert "Foo:   bar" in result.unparsed


def test_tabs_in_describe_are_tolerated():
    text = "Name:\tweb-1\nNamespace:\tdefault\nStatus:\tPending\nContainers:\n  web:\n    Image:\tnginx\n"
    pod = _one(text)
    assert (pod.namespace, pod.phase) == ("default", "Pending")
