"""Karpenter NodeClaim / NodePool / EC2NodeClass status conditions, v1 and v1beta1 (and v1alpha5 Machines)."""

from __future__ import annotations

import pytest

from troubleshoot.kubectl import analyze_text
from troubleshoot.kubectl.analyzers.karpenter import quantity


def problems(text: str) -> dict[str, object]:
    return {f.problem: f for f in analyze_text(text).findings}


def nodeclaim(api: str, conditions: str, extra: str = "") -> str:
    return (f"apiVersion: karpenter.sh/{api}\nkind: NodeClaim\nmetadata:\n  name: default-4kq8p\n  labels:\n"
            f"    karpenter.sh/nodepool: default\n{extra}status:\n  conditions:\n{conditions}")


UNREGISTERED_TAINT = """\
  - type: Launched
    status: "True"
    reason: Launched
  - type: Registered
    status: "False"
    reason: UnregisteredTaintNotFound
    message: Invariant violated, karpenter.sh/unregistered taint must be present on Karpenter-managed nodes
"""


@pytest.mark.parametrize("api", ["v1", "v1beta1"])
def test_launch_failures_are_not_launched(api):
    text = nodeclaim(api, """\
  - type: Launched
    status: "False"
    reason: LaunchFailed
    message: 'creating instance, insufficient capacity, all requested instance types were unavailable'
""")
    f = problems(text)["NodeClaim.NotLaunched"]
    assert f.name == "default-4kq8p" and "insufficient capacity" in f.detail and f.severity == "critical"


def test_unregistered_taint_not_found_names_the_missing_taint():
    f = problems(nodeclaim("v1", UNREGISTERED_TAINT))["NodeClaim.UnregisteredTaintNotFound"]
    assert "karpenter.sh/unregistered" in f.detail and "custom AMI or userData" in f.detail
    assert any("UnregisteredTaintNotFound" in e for e in f.evidence)


def test_unregistered_taint_not_found_in_describe_output():
    text = """Name:         default-4kq8p
Namespace:
Labels:       karpenter.sh/nodepool=default
API Version:  karpenter.sh/v1
Kind:         NodeClaim
Status:
  Conditions:
    Last Transition Time:  2024-09-03T10:12:31Z
    Message:
    Reason:                Launched
    Status:                True
    Type:                  Launched
    Last Transition Time:  2024-09-03T10:14:02Z
    Message:               Invariant violated, karpenter.sh/unregistered taint must be present on Karpenter-managed nodes
    Reason:                UnregisteredTaintNotFound
    Status:                False
    Type:                  Registered
Events:                    <none>
"""
    (f,) = analyze_text(text).findings
    assert (f.problem, f.name) == ("NodeClaim.UnregisteredTaintNotFound", "default-4kq8p")


def test_not_registered_and_not_initialized():
    registered = problems(nodeclaim("v1", """\
  - {type: Launched, status: "True"}
  - {type: Registered, status: "False", reason: NodeNotFound, message: Node not registered with cluster}
"""))
    assert set(registered) == {"NodeClaim.NotRegistered"}
    initialized = problems(nodeclaim("v1beta1", """\
  - {type: Launched, status: "True"}
  - {type: Registered, status: "True"}
  - {type: Initialized, status: "False", reason: NotInitialized, message: 'startup taints not removed'}
"""))
    assert set(initialized) == {"NodeClaim.NotInitialized"}


def test_drifted_and_consolidation_blocked_are_information():
    found = problems(nodeclaim("v1", """\
  - {type: Launched, status: "True"}
  - {type: Registered, status: "True"}
  - {type: Initialized, status: "True"}
  - {type: Ready, status: "True"}
  - {type: Drifted, status: "True", reason: NodePoolDrifted}
  - {type: ConsolidationBlocked, status: "True", reason: PDBPreventsEviction,
     message: 'pdb "default/api" prevents pod evictions'}
"""))
    assert set(found) == {"NodeClaim.Drifted", "Karpenter.ConsolidationBlocked"}
    assert found["NodeClaim.Drifted"].severity == found["Karpenter.ConsolidationBlocked"].severity == "info"
    assert 'pdb "default/api" prevents pod evictions' in found["Karpenter.ConsolidationBlocked"].detail


def test_disruption_blocked_events_on_a_node():
    text = ("LAST SEEN   TYPE     REASON              OBJECT                                        MESSAGE\n"
            "3m          Normal   DisruptionBlocked   node/ip-10-0-12-34.eu-west-1.compute.internal   "
            "Cannot disrupt Node: pod \"default/batch-1\" has \"karpenter.sh/do-not-disrupt\" annotation\n")
    (f,) = analyze_text(text).findings
    assert (f.problem, f.kind, f.severity) == ("Karpenter.ConsolidationBlocked", "Node", "info")
    assert "do-not-disrupt" in f.detail


def test_v1alpha5_machines():
    text = """apiVersion: karpenter.sh/v1alpha5
kind: Machine
metadata: {name: default-zt6wl}
status:
  conditions:
  - {type: MachineLaunched, status: "False", reason: LaunchFailed, message: 'UnauthorizedOperation: ec2:RunInstances'}
"""
    (f,) = analyze_text(text).findings
    assert (f.problem, f.kind) == ("NodeClaim.NotLaunched", "Machine") and "ec2:RunInstances" in f.detail


@pytest.mark.parametrize(("used", "reached"), [({"cpu": "64"}, True), ({"cpu": "64000m"}, True),
                                              ({"cpu": "63500m"}, False), ({"memory": "256Gi"}, True)])
def test_nodepool_limits(used, reached):
    resources = "".join(f"    {k}: \"{v}\"\n" for k, v in used.items())
    text = ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: general}\nspec:\n  limits:\n"
            "    cpu: \"64\"\n    memory: 256Gi\nstatus:\n  conditions:\n  - {type: Ready, status: \"True\"}\n"
            f"  resources:\n{resources}")
    found = problems(text)
    assert ("NodePool.LimitReached" in found) == reached
    if reached:
        assert "Karpenter launches no more nodes from it" in found["NodePool.LimitReached"].detail


def test_quantities():
    assert quantity("1000m") == 1.0 and quantity("64Gi") == 64 * 2**30 and quantity("16") == 16
    assert quantity("1e3") == 1000 and quantity("lots") is None
