from __future__ import annotations

import codecs
import json

from troubleshoot.engine.reader import decode, read


def texts(data: str | bytes) -> list[str]:
    return [line.text for line in read(data)]


def test_empty_input() -> None:
    assert read("") == []
    assert read(b"") == []


def test_ansi_colours_and_cursor_codes_are_stripped() -> None:
    line = "\x1b[1;31mError:\x1b[0m \x1b[33mcreating EKS Node Group\x1b[0m\x1b[K"
    assert texts(line) == ["Error: creating EKS Node Group"]
    assert texts("\x1b]0;title\x07kubectl get pods") == ["kubectl get pods"]


def test_terminal_prompts_are_stripped() -> None:
    assert texts("$ kubectl get pods -A") == ["kubectl get pods -A"]
    assert texts("ec2-user@ip-10-0-0-1:~$ kubectl describe pod web") == ["kubectl describe pod web"]
    assert texts("[root@bastion ~]# kubectl get nodes") == ["kubectl get nodes"]
    assert texts("PS C:\\Users\\me> kubectl get ns") == ["kubectl get ns"]
    assert texts(">>> import boto3") == ["import boto3"]
    assert texts("# kubectl logs -n kube-system deploy/karpenter") == ["kubectl logs -n kube-system deploy/karpenter"]


def test_crlf_and_bare_cr_become_line_breaks_and_keep_numbers() -> None:
    lines = read("Name: web\r\nStatus: Pending\rReason: Unschedulable\r\n")
    assert [(l.number, l.text) for l in lines] == [
        (1, "Name: web"),
        (2, "Status: Pending"),
        (3, "Reason: Unschedulable"),
    ]


def test_karpenter_json_record_yields_message_and_error_on_the_same_line_number() -> None:
    rec = {
        "level": "ERROR",
        "time": "2024-05-21T10:00:00.000Z",
        "logger": "controller",
        "message": "Reconciler error",
        "commit": "1072d3b",
        "controller": "nodeclaim.lifecycle",
        "error": "launching nodeclaim, creating instance, with fleet error(s), UnauthorizedOperation: "
        'You are not authorized to perform this operation. User: "arn:aws:sts::123456789012:assumed-role/K/1"',
    }
    lines = read("first line\n" + json.dumps(rec) + "\nlast line")
    assert [l.number for l in lines] == [1, 2, 2, 3]
    assert lines[1].text == "Reconciler error"
    assert lines[2].text.startswith("launching nodeclaim, creating instance")
    assert '"arn:aws:sts::123456789012:assumed-role/K/1"' in lines[2].text
    assert lines[2].raw.startswith("{")


def test_json_nested_error_causes_and_escaped_newlines_are_unwrapped() -> None:
    rec = {
        "level": "error",
        "msg": "failed to reconcile",
        "errorCauses": [{"error": "first cause\n\tsecond line"}, {"error": 'another "quoted" cause'}],
    }
    assert texts(json.dumps(rec)) == ["failed to reconcile", "first cause", "second line", 'another "quoted" cause']


def test_json_with_kubectl_prefix_and_non_log_json() -> None:
    line = '[pod/karpenter-7d4b9c8f6-x2x9q/controller] {"level":"ERROR","message":"could not schedule pod"}'
    assert texts(line) == ["could not schedule pod"]
    assert texts('{"apiVersion": "v1"}') == ['{"apiVersion": "v1"}']
    assert texts("{not json}") == ["{not json}"]


def test_pretty_printed_json_message_field_is_unescaped() -> None:
    assert texts('    "message": "0/3 nodes are available: 3 node(s) had \\"x\\"",') == [
        'message: 0/3 nodes are available: 3 node(s) had "x"'
    ]


def test_klog_header_is_stripped() -> None:
    line = "E0521 10:00:00.123456       1 controller.go:329] error syncing 'default/web': context deadline exceeded"
    [only] = read(line)
    assert only.text == "error syncing 'default/web': context deadline exceeded"
    assert only.raw.startswith("E0521")


def test_terraform_box_is_joined_into_paragraphs() -> None:
    box = "\n".join(
        [
            "Plan: 1 to add",
            "\u2577",
            "\u2502 Error: creating EKS Node Group (demo:workers): operation error EKS: CreateNodegroup,",
            "\u2502 https response error StatusCode: 400, InvalidParameterException: Subnets specified",
            "\u2502 must be in at least two different AZs",
            "\u2502 ",
            "\u2502   with aws_eks_node_group.workers,",
            '\u2502   on main.tf line 12, in resource "aws_eks_node_group" "workers":',
            "\u2575",
        ]
    )
    lines = read(box)
    assert lines[0].text == "Plan: 1 to add"
    assert lines[1].number == 3
    assert lines[1].text == (
        "Error: creating EKS Node Group (demo:workers): operation error EKS: CreateNodegroup, "
        "https response error StatusCode: 400, InvalidParameterException: Subnets specified "
        "must be in at least two different AZs"
    )
    assert lines[2].number == 7 and lines[2].text.startswith("with aws_eks_node_group.workers,")


def test_hard_wrap_at_terminal_width_is_rejoined_mid_word() -> None:
    msg = (
        "Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated "
        "taint {karpenter.sh/controller: true}. preemption: 0/3 nodes are available."
    )
    wrapped = "\n".join(msg[i : i + 80] for i in range(0, len(msg), 80))
    [only] = read(wrapped)
    assert only.text == msg
    assert only.number == 1


def test_wrapped_sentence_with_lowercase_continuation_is_rejoined() -> None:
    lines = read(
        "kubelet reported that the container runtime network is not ready as the cni\n"
        "plugin is not initialized on this node\nNext: something else."
    )
    assert lines[0].text.endswith("as the cni plugin is not initialized on this node")
    assert lines[1].number == 3


