"""Pod analysers: scheduling, crash loops, image pulls, config errors, probes, eviction."""

from __future__ import annotations

import pytest

from troubleshoot.kubectl import analyze_text
from troubleshoot.kubectl.analyzers.containers import classify_image_error
from troubleshoot.kubectl.analyzers.scheduling import classify_scheduling


def findings(text: str, problem: str | None = None):
    report = analyze_text(text)
    return [f for f in report.findings if problem is None or f.problem == problem]


def codes(text: str) -> set[tuple[str, str]]:
    return {(f.name, f.problem) for f in analyze_text(text).findings}


# ---------------------------------------------------------------- scheduling

@pytest.mark.parametrize("message, expected", [
    ("0/3 nodes are available: 3 node(s) had untolerated taint {karpenter.sh/controller: true}. preemption: "
     "0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
     ["FailedScheduling.UntoleratedTaint"]),
    ("0/3 nodes are available: 3 node(s) had taint {dedicated: batch}, that the pod didn't tolerate.",
     ["FailedScheduling.UntoleratedTaint"]),
    ("0/4 nodes are available: 2 Insufficient cpu, 2 Insufficient memory. preemption: 0/4 nodes are available: "
     "4 No preemption victims found for incoming pod.", ["FailedScheduling.InsufficientResources"]),
    ("0/2 nodes are available: 2 Too many pods. preemption: 0/2 nodes are available: 2 No preemption victims "
     "found for incoming pod.", ["FailedScheduling.TooManyPods"]),
    ("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are "
     "available: 3 Preemption is not helpful for scheduling.", ["FailedScheduling.NodeAffinity"]),
    ("0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are "
     "available: 3 Preemption is not helpful for scheduling.", ["FailedScheduling.UnboundPVC"]),
    ("pod has unbound immediate PersistentVolumeClaims", ["FailedScheduling.UnboundPVC"]),
    ("0/3 nodes are available: 3 node(s) had volume node affinity conflict. preemption: 0/3 nodes are "
     "available: 3 Preemption is not helpful for scheduling.", ["FailedScheduling.VolumeNodeAffinityConflict"]),
    ("Misconfigured Fargate Profile: fargate profile fp-default blocked for new launches due to: Pod execution "
     "role is not found in auth config or does not have all required permissions for launching fargate pods.",
     ["FailedScheduling.FargateProfile"]),
    ('Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"180m"}, '
     'no instance type satisfied resources {"cpu":"64"} and requirements', ["Karpenter.IncompatibleNodePool"]),
    ('could not schedule pod, incompatible with nodepool "gpu", incompatible requirements, key '
     'nvidia.com/gpu.present, nvidia.com/gpu.present In [true] not in nvidia.com/gpu.present DoesNotExist',
     ["Karpenter.IncompatibleNodePool"]),
    ("0/5 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
     "4 Insufficient memory. preemption: 0/5 nodes are available: 1 Preemption is not helpful for scheduling, "
     "4 No preemption victims found for incoming pod.",
     ["FailedScheduling.UntoleratedTaint", "FailedScheduling.InsufficientResources"]),
    ("0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports.",
     ["FailedScheduling.PortConflict"]),
    ("0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints.",
     ["FailedScheduling.TopologySpread"]),
    ("binding rejected: running Bind plugin \"DefaultBinder\": Operation cannot be fulfilled",
     ["FailedScheduling.Other"]),
])
def test_classify_scheduling(message, expected):
    assert [c.code for c in classify_scheduling(message)] == expected


def test_preemption_tail_is_ignored():
    msg = ("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes "
           "are available: 3 Insufficient memory.")
    assert [c.code for c in classify_scheduling(msg)] == ["FailedScheduling.NodeAffinity"]


def test_insufficient_names_each_resource():
    (cause,) = classify_scheduling("0/3 nodes are available: 1 Insufficient cpu, 2 Insufficient memory, "
                                   "3 Insufficient ephemeral-storage, 1 Insufficient pods.")
    assert cause.resources == ["cpu", "memory", "ephemeral-storage", "pods"]


def test_pending_taint_pod(fixture_text):
    text = fixture_text("describe-pod-pending-taint.txt")
    (taint,) = findings(text, "FailedScheduling.UntoleratedTaint")
    assert taint.severity == "critical"
    assert (taint.kind, taint.namespace, taint.name) == ("Pod", "default", "checkout-worker-7b9c5d4f8-hv6lq")
    # the effect comes from Karpenter's message in the same input
    assert "karpenter.sh/controller=true:NoSchedule" in taint.detail
    assert any("untolerated taint {karpenter.sh/controller: true}" in e for e in taint.evidence)
    (karp,) = findings(text, "Karpenter.IncompatibleNodePool")
    assert "default" in karp.detail and "system" in karp.detail


def test_taint_effect_taken_from_node_in_same_input(fixture_text):
    text = fixture_text("get-events-old.txt") + "\n" + fixture_text("describe-node-notready.txt")
    (f,) = findings(text, "FailedScheduling.UntoleratedTaint")
    assert "dedicated=batch:NoSchedule" in f.detail


