"""Findings from what people really paste: pieces of kubectl output, old layouts, logs.

Most inputs are real uploads from public issue trackers (tests/fixtures/real_uploads,
see its manifest.yaml for the source of each)."""

from __future__ import annotations

from pathlib import Path

from troubleshoot.kubectl import analyze_text

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_uploads"
NOT_IN_UPLOAD = "(object not in the upload)"


def real(prefix: str) -> str:
    (path,) = REAL.glob(f"{prefix}-*")
    return path.read_text(encoding="utf-8")


def findings(text: str) -> list[tuple[str, str, str]]:
    return [(f.problem, f.kind, f.name) for f in analyze_text(text).findings]


# ------------------------------------------------------------------ events without their object

def test_a_bare_events_block_gives_a_finding_for_an_object_not_in_the_upload():
    (f,) = analyze_text(real("01")).findings
    assert (f.problem, f.kind, f.name) == ("FailedScheduling.NodeAffinity", "Pod", "")
    assert NOT_IN_UPLOAD in f.detail
    assert any("didn't match Pod's node affinity/selector" in e for e in f.evidence)


def test_event_rows_name_their_pod_when_a_message_does():
    (f,) = analyze_text(real("48")).findings     # "Successfully assigned default/starbright-web-bff-... to ip-..."
    assert (f.problem, f.namespace, f.name) == ("Pod.SandboxCreationFailed", "default",
                                                 "starbright-web-bff-74768c849b-859l2")
    assert "could not give the pod an IP address" in f.detail


def test_event_rows_without_header_or_indentation_still_count():
    problems = findings(real("43"))      # rows cut out of describe, first one half indented
    assert ("Pod.SandboxCreationFailed", "Pod", "jupyter-bcraft-40uw-2eedu") in problems


def test_one_finding_per_distinct_warning_reason_and_message():
    text = (
        "Events:\n"
        "  Type     Reason                  Age                From                Message\n"
        "  ----     ------                  ----               ----                -------\n"
        "  Warning  SyncLoadBalancerFailed  2m (x4 over 9m)    service-controller  Error syncing load balancer: "
        "failed to ensure load balancer: quota exceeded\n"
        "  Warning  SyncLoadBalancerFailed  1m                 service-controller  Error syncing load balancer: "
        "failed to ensure load balancer: quota exceeded\n"
        "  Warning  FailedToUpdateEndpoint  1m                 endpoint-controller  Failed to update endpoint "
        "default/web: Operation cannot be fulfilled\n"
    )
    found = analyze_text(text).findings
    assert [(f.problem, f.kind) for f in found] == [("Event.Warning", "Service"), ("Event.Warning", "Service")]
    details = sorted(f.detail for f in found)
    assert "warning event FailedToUpdateEndpoint: Failed to update endpoint" in details[0]
    assert "warning event SyncLoadBalancerFailed (4 times): Error syncing load balancer" in details[1]
    assert all(NOT_IN_UPLOAD in f.detail for f in found)


def test_a_single_event_row_on_its_own_is_read():
    (f,) = analyze_text(real("11")).findings
    assert f.problem == "Event.Warning" and "SyncLoadBalancerFailed" in f.detail


def test_scheduler_messages_on_their_own_lines_are_read_as_failed_scheduling():
    problems = {p for p, _, _ in findings(real("52"))}
    assert {"FailedScheduling.InsufficientResources", "FailedScheduling.NodeAffinity",
            "FailedScheduling.UntoleratedTaint"} <= problems


def test_describe_of_an_event_object_names_the_involved_pod():
    assert findings(real("04")) == [
        ("FailedScheduling.InsufficientResources", "Pod", "resource-test-bdfcd9f5-g8jq5"),
        ("FailedScheduling.UntoleratedTaint", "Pod", "resource-test-bdfcd9f5-g8jq5")]   # PodToleratesNodeTaints (10)


# ------------------------------------------------------------------ describe fragments

def test_a_node_conditions_block_without_name():
    problems = findings(real("12"))
    assert ("Node.Unknown", "Node", "") in problems
    assert ("Node.NotReady", "Node", "ip-10-*.{region}.compute.internal") in problems   # its NAME STATUS table


