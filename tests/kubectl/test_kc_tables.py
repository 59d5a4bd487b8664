"""Table column splitting and the ``kubectl get`` parsers."""

from __future__ import annotations

from troubleshoot.kubectl.parse_tables import (
    command_namespace,
    parse_events,
    parse_nodeclaims,
    parse_nodepools,
    parse_nodes,
    parse_pods,
    parse_pvcs,
)
from troubleshoot.kubectl.tables import parse_header, split_row


def test_header_merges_two_word_columns():
    header = parse_header("NAME   READY   NOMINATED NODE   READINESS GATES")
    assert header is not None
    assert header.names == ["NAME", "READY", "NOMINATED NODE", "READINESS GATES"]
    assert header.starts == [0, 7, 15, 32]


def test_header_rejects_ordinary_text():
    assert parse_header("Name:   web-1") is None
    assert parse_header("The node was low on resource") is None
    assert parse_header("NAME") is None


def test_split_by_position_keeps_spaces_in_cells():
    header = parse_header("NAME    READY   STATUS             RESTARTS       AGE")
    row = "api-1   0/1     CrashLoopBackOff   12 (94s ago)   41m"
    assert split_row(header, row) == ["api-1", "0/1", "CrashLoopBackOff", "12 (94s ago)", "41m"]


def test_split_by_position_allows_blank_cells():
    header = parse_header("NAME            TYPE         NODE   READY     AGE")
    row = "gpu-7hq2m                           False     7m"
    assert split_row(header, row) == ["gpu-7hq2m", "", "", "False", "7m"]


def test_split_falls_back_to_tokens_when_misaligned():
    header = parse_header("NAMESPACE NAME READY STATUS RESTARTS AGE")
    row = "default checkout-api-6d8f7c9b5-9mzt7 0/1 CrashLoopBackOff 12 (94s ago) 41m"
    assert split_row(header, row) == ["default", "checkout-api-6d8f7c9b5-9mzt7", "0/1", "CrashLoopBackOff",
                                      "12 (94s ago)", "41m"]


def test_split_free_text_column_takes_the_rest():
    header = parse_header("LAST SEEN TYPE REASON OBJECT MESSAGE")
    row = "2m (x3 over 10m) Warning FailedScheduling pod/web-1 0/3 nodes are available: 3 Insufficient cpu."
    cells = split_row(header, row)
    assert cells == ["2m (x3 over 10m)", "Warning", "FailedScheduling", "pod/web-1",
                     "0/3 nodes are available: 3 Insufficient cpu."]


def test_command_namespace():
    assert command_namespace("kubectl get pods -n payments") == "payments"
    assert command_namespace("kubectl -n batch describe pod x") == "batch"
    assert command_namespace("kubectl get pods --namespace=web -o wide") == "web"
    assert command_namespace("kubectl get pods -nweb") == "web"
    assert command_namespace("kubectl get pods -A") is None
    assert command_namespace(None) is None


def test_pods_plain_without_namespace(fixture_text):
    result = parse_pods(fixture_text("get-pods.txt"), "kubectl get pods")
    assert len(result.resources) == 6
    crash = next(r for r in result.resources if r.name == "checkout-api-6d8f7c9b5-9mzt7")
    assert crash.namespace is None
    assert crash.status == "CrashLoopBackOff"
    assert crash.restarts == 12
    assert crash.ready == "0/1"
    assert crash.evidence == ["checkout-api-6d8f7c9b5-9mzt7      0/1     CrashLoopBackOff             "
                              "12 (94s ago)   41m"]


def test_pods_all_namespaces(fixture_text):
    result = parse_pods(fixture_text("get-pods-all.txt"), "kubectl get pods -A")
    by_name = {r.name: r for r in result.resources}
    assert len(by_name) == 18
    assert by_name["node-exporter-k9p2w"].namespace == "monitoring"
    assert by_name["node-exporter-k9p2w"].reason == "Evicted"
    assert by_name["old-api-5d6c7b8a9-pp4xz"].deleting
    assert by_name["prometheus-server-0"].phase == "Pending"
    assert by_name["prometheus-server-0"].fields["scheduled"] is True
    assert by_name["ledger-7c6d5b8f9-m4n8s"].restarts == 5
    assert not result.unparsed


def test_pods_wide_reads_node(fixture_text):
    result = parse_pods(fixture_text("get-pods-wide.txt"), None)
    by_name = {r.name: r for r in result.resources}
    assert by_name["checkout-api-6d8f7c9b5-9mzt7"].node_name == "ip-10-0-45-6.eu-west-1.compute.internal"
    assert by_name["checkout-worker-7b9c5d4f8-hv6lq"].node_name == ""


def test_pods_odd_spacing(fixture_text):
    result = parse_pods(fixture_text("get-pods-odd-spacing.txt"), None)
    by_name = {r.name: r for r in result.resources}
    assert by_name["checkout-api-6d8f7c9b5-9mzt7"].restarts == 12
    assert by_name["ledger-7c6d5b8f9-m4n8s"].status == "OOMKilled"
    assert by_name["node-exporter-k9p2w"].namespace == "monitoring"