def test_taint_effect_unknown_is_said_so():
    text = ("LAST SEEN   TYPE      REASON             OBJECT      MESSAGE\n"
            "1m          Warning   FailedScheduling   pod/web-1   0/1 nodes are available: 1 node(s) had "
            "untolerated taint {gpu: true}.\n")
    (f,) = findings(text, "FailedScheduling.UntoleratedTaint")
    assert "gpu=true" in f.detail and "effect not shown" in f.detail
    assert f.severity == "warning"   # only known from an event


def test_stale_scheduling_events_on_running_pod_are_ignored():
    text = ("NAMESPACE   NAME    READY   STATUS    RESTARTS   AGE   IP         NODE   NOMINATED NODE   "
            "READINESS GATES\n"
            "default     web-1   1/1     Running   0          5m    10.0.1.2   n1     <none>           <none>\n"
            "\n"
            "NAMESPACE   LAST SEEN   TYPE      REASON             OBJECT      MESSAGE\n"
            "default     5m          Warning   FailedScheduling   pod/web-1   0/1 nodes are available: "
            "1 Insufficient cpu.\n")
    assert not findings(text)


def test_unbound_pvc_names_the_claim():
    text = """apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: data}
spec:
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data-db-0}
status: {phase: Pending}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-db-0, namespace: data}
spec: {storageClassName: gp3}
status: {phase: Pending}
---
apiVersion: v1
kind: Event
type: Warning
reason: FailedScheduling
message: >-
  0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.
  preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.
involvedObject: {kind: Pod, name: db-0, namespace: data}
"""
    (f,) = findings(text, "FailedScheduling.UnboundPVC")
    assert "data-db-0" in f.detail and f.severity == "critical"


def test_pending_without_events_is_reported_once():
    text = "NAME    READY   STATUS    RESTARTS   AGE\nweb-1   0/1     Pending   0          5m\n"
    assert codes(text) == {("web-1", "Pod.Pending")}


def test_fargate(fixture_text):
    (f,) = findings(fixture_text("session-mixed.txt"), "FailedScheduling.FargateProfile")
    assert f.name == "billing-api-7d5c6b8f9-q9r3s"
    assert "Pod execution role is not found" in f.detail


def test_volume_node_affinity(fixture_text):
    (f,) = findings(fixture_text("session-mixed.txt"), "FailedScheduling.VolumeNodeAffinityConflict")
    assert (f.namespace, f.name) == ("search", "opensearch-0")


# ---------------------------------------------------------------- crash loops

def test_crashloop_oom_from_describe(fixture_text):
    (f,) = findings(fixture_text("describe-pod-crashloop-oom.txt"), "CrashLoopBackOff.OOMKilled")
    assert "ledger" in f.detail and "5 restarts" in f.detail
    assert "      Reason:       OOMKilled" in f.evidence
    assert "      Exit Code:    137" in f.evidence
    assert any("Back-off restarting failed container" in e for e in f.evidence)


def test_crashloop_exit_code_from_yaml(fixture_text):
    (f,) = findings(fixture_text("pod.yaml"), "CrashLoopBackOff.ExitCode")
    assert "code 1" in f.detail
    assert "connection refused" in f.detail
    assert "        exitCode: 1" in f.evidence   # the YAML line itself


def _crash_describe(last_reason: str, exit_code: int, events: str = "") -> str:
    return (
        "Name:         api-1\nNamespace:    shop\nNode:         n1/10.0.0.1\nStatus:       Running\n"
        "Containers:\n  api:\n    Image:          api:1\n    State:          Waiting\n"
        "      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n"
        f"      Reason:       {last_reason}\n      Exit Code:    {exit_code}\n"
        "    Ready:          False\n    Restart Count:  4\n"
        "Events:\n  Type     Reason     Age                From     Message\n"
        "  ----     ------     ----               ----     -------\n" + events
    )


def test_crashloop_probe_failure():
    events = ("  Warning  Unhealthy  1m (x9 over 5m)    kubelet  Liveness probe failed: Get "
              "\"http://10.0.3.4:8080/healthz\": context deadline exceeded (Client.Timeout exceeded while "
              "awaiting headers)\n"
              "  Normal   Killing    1m (x3 over 5m)    kubelet  Container api failed liveness probe, will be "
              "restarted\n")
    (f,) = findings(_crash_describe("Error", 137, events))
    assert f.problem == "CrashLoopBackOff.ProbeFailure"
    assert any("Liveness probe failed" in e for e in f.evidence)


def test_crashloop_exit_137_without_reason_counts_as_oom():
    (f,) = findings(_crash_describe("Error", 137))
    assert f.problem == "CrashLoopBackOff.OOMKilled"


def test_crashloop_exit_code_meaning():
    (f,) = findings(_crash_describe("Error", 127))
    assert f.problem == "CrashLoopBackOff.ExitCode"
    assert "127" in f.detail and "command not found" in f.detail


def test_crashloop_plain_from_table(fixture_text):
    report = analyze_text(fixture_text("get-pods.txt"))
    (f,) = [f for f in report.findings if f.problem.startswith("CrashLoopBackOff")]
    assert f.problem == "CrashLoopBackOff" and f.namespace == "default"