def test_a_container_state_pasted_on_its_own():
    (f,) = analyze_text(real("29")).findings
    assert (f.problem, f.kind, f.name) == ("CrashLoopBackOff", "Pod", "")


def test_a_describe_that_lost_its_indentation_is_read_again():
    (f,) = analyze_text(real("28")).findings
    assert (f.problem, f.name) == ("Container.Restarts", "wordpress-5bbd7fd785-p4s9r")
    assert "restarted 19 times" in f.detail and "code 1" in f.detail


def test_stuck_in_container_creating_without_an_event_says_so():
    (f,) = analyze_text(real("49")).findings
    assert (f.problem, f.name) == ("Pod.ContainerCreating", "l7-default-backend-5d5b9874d5-dw4qv")


# ------------------------------------------------------------------ old layouts and odd tables

def test_kubectl_1_0_events_tables_and_predicates():
    assert findings(real("02")) == [("FailedScheduling.InsufficientResources", "Pod", "")]
    assert findings(real("03")) == [("FailedScheduling.InsufficientResources", "Pod", "mysql")]
    assert ("FailedScheduling.NoNodes", "Pod", "redis-master-controller-fplln") in findings(real("36"))


def test_get_rows_without_their_header():
    assert findings(real("34")) == [("Node.NotReady", "Node", "10.10.103.162"),
                                    ("Node.NotReady", "Node", "10.10.103.223")]
    assert ("Node.NotReady", "Node", "10.40.24.49") in findings(real("38"))


def test_markdown_wrapping_does_not_hide_a_table():
    problems = findings(real("45"))        # the header line starts with <pre>
    assert ("CrashLoopBackOff", "Pod", "calico-node-xph9f") in problems


def test_get_all_with_kind_prefixed_names():
    problems = findings(real("23"))
    assert ("Deployment.Unavailable", "Deployment", "coredns") in problems
    assert ("Pod.Pending", "Pod", "coredns-b96499967-cvdtl") in problems


# ------------------------------------------------------------------ YAML / JSON status blocks

def test_a_status_block_without_kind():
    text = ("status:\n  conditions:\n  - type: Launched\n    status: \"True\"\n  - type: Registered\n"
            "    status: \"False\"\n    reason: UnregisteredTaintNotFound\n    message: Invariant violated, "
            "karpenter.sh/unregistered taint must be present on Karpenter-managed nodes\n")
    (f,) = analyze_text(text).findings
    assert (f.problem, f.kind, f.name) == ("NodeClaim.UnregisteredTaintNotFound", "NodeClaim", "")
    assert NOT_IN_UPLOAD in f.detail


def test_a_pod_status_as_one_line_of_json():
    text = ('{"phase": "Running", "containerStatuses": [{"name": "app", "ready": false, "restartCount": 7, '
            '"state": {"waiting": {"reason": "CrashLoopBackOff"}}, '
            '"lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}]}')
    assert findings(text) == [("CrashLoopBackOff.OOMKilled", "Pod", "")]


def test_a_yaml_list_cut_off_mid_line_keeps_what_parses():
    report = analyze_text(real("33"))
    assert report.resources.get("Event") == 1 and not report.findings   # Normal events only


# ------------------------------------------------------------------ logs

def test_klog_event_lines_are_events_of_the_named_objects():
    problems = findings(real("05"))
    assert ("FailedScheduling.NoNodes", "Pod", "k8testrc-1-fsn2b") in problems
    assert ("FailedScheduling.NoNodes", "Pod", "k8testrc") in problems     # two pods of one generateName


def test_kubelet_journal_errors_are_one_finding_per_message():
    found = analyze_text(real("40")).findings
    assert [(f.problem, f.kind, f.name) for f in found] == [("Log.Error", "Log", "kubelet")]
    assert "4 times" in found[0].detail and "Error getting node" in found[0].detail
    two = analyze_text(real("39")).findings       # two different messages
    assert sorted(f.problem for f in two) == ["Log.Error", "Log.Error"]


def test_kubelet_errors_that_name_a_pod_become_its_events():
    problems = findings(real("42"))
    assert ("Pod.SandboxCreationFailed", "Pod", "fb-insights-frequent-run-1567040400-r68ls") in problems


def test_json_logs_copied_field_by_field_from_a_log_viewer():
    (f,) = analyze_text(real("18")).findings
    assert (f.problem, f.name) == ("Log.Error", "karpenter")
    assert "missing required labels" in f.detail