def test_separate_log_records_are_not_joined() -> None:
    lines = read("2024-05-21T10:00:00Z first message without dot\n2024-05-21T10:00:01Z second message")
    assert len(lines) == 2


def test_invalid_utf8_bytes_are_replaced_not_fatal() -> None:
    lines = read(b"ok line\n\xff\xfebad \xc3\x28 bytes\n")
    assert lines[0].text == "ok line"
    assert "\ufffd" in lines[1].text and "bytes" in lines[1].text


def test_utf16_with_bom_and_utf8_bom() -> None:
    data = codecs.BOM_UTF16_LE + "OOMKilled\r\nExit Code: 137".encode("utf-16-le")
    assert texts(data) == ["OOMKilled", "Exit Code: 137"]
    assert decode(codecs.BOM_UTF8 + b"x") == "x"
    assert decode("\ufeffy") == "y"


def test_journal_prefix_and_klog_header_are_cut_and_the_unit_is_the_source() -> None:
    line = ('Nov 12 10:00:01 ip-10-0-1-2.ec2.internal kubelet[2345]: E1112 10:00:01.123456    2345 '
            'kubelet.go:2412] "Container runtime network not ready" networkReady="NetworkReady=false"')
    [got] = read(line)
    assert got.text.startswith('"Container runtime network not ready"')
    assert got.source == "kubelet kubelet.go"


def test_short_iso_journal_lines_are_unwrapped_too() -> None:
    [got] = read("2024-03-01T10:00:01+0000 ip-10-0-1-2 containerd[812]: failed to pull image")
    assert (got.text, got.source) == ("failed to pull image", "containerd")


def test_a_bare_syslog_tag_starts_a_line_of_its_own() -> None:
    # journal lines whose date and host the reporter cut: each row is its own record, never a continuation
    paste = ("kubelet[4744]: I0421 15:53:58.700793    4744 status_manager.go:152] Starting to sync pod status with apiserver\n"
             "kubelet[4744]: I0421 15:53:58.700822    4744 volume_manager.go:248] Starting Kubelet Volume Manager\n"
             'kubelet[4744]: E0421 15:53:58.800896    4744 kubelet.go:2247] node "worker-3" not found\n')
    got = read(paste)
    assert [line.text for line in got] == ["Starting to sync pod status with apiserver",
                                           "Starting Kubelet Volume Manager", 'node "worker-3" not found']
    assert got[2].source == "kubelet kubelet.go"


def test_kubectl_logs_prefix_names_container_and_pod_base() -> None:
    rec = {"level": "error", "caller": "ipamd/ipamd.go:512", "msg": "Failed to allocate ENI"}
    [got] = read("[pod/aws-node-x7k2p/aws-node] " + json.dumps(rec))
    assert got.text == "Failed to allocate ENI"
    assert got.source.split()[:2] == ["aws-node", "aws-node"]
    assert "ipamd/ipamd.go" in got.source


def test_stern_prefix_is_cut() -> None:
    rec = {"level": "ERROR", "logger": "controller", "message": "failed listing instance types"}
    [got] = read("karpenter-6b8f9c7d5-x2x9k controller " + json.dumps(rec))
    assert got.text == "failed listing instance types"
    assert got.source.startswith("controller karpenter")


def test_a_log_viewers_time_stamp_glued_to_the_message_is_cut() -> None:
    got = texts("11/20/2017 10:43:30 PMpanic: runtime error: invalid memory address or nil pointer dereference\n"
                "1/2/2020 1:02:03 AM [signal SIGSEGV: segmentation violation code=0x1 addr=0x0]")
    assert got == ["panic: runtime error: invalid memory address or nil pointer dereference",
                   "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0]"]
    assert texts("10/12/2020 the date alone is part of the message") == [
        "10/12/2020 the date alone is part of the message"]


def test_cloudwatch_quoted_json_record_is_decoded_then_unwrapped() -> None:
    rec = json.dumps({"level": "ERROR", "message": "Reconciler error", "error": "creating instance, boom"})
    got = texts(json.dumps(rec))
    assert got == ["Reconciler error", "creating instance, boom"]


def test_escaped_quotes_and_newlines_inside_a_line_are_undone() -> None:
    line = r'err="failed to \"StartContainer\" for \"app\" with CrashLoopBackOff: \"back-off 5m0s\""'
    assert texts(line) == ['err="failed to "StartContainer" for "app" with CrashLoopBackOff: "back-off 5m0s""']
    twice = r'error: \"failed calling webhook \\\"vpod.elbv2.k8s.aws\\\": no endpoints\"'
    assert texts(twice) == ['error: "failed calling webhook "vpod.elbv2.k8s.aws": no endpoints"']
    assert texts(r'msg: \"first\"\nsecond part') == ['msg: "first"', "second part"]


def test_a_windows_path_is_not_taken_for_an_escaped_line_break() -> None:
    assert texts(r"open C:\new\table.txt: access denied") == [r"open C:\new\table.txt: access denied"]


def test_the_opening_backtick_of_markdown_inline_code_is_dropped() -> None:
    rec = {"level": "ERROR", "logger": "controller.provisioner", "message": "skipping, unable to resolve"}
    assert texts("`" + json.dumps(rec)) == ["skipping, unable to resolve"]
    assert texts("```\nfoo\n```") == ["```", "foo", "```"]  # a fence line is not mistaken for inline code


def test_curled_quotes_are_straightened() -> None:
    # pastes copied from a web page or a chat client carry the quotes a typesetter curled; the message had straight ones
    text = "no kind \u201cKubeSchedulerConfiguration\u201d is registered for version \u2018v1\u2019"
    assert read(text)[0].text == "no kind \"KubeSchedulerConfiguration\" is registered for version 'v1'"
