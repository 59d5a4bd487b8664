"""Node, taint, Karpenter, storage and workload analysers."""

from __future__ import annotations

from troubleshoot.kubectl import analyze_text


def findings(text: str, problem: str | None = None):
    return [f for f in analyze_text(text).findings if problem is None or f.problem == problem]


# ---------------------------------------------------------------- nodes

def test_node_notready_with_condition_message(fixture_text):
    (f,) = findings(fixture_text("describe-node-notready.txt"), "Node.NotReady")
    assert (f.kind, f.namespace) == ("Node", "")
    assert "cni plugin not initialized" in f.detail
    assert any("NetworkPluginNotReady" in e for e in f.evidence)
    (d,) = findings(fixture_text("describe-node-notready.txt"), "Node.DiskPressure")
    assert d.severity == "warning"


def test_node_unknown(fixture_text):
    (f,) = findings(fixture_text("describe-node-unknown.txt"), "Node.Unknown")
    assert "Kubelet stopped posting node status." in f.detail
    # Unknown pressure conditions are not reported as pressure
    assert not findings(fixture_text("describe-node-unknown.txt"), "Node.MemoryPressure")


def test_node_table_only(fixture_text):
    got = {(f.name, f.problem, f.severity) for f in findings(fixture_text("get-nodes.txt"))}
    assert got == {
        ("ip-10-0-45-6.eu-west-1.compute.internal", "Node.NotReady", "critical"),
        ("ip-10-0-61-88.eu-west-1.compute.internal", "Node.Unknown", "critical"),
        ("ip-10-0-33-201.eu-west-1.compute.internal", "Node.Unschedulable", "info"),
    }


def test_table_and_describe_merge_into_one_node_finding(fixture_text):
    text = fixture_text("get-nodes.txt") + "\n" + fixture_text("describe-node-unknown.txt")
    (f,) = findings(text, "Node.Unknown")
    assert any(e.startswith("ip-10-0-61-88.eu-west-1.compute.internal ") and e.split()[1] == "Unknown"
               for e in f.evidence)
    assert any("NodeStatusUnknown" in e for e in f.evidence)
    assert "Kubelet stopped posting node status." in f.detail


def test_node_pressure_and_network_from_yaml():
    text = """apiVersion: v1
kind: Node
metadata: {name: ip-10-0-9-9.eu-west-1.compute.internal}
status:
  conditions:
  - {type: MemoryPressure, status: "True", reason: KubeletHasInsufficientMemory,
     message: kubelet has insufficient memory available}
  - {type: PIDPressure, status: "True", reason: KubeletHasInsufficientPID,
     message: kubelet has insufficient PID available}
  - {type: NetworkUnavailable, status: "True", reason: NoRouteCreated, message: Node created without a route}
  - type: Ready
    status: "False"
    reason: KubeletNotReady
    message: "PLEG is not healthy: pleg was last seen active 3m5.1s ago; threshold is 3m0s"
"""
    got = {f.problem: f for f in findings(text)}
    assert set(got) == {"Node.MemoryPressure", "Node.PIDPressure", "Node.NetworkUnavailable", "Node.NotReady"}
    assert "PLEG is not healthy" in got["Node.NotReady"].detail
    assert got["Node.NetworkUnavailable"].severity == "critical"


def test_node_notready_from_events_only(fixture_text):
    (f,) = findings(fixture_text("get-events-all.txt"), "Node.NotReady")
    assert f.severity == "warning"


# ---------------------------------------------------------------- taints vs tolerations

def test_node_taint_not_tolerated_by_pending_pod(fixture_text):
    text = fixture_text("describe-node-notready.txt") + "\n" + fixture_text("describe-pod-pending-taint.txt")
    (f,) = findings(text, "Node.TaintNotTolerated")
    assert f.name == "ip-10-0-45-6.eu-west-1.compute.internal"
    assert "dedicated=batch:NoSchedule" in f.detail
    assert "node.kubernetes.io/not-ready:NoSchedule" in f.detail
    # NoExecute not-ready is tolerated (op=Exists for 300s) so it is not blamed
    assert "not-ready:NoExecute" not in f.detail
    assert "default/checkout-worker-7b9c5d4f8-hv6lq" in f.detail
    assert "Taints:             node.kubernetes.io/not-ready:NoExecute" in f.evidence


def test_tolerated_taints_are_not_reported():
    text = """apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: gpu-node}
  spec:
    taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
- kind: Pod
  metadata: {name: trainer, namespace: ml}
  spec:
    tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  status: {phase: Pending}
- kind: Pod
  metadata: {name: web, namespace: ml}
  spec:
    tolerations: []
  status: {phase: Pending}
"""
    (f,) = findings(text, "Node.TaintNotTolerated")
    assert "ml/web" in f.detail and "ml/trainer" not in f.detail


def test_no_taint_finding_without_pod_tolerations(fixture_text):
    text = fixture_text("describe-node-notready.txt") + "\n" + fixture_text("get-pods-all.txt")
    assert not findings(text, "Node.TaintNotTolerated")


# ---------------------------------------------------------------- karpenter

def test_nodeclaim_not_registered_describe(fixture_text):
    (f,) = findings(fixture_text("describe-nodeclaim.txt"))
    assert f.problem == "NodeClaim.NotRegistered"
    assert "Node not registered with cluster" in f.detail
    assert any("Type:                  Registered" in e for e in f.evidence)


def test_nodeclaim_not_launched_yaml(fixture_text):
    (f,) = findings(fixture_text("nodeclaim.yaml"))
    assert f.problem == "NodeClaim.NotLaunched" and f.severity == "critical"
    assert "InsufficientInstanceCapacity" in f.detail