def test_oomkilled_status_in_table(fixture_text):
    (f,) = findings(fixture_text("get-pods-odd-spacing.txt"), "CrashLoopBackOff.OOMKilled")
    assert f.name == "ledger-7c6d5b8f9-m4n8s"


# ---------------------------------------------------------------- images

@pytest.mark.parametrize("message, code", [
    ('Failed to pull image "nginx:1.255": rpc error: code = NotFound desc = failed to pull and unpack image '
     '"docker.io/library/nginx:1.255": failed to resolve reference "docker.io/library/nginx:1.255": '
     'docker.io/library/nginx:1.255: not found', "ImagePull.NotFound"),
    ('Failed to pull image "123456789012.dkr.ecr.eu-west-1.amazonaws.com/x:1": ... 403 Forbidden',
     "ImagePull.Unauthorized"),
    ('failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized',
     "ImagePull.Unauthorized"),
    ("pull access denied for acme/private, repository does not exist or may require 'docker login': "
     "denied: requested access to the resource is denied", "ImagePull.Unauthorized"),
    ("429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit.",
     "ImagePull.RateLimited"),
    ("no match for platform in manifest: not found", "ImagePull.WrongArchitecture"),
    ("exec /app/server: exec format error", "ImagePull.WrongArchitecture"),
    ('dial tcp 52.1.2.3:443: i/o timeout', "ImagePull.Network"),
    ("something odd happened", "ImagePull.Other"),
])
def test_classify_image_error(message, code):
    assert classify_image_error(message) == code


def test_imagepull_unauthorized_describe(fixture_text):
    (f,) = findings(fixture_text("describe-pod-imagepull-unauthorized.txt"), "ImagePull.Unauthorized")
    assert "payments:v2.14.0" in f.detail
    assert any("403 Forbidden" in e for e in f.evidence)
    assert "      Reason:       ImagePullBackOff" in f.evidence


def test_imagepull_from_json(fixture_text):
    got = codes(fixture_text("pods-list.json"))
    assert ("image-resizer-7f9c8b6d5-p4k7m", "ImagePull.WrongArchitecture") in got
    assert ("thumbnailer-5b8d9c7f6-r2w9x", "ImagePull.RateLimited") in got
    assert not any(name == "uploader-6c9d8e7f5-h3j8k" for name, _ in got)


def test_imagepull_table_only_is_other(fixture_text):
    assert ("payments-5f4b8c7d6-wq2rn", "ImagePull.Other") in codes(fixture_text("get-pods.txt"))


def test_wrong_arch_from_logs(fixture_text):
    (f,) = findings(fixture_text("session-mixed.txt"), "ImagePull.WrongArchitecture")
    assert (f.namespace, f.name) == ("media", "image-resizer-7f9c8b6d5-p4k7m")
    assert f.evidence == ["exec /usr/local/bin/resizer: exec format error"]


# ---------------------------------------------------------------- config errors

def test_missing_key(fixture_text):
    (f,) = findings(fixture_text("describe-pod-createcontainerconfig.txt"), "CreateContainerConfigError.MissingKey")
    assert "DB_PASSWORD" in f.detail and "reporting/report-db" in f.detail


@pytest.mark.parametrize("message, code, word", [
    ('Error: secret "db-creds" not found', "CreateContainerConfigError.MissingSecret", "db-creds"),
    ('Error: configmap "app-config" not found', "CreateContainerConfigError.MissingConfigMap", "app-config"),
    ("Error: couldn't find key url in ConfigMap shop/app-config", "CreateContainerConfigError.MissingKey", "url"),
])
def test_config_errors_from_events(message, code, word):
    text = ("NAME    READY   STATUS                       RESTARTS   AGE\n"
            "api-1   0/1     CreateContainerConfigError   0          2m\n\n"
            "LAST SEEN   TYPE      REASON   OBJECT      MESSAGE\n"
            f"1m          Warning   Failed   pod/api-1   {message}\n")
    (f,) = findings(text, code)
    assert word in f.detail and f.severity == "critical"


# ---------------------------------------------------------------- probes and eviction

def test_readiness_probe(fixture_text):
    text = fixture_text("get-pods-all.txt") + "\n" + fixture_text("get-events-all.txt")
    got = codes(text)
    assert ("frontend-84c7d9f6b-lq8vx", "Probe.NotReady") in got
    assert ("frontend-84c7d9f6b-lq8vx", "Pod.NotReady") not in got


def test_evicted_from_table_events_and_json(fixture_text):
    text = fixture_text("get-pods-all.txt") + "\n" + fixture_text("get-events-all.txt")
    (f,) = findings(text, "Pod.Evicted")
    assert "ephemeral-storage" in f.detail
    assert any("monitoring    node-exporter-k9p2w" in e for e in f.evidence)
    (g,) = findings(fixture_text("pods-list.json"), "Pod.Evicted")
    assert "low on memory" in g.detail


def test_terminating_is_info(fixture_text):
    (f,) = findings(fixture_text("get-pods-all.txt"), "Pod.Terminating")
    assert f.severity == "info"