def test_json_log_errors_that_name_a_nodeclaim():
    line = ('{"level":"ERROR","time":"2024-10-04T08:20:11.052Z","logger":"controller","message":"failed launching '
            'nodeclaim","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"default-8cz5d"},"error":"creating '
            'instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not '
            'have sufficient capacity"}')
    assert findings(line) == [("NodeClaim.NotLaunched", "NodeClaim", "default-8cz5d")]


def test_logfmt_errors():
    line = ('time="2024-05-02T10:11:12Z" level=error msg="failed to sync secret cache" '
            'error="timed out waiting for the condition"')
    (f,) = analyze_text(line).findings
    assert f.problem == "Log.Error" and "timed out waiting for the condition" in f.detail


def test_info_logs_raise_nothing():
    for prefix in ("14", "16", "17"):
        assert findings(real(prefix)) == []


# ------------------------------------------------------------------ pods of one owner

def test_pods_of_one_owner_with_the_same_problem_are_one_finding():
    (f,) = analyze_text(real("31")).findings
    assert (f.problem, f.kind, f.name) == ("CrashLoopBackOff", "Deployment", "gcp-pd-csi-driver-controller")
    assert f.detail.startswith("2 of 2 pods of deployment gcp-pd-csi-driver-controller")
    assert f.members == ["gcp-pd-csi-driver-controller-6747df4b84-bc96x",
                         "gcp-pd-csi-driver-controller-6747df4b84-qjf5g"]


def test_a_sibling_without_its_own_event_inherits_the_explanation_as_inferred():
    text = (
        "$ kubectl get pods -n shop\n"
        "NAME                   READY   STATUS    RESTARTS   AGE\n"
        "api-7d4b9c6f8-2xkqp    0/1     Pending   0          5m\n"
        "api-7d4b9c6f8-9fzvt    0/1     Pending   0          5m\n"
        "api-7d4b9c6f8-lq7wn    0/1     Pending   0          5m\n"
        "$ kubectl get events -n shop\n"
        "LAST SEEN   TYPE      REASON             OBJECT                    MESSAGE\n"
        "2m          Warning   FailedScheduling   pod/api-7d4b9c6f8-2xkqp   0/4 nodes are available: "
        "4 Insufficient memory. preemption: 0/4 nodes are available: 4 No preemption victims found for "
        "incoming pod.\n"
    )
    (f,) = analyze_text(text).findings
    assert (f.problem, f.kind, f.namespace, f.name) == ("FailedScheduling.InsufficientResources", "Deployment",
                                                        "shop", "api")
    assert f.detail.startswith("3 of 3 pods of deployment api: ")
    assert f.members == ["api-7d4b9c6f8-2xkqp", "api-7d4b9c6f8-9fzvt", "api-7d4b9c6f8-lq7wn"]
    assert f.inferred == ["api-7d4b9c6f8-9fzvt", "api-7d4b9c6f8-lq7wn"]
    assert "inferred" in f.detail


def test_pods_of_one_owner_count_their_healthy_siblings():
    text = (
        "NAME        READY   STATUS             RESTARTS      AGE\n"
        "db-0        1/1     Running            0             1h\n"
        "db-1        0/1     CrashLoopBackOff   12 (2m ago)   1h\n"
        "db-2        0/1     CrashLoopBackOff   11 (1m ago)   1h\n"
    )
    (f,) = analyze_text(text).findings
    assert (f.kind, f.name) == ("StatefulSet", "db") and f.detail.startswith("2 of 3 pods of statefulset db")


def test_nodeclaims_of_one_nodepool_are_one_finding():
    (f,) = analyze_text(real("10")).findings
    assert (f.problem, f.kind, f.name) == ("NodeClaim.NotReady", "NodePool", "atg-worker-ondemand")
    assert f.detail.startswith("7 of 7 NodeClaims of NodePool atg-worker-ondemand") and len(f.members) == 7


# ------------------------------------------------------------------ healthy uploads stay quiet

def test_healthy_uploads_raise_no_alarm():
    for prefix in ("06", "13", "22", "33", "50", "54"):
        report = analyze_text(real(prefix))
        assert not [f for f in report.findings if f.severity != "info"], prefix