def test_pods_command_namespace_applies():
    text = "NAME    READY   STATUS    RESTARTS   AGE\nweb-1   0/1     Pending   0          1m\n"
    (pod,) = parse_pods(text, "kubectl get pods -n shop").resources
    assert pod.namespace == "shop"


def test_kind_prefixed_names():
    text = "NAME        READY   STATUS    RESTARTS   AGE\npod/web-1   0/1     Pending   0          1m\n"
    (pod,) = parse_pods(text, None).resources
    assert (pod.kind, pod.name) == ("Pod", "web-1")


def test_nodes(fixture_text):
    result = parse_nodes(fixture_text("get-nodes-wide.txt"), None)
    by_name = {r.name: r for r in result.resources}
    assert by_name["ip-10-0-45-6.eu-west-1.compute.internal"].status == "NotReady"
    cordoned = by_name["ip-10-0-33-201.eu-west-1.compute.internal"]
    assert cordoned.ready == "Ready" and cordoned.fields["unschedulable"] is True
    assert by_name["ip-10-0-61-88.eu-west-1.compute.internal"].status == "Unknown"
    assert by_name["ip-10-0-12-34.eu-west-1.compute.internal"].fields["internal_ip"] == "10.0.12.34"


def test_events_new_layout(fixture_text):
    result = parse_events(fixture_text("get-events-all.txt"), "kubectl get events -A")
    assert len(result.events) == 16
    first = result.events[0]
    assert (first.kind, first.namespace, first.name) == ("Pod", "default", "checkout-worker-7b9c5d4f8-hv6lq")
    assert first.type == "Warning" and first.reason == "FailedScheduling"
    assert first.message.startswith("0/4 nodes are available: 1 Insufficient cpu")
    kinds = {e.kind for e in result.events}
    assert {"Pod", "Node", "NodeClaim", "PersistentVolumeClaim"} <= kinds


def test_events_old_layout(fixture_text):
    result = parse_events(fixture_text("get-events-old.txt"), None)
    assert len(result.events) == 2
    sched, backoff = result.events
    assert (sched.kind, sched.name, sched.count) == ("Pod", "checkout-worker-7b9c5d4f8-hv6lq", 58)
    assert sched.message.endswith("that the pod didn't tolerate.")
    assert backoff.source == "kubelet, ip-10-0-45-6.eu-west-1.compute.internal"


def test_events_wrapped_message_is_joined():
    text = (
        "LAST SEEN   TYPE      REASON             OBJECT      MESSAGE\n"
        "2m          Warning   FailedScheduling   pod/web-1   0/3 nodes are available: 3 Insufficient\n"
        "memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.\n"
    )
    (event,) = parse_events(text, "kubectl get events -n shop").events
    assert event.namespace == "shop"
    assert "3 Insufficient memory." in event.message
    assert len(event.evidence) == 2


def test_events_count_from_age_column():
    text = ("LAST SEEN          TYPE      REASON    OBJECT      MESSAGE\n"
            "2m (x7 over 1h)    Warning   BackOff   pod/web-1   Back-off restarting failed container\n")
    (event,) = parse_events(text, None).events
    assert event.count == 7


def test_nodeclaims_with_blank_cells(fixture_text):
    result = parse_nodeclaims(fixture_text("get-nodeclaims.txt"), None)
    by_name = {r.name: r for r in result.resources}
    assert by_name["default-x8z4k"].ready == "Unknown"
    assert by_name["default-x8z4k"].node_name == ""
    assert by_name["default-x8z4k"].fields["zone"] == "eu-west-1a"
    assert by_name["gpu-7hq2m"].ready == "False"
    assert "instance_type" not in by_name["gpu-7hq2m"].fields
    assert by_name["default-2xkqp"].node_name == "ip-10-0-12-34.eu-west-1.compute.internal"


def test_nodepools(fixture_text):
    result = parse_nodepools(fixture_text("get-nodepools.txt"), None)
    by_name = {r.name: r for r in result.resources}
    assert by_name["gpu"].ready == "False"
    assert by_name["gpu"].fields["nodeclass"] == "gpu"


def test_pvcs():
    header = "NAME     STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   AGE"
    col = header.index("STORAGECLASS")
    age = header.rindex("AGE")
    row0 = "data-0   Pending".ljust(col) + "gp3".ljust(age - col) + "5m"
    row1 = "data-1   Pending".ljust(age) + "5m"
    text = "\n".join([header, row0, row1]) + "\n"
    a, b = parse_pvcs(text, "kubectl get pvc -n db").resources
    assert (a.phase, a.fields["storage_class"], a.namespace) == ("Pending", "gp3", "db")
    assert b.fields["storage_class"] == ""