def test_nodeclaim_not_initialized_v1beta1(fixture_text):
    (f,) = findings(fixture_text("nodeclaim-v1beta1.yaml"))
    assert f.problem == "NodeClaim.NotInitialized"
    assert "node.cilium.io/agent-not-ready" in f.detail


def test_nodeclaim_table_and_events(fixture_text):
    got = {(f.name, f.problem) for f in findings(fixture_text("get-nodeclaims.txt"))}
    assert got == {("default-x8z4k", "NodeClaim.NotReady"), ("gpu-7hq2m", "NodeClaim.NotReady")}
    text = fixture_text("get-nodeclaims.txt") + "\n" + fixture_text("get-events-all.txt")
    got = {(f.name, f.problem) for f in findings(text) if f.kind == "NodeClaim"}
    assert ("gpu-7hq2m", "NodeClaim.NotLaunched") in got


def test_nodeclaim_table_merges_with_describe(fixture_text):
    text = fixture_text("get-nodeclaims.txt") + "\n" + fixture_text("describe-nodeclaim.txt")
    got = [f for f in findings(text) if f.name == "default-x8z4k"]
    assert [f.problem for f in got] == ["NodeClaim.NotRegistered"]


def test_nodepool_and_ec2nodeclass_not_ready(fixture_text):
    got = {f.problem: f for f in findings(fixture_text("nodepool.yaml"))}
    assert set(got) == {"NodePool.NotReady", "EC2NodeClass.NotReady"}
    assert "NodeClassReady=False" in got["NodePool.NotReady"].detail
    assert "EC2NodeClass not ready" in got["NodePool.NotReady"].detail
    assert "SubnetSelector did not match any Subnets" in got["EC2NodeClass.NotReady"].detail
    assert "    message: SubnetSelector did not match any Subnets" in got["EC2NodeClass.NotReady"].evidence


def test_nodepool_table(fixture_text):
    (f,) = findings(fixture_text("get-nodepools.txt"))
    assert (f.name, f.problem) == ("gpu", "NodePool.NotReady")


def test_ec2nodeclass_validation_failed():
    text = """apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
status:
  conditions:
  - {type: ValidationSucceeded, status: "False", reason: ValidationFailed,
     message: "unauthorized operation: ec2:RunInstances"}
  - {type: Ready, status: "False", reason: UnhealthyDependents, message: ValidationSucceeded=False}
"""
    (f,) = findings(text)
    assert f.problem == "EC2NodeClass.NotReady" and "ec2:RunInstances" in f.detail


# ---------------------------------------------------------------- storage

def test_pvc_provisioning_failed(fixture_text):
    (f,) = findings(fixture_text("describe-pvc.txt"))
    assert (f.problem, f.severity) == ("PVC.Pending", "critical")
    assert 'storageclass.storage.k8s.io "gp3-encrypted" not found' in f.detail
    assert "StorageClass:  gp3-encrypted" in f.evidence


def test_pvc_wait_for_first_consumer_is_info(fixture_text):
    (f,) = findings(fixture_text("describe-pvc-wffc.txt"))
    assert (f.problem, f.severity) == ("PVC.Pending", "info")
    assert "WaitForFirstConsumer" in f.detail


def test_pvc_external_provisioning_is_warning():
    text = ("Name:          data-0\nNamespace:     db\nStorageClass:  gp3\nStatus:        Pending\n"
            "Volume:        \nAccess Modes:  \n"
            "Events:\n  Type    Reason                Age                From                         Message\n"
            "  ----    ------                ----               ----                         -------\n"
            "  Normal  ExternalProvisioning  2m (x12 over 4m)   persistentvolume-controller  Waiting for a volume "
            "to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system "
            "administrator. If volume creation is delayed, please verify that the provisioner is running and "
            "correctly registered.\n")
    (f,) = findings(text)
    assert (f.problem, f.severity) == ("PVC.Pending", "warning")
    assert "ebs.csi.aws.com" in f.detail


def test_pvc_without_storage_class():
    header = "NAMESPACE   NAME     STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   AGE"
    row = "db          data-0   Pending".ljust(header.index("STORAGECLASS")) + "<none>".ljust(15) + "5m"
    text = header + "\n" + row + "\n"
    (f,) = findings(text)
    assert f.severity == "critical" and "no StorageClass" in f.detail


# ---------------------------------------------------------------- workloads

def test_deployment_unavailable_from_table(fixture_text):
    (f,) = findings(fixture_text("session-mixed.txt"), "Deployment.Unavailable")
    assert (f.namespace, f.name) == ("web", "storefront")
    assert "2 of 3" in f.detail


def test_deployment_progress_deadline_and_replicaset_failed_create():
    text = """apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api, namespace: shop}
  spec: {replicas: 3}
  status:
    availableReplicas: 0
    conditions:
    - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded,
       message: ReplicaSet "api-5d8c" has timed out progressing.}
    - type: ReplicaFailure
      status: "True"
      reason: FailedCreate
      message: >-
        pods "api-5d8c-" is forbidden: exceeded quota: compute-quota,
        requested: limits.cpu=2, used: limits.cpu=8, limited: limits.cpu=8
- kind: Event
  type: Warning
  reason: FailedCreate
  message: 'Error creating: pods "api-5d8c-x7" is forbidden: exceeded quota: compute-quota'
  involvedObject: {kind: ReplicaSet, name: api-5d8c, namespace: shop}
"""
    got = {f.problem: f for f in findings(text)}
    assert set(got) == {"Deployment.ProgressDeadlineExceeded", "Deployment.ReplicaFailure", "ReplicaSet.FailedCreate"}
    assert "exceeded quota" in got["Deployment.ReplicaFailure"].detail
