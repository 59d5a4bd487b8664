"""Splitting a pasted session into sections and detecting their formats."""

from __future__ import annotations

import pytest

from troubleshoot.kubectl import split_sections
from troubleshoot.kubectl.splitter import prompt_command, table_format


@pytest.mark.parametrize("line, command", [
    ("$ kubectl get pods -A", "kubectl get pods -A"),
    ("user@host:~$ kubectl get nodes", "kubectl get nodes"),
    ("ec2-user@ip-10-0-1-5:~/deploy$ kubectl describe pod x", "kubectl describe pod x"),
    ("[ec2-user@bastion ~]$ kubectl get events -A", "kubectl get events -A"),
    ("root@bastion:/# kubectl get pvc", "kubectl get pvc"),
    ("➜  ~ kubectl get nodeclaims", "kubectl get nodeclaims"),
    ("➜  infra git:(main) ✗ kubectl get nodepools", "kubectl get nodepools"),
    ("PS> kubectl logs api-1", "kubectl logs api-1"),
    ("PS C:\\Users\\ops> kubectl get pods", "kubectl get pods"),
    ("(venv) $ k get po", "k get po"),
    ("% kubectl get nodes", "kubectl get nodes"),
    ("kubectl describe node ip-10-0-1-5", "kubectl describe node ip-10-0-1-5"),
    ("$ aws eks describe-cluster --name prod", "aws eks describe-cluster --name prod"),
])
def test_prompt_lines_are_recognised(line, command):
    assert prompt_command(line) == (True, command)


@pytest.mark.parametrize("line", [
    "NAMESPACE   NAME   READY   STATUS",
    "# Please edit the object below.",
    "  message: 'containers with unready status: [app]'",
    "% Total    % Received % Xferd  Average Speed",
    "2024-05-14T09:00:00Z INFO starting $HOME",
    "Name:         default-x8z4k",
])
def test_other_lines_are_not_prompts(line):
    assert prompt_command(line)[0] is False


def test_bare_prompt_without_command_still_splits():
    assert prompt_command("$") == (True, None)
    assert prompt_command("user@host:~$ ") == (True, None)


@pytest.mark.parametrize("header, fmt", [
    ("NAMESPACE   NAME   READY   STATUS   RESTARTS   AGE", "pods-table"),
    ("NAME READY STATUS RESTARTS AGE", "pods-table"),
    ("NAME   READY   STATUS   RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES", "pods-table"),
    ("NAME   STATUS   ROLES   AGE   VERSION", "nodes-table"),
    ("NAMESPACE   LAST SEEN   TYPE   REASON   OBJECT   MESSAGE", "events-table"),
    ("LAST SEEN   TYPE   REASON   OBJECT   MESSAGE", "events-table"),
    ("LAST SEEN   FIRST SEEN   COUNT   NAME   KIND   SUBOBJECT   TYPE   REASON   SOURCE   MESSAGE",
     "events-table"),
    ("NAME   TYPE   CAPACITY   ZONE   NODE   READY   AGE", "nodeclaims-table"),
    ("NAME   NODECLASS   NODES   READY   AGE", "nodepools-table"),
    ("NAME   STATUS   VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   AGE", "pvc-table"),
    ("NAME   READY   UP-TO-DATE   AVAILABLE   AGE", "deployments-table"),
    ("NAME   DESIRED   CURRENT   READY   AGE", "replicasets-table"),
    ("NAME   CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%", "generic-table"),
])
def test_table_formats_by_header(header, fmt):
    assert table_format(header) == fmt


def test_ec2nodeclass_table_needs_the_command():
    assert table_format("NAME   READY   AGE", "kubectl get ec2nodeclass") == "ec2nodeclasses-table"
    assert table_format("NAME   READY   AGE", None) == "generic-table"


def test_mixed_session_sections(fixture_text):
    sections = split_sections(fixture_text("session-mixed.txt"))
    formats = [(s.format, s.command) for s in sections]
    assert ("pods-table", "kubectl get pods -A | grep -v Completed") in formats
    assert ("nodes-table", "kubectl get nodes") in formats
    assert ("describe", "kubectl -n batch describe pod etl-runner-6f7d8c9b5-t8w4n") in formats
    assert ("logs", "kubectl logs -n media image-resizer-7f9c8b6d5-p4k7m --previous") in formats
    assert ("deployments-table", "kubectl get deploy -n web") in formats
    assert ("pvc-table", "kubectl get pvc -n search") in formats
    assert [f for f, _ in formats].count("events-table") == 2
    # prompt lines are not part of any section
    assert not any(s.text.startswith("➜") for s in sections)


def test_start_line_points_at_first_line_of_section():
    text = "$ kubectl get nodes\nNAME   STATUS   ROLES   AGE   VERSION\nn1     Ready    <none>  1d    v1.29\n"
    (section,) = split_sections(text)
    assert section.start_line == 2
    assert text.split("\n")[section.start_line - 1].startswith("NAME")


def test_format_change_without_prompt_splits():
    text = (
        "NAME   STATUS   ROLES   AGE   VERSION\n"
        "n1     Ready    <none>  1d    v1.29\n"
        "\n"
        "Name:         web-1\n"
        "Namespace:    default\n"
        "Status:       Pending\n"
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  name: web-2\n"
        "{\n"
        '  "kind": "Node",\n'
        '  "metadata": {"name": "n2"}\n'
        "}\n"
        "some trailing words\n"
    )
    formats = [s.format for s in split_sections(text)]
    assert formats == ["nodes-table", "describe", "yaml", "json", "text"]


def test_yaml_documents_and_lists_stay_together(fixture_text):
    sections = split_sections(fixture_text("nodepool.yaml"))
    assert [s.format for s in sections] == ["yaml"]
    text = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n" \
           "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: b\nkind: List\n"
    assert [s.format for s in split_sections(text)] == ["yaml"]


def test_json_list_is_one_section(fixture_text):
    sections = split_sections(fixture_text("pods-list.json"))
    assert [s.format for s in sections] == ["json"]


def test_json_lines_logs_are_text_not_json():
    text = '{"level":"ERROR","msg":"could not launch nodeclaim"}\n{"level":"INFO","msg":"x"}\n'
    assert [s.format for s in split_sections(text)] == ["text"]


def test_indented_paste_is_dedented():
    text = "    NAME   STATUS   ROLES   AGE   VERSION\n    n1     NotReady <none>  1d    v1.29\n"
    (section,) = split_sections(text)
    assert section.format == "nodes-table"


def test_logs_command_keeps_everything_as_logs():
    text = "$ kubectl logs api-1\nNAME   READY   STATUS   RESTARTS   AGE\nName:   not a describe\n"
    (section,) = split_sections(text)
    assert section.format == "logs"


def test_windows_line_endings():
    text = "$ kubectl get nodes\r\nNAME   STATUS   ROLES   AGE   VERSION\r\nn1   Ready   <none>   1d   v1\r\n"
    (section,) = split_sections(text)
    assert section.format == "nodes-table"
    assert "\r" not in section.text


def test_empty_input():
    assert split_sections("") == []
    assert split_sections("\n\n   \n") == []
