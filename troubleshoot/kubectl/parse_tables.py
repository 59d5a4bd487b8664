"""Turn ``kubectl get`` tables into resources and events."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .resources import Event, Resource, canonical_kind, event_type_for, normal_reason
from .splitter import command_words
from .tables import Header, parse_header, row_dict, split_row

_RESTARTS = re.compile(r"^(\d+)")
_COUNT_OVER = re.compile(r"\(x(\d+) over")


@dataclass
class ParseResult:
    resources: list[Resource] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)
    logs: list[tuple[str, str, str]] = field(default_factory=list)
    records: list[Any] = field(default_factory=list)     # textscan.LogRecord


def command_namespace(command: str | None) -> str | None:
    """The namespace a command was run against (``-n x``), ``None`` if unknown."""
    words = command_words(command)
    for i, word in enumerate(words):
        if word in ("-n", "--namespace") and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--namespace="):
            return word.split("=", 1)[1]
        if word.startswith("-n") and len(word) > 2 and not word.startswith("--"):
            return word[2:]
    return None


def _none(value: str) -> str:
    return "" if value in ("<none>", "<unknown>", "<nil>", "") else value


def _split_name(raw: str, default_kind: str) -> tuple[str, str]:
    """``pod/web-1`` -> (Pod, web-1); plain names keep ``default_kind``."""
    if "/" in raw:
        kind, name = raw.split("/", 1)
        if kind and "." not in name:
            return canonical_kind(kind), name
    return default_kind, raw


def _rows(text: str) -> tuple[Header | None, list[tuple[str, list[str] | None]]]:
    lines = text.split("\n")
    header = parse_header(lines[0]) if lines else None
    if header is None:
        return None, [(l, None) for l in lines]
    return header, [(line, split_row(header, line)) for line in lines[1:] if line.strip()]


def _generic(kind: str, text: str, command: str | None,
             fill: Callable[[Resource, dict[str, str]], None]) -> ParseResult:
    result = ParseResult()
    header, rows = _rows(text)
    if header is None:
        result.unparsed.extend(l for l, _ in rows)
        return result
    cmd_ns = command_namespace(command)
    for line, cells in rows:
        if cells is None:
            result.unparsed.append(line)
            continue
        row = row_dict(header, cells)
        rkind, name = _split_name(row.get("NAME") or row.get("POD", ""), kind)
        if not name:
            result.unparsed.append(line)
            continue
        ns = row.get("NAMESPACE") or cmd_ns
        res = Resource(kind=rkind, namespace=ns, name=name, priority=1,
                       evidence=[line], sources={"table"})
        fill(res, row)
        result.resources.append(res)
    return result


# ------------------------------------------------------------------ pods

def _fill_pod(res: Resource, row: dict[str, str]) -> None:
    status = row.get("STATUS", "")
    res.status = status
    res.ready = row.get("READY", "")
    m = _RESTARTS.match(row.get("RESTARTS", ""))
    if m:
        res.restarts = int(m.group(1))
    res.node_name = _none(row.get("NODE", "") or row.get("HOST", "").rstrip("/"))
    if status == "Terminating":
        res.deleting = True
    phase = {
        "Running": "Running", "Pending": "Pending", "Completed": "Succeeded",
        "Succeeded": "Succeeded", "Failed": "Failed", "Evicted": "Failed",
        "ContainerCreating": "Pending", "PodInitializing": "Pending",
        "SchedulingGated": "Pending", "Unknown": "Unknown",
    }.get(status)
    if phase is None and status.startswith("Init:"):
        phase = "Pending"
    if status.startswith("Init:") or status in ("ContainerCreating", "PodInitializing"):
        res.fields["scheduled"] = True   # containers are being set up on a node
    if phase:
        res.phase = phase
    if status in ("Evicted", "OutOfcpu", "OutOfmemory", "OutOfpods", "NodeAffinity",
                  "UnexpectedAdmissionError", "Shutdown", "NodeShutdown"):
        res.reason = status


def parse_pods(text: str, command: str | None) -> ParseResult:
    return _generic("Pod", text, command, _fill_pod)


# ------------------------------------------------------------------ nodes

def _fill_node(res: Resource, row: dict[str, str]) -> None:
    res.status = row.get("STATUS", "")
    parts = res.status.split(",")
    res.ready = parts[0]
    if "SchedulingDisabled" in parts:
        res.fields["unschedulable"] = True
    for key, col in (("version", "VERSION"), ("internal_ip", "INTERNAL-IP"), ("roles", "ROLES")):
        if row.get(col):
            res.fields[key] = row[col]


def parse_nodes(text: str, command: str | None) -> ParseResult:
    return _generic("Node", text, command, _fill_node)


# ------------------------------------------------------------- karpenter

def _fill_nodeclaim(res: Resource, row: dict[str, str]) -> None:
    res.ready = row.get("READY", "")
    res.status = res.ready
    res.node_name = _none(row.get("NODE", ""))
    for key, col in (("instance_type", "TYPE"), ("capacity_type", "CAPACITY"), ("zone", "ZONE"),
                     ("provider_id", "ID"), ("nodepool", "NODEPOOL"), ("nodeclass", "NODECLASS")):
        value = _none(row.get(col, ""))
        if value:
            res.fields[key] = value


def _fill_ready_only(res: Resource, row: dict[str, str]) -> None:
    res.ready = row.get("READY", "")
    res.status = res.ready
    if row.get("NODECLASS"):
        res.fields["nodeclass"] = row["NODECLASS"]
    if row.get("NODES"):
        res.fields["nodes"] = row["NODES"]


def parse_nodeclaims(text: str, command: str | None) -> ParseResult:
    return _generic("NodeClaim", text, command, _fill_nodeclaim)


def parse_nodepools(text: str, command: str | None) -> ParseResult:
    return _generic("NodePool", text, command, _fill_ready_only)


def parse_ec2nodeclasses(text: str, command: str | None) -> ParseResult:
    return _generic("EC2NodeClass", text, command, _fill_ready_only)


# ------------------------------------------------------------ workloads

def _fill_pvc(res: Resource, row: dict[str, str]) -> None:
    res.status = row.get("STATUS", "")
    res.phase = res.status
    sc = _none(row.get("STORAGECLASS", ""))
    res.fields["storage_class"] = sc
    if _none(row.get("VOLUME", "")):
        res.fields["volume"] = row["VOLUME"]


def _fill_deployment(res: Resource, row: dict[str, str]) -> None:
    ready = row.get("READY", "")
    res.ready = ready
    if "/" in ready:
        have, want = ready.split("/", 1)
        if have.isdigit() and want.isdigit():
            res.fields["ready_replicas"] = int(have)
            res.fields["replicas"] = int(want)
    if row.get("AVAILABLE", "").isdigit():
        res.fields["available_replicas"] = int(row["AVAILABLE"])
    if row.get("UP-TO-DATE", "").isdigit():
        res.fields["updated_replicas"] = int(row["UP-TO-DATE"])


def _fill_replicaset(res: Resource, row: dict[str, str]) -> None:
    for key, col in (("replicas", "DESIRED"), ("current_replicas", "CURRENT"),
                     ("ready_replicas", "READY")):
        if row.get(col, "").isdigit():
            res.fields[key] = int(row[col])


def parse_pvcs(text: str, command: str | None) -> ParseResult:
    return _generic("PersistentVolumeClaim", text, command, _fill_pvc)


def parse_deployments(text: str, command: str | None) -> ParseResult:
    return _generic("Deployment", text, command, _fill_deployment)


def parse_replicasets(text: str, command: str | None) -> ParseResult:
    return _generic("ReplicaSet", text, command, _fill_replicaset)


# ---------------------------------------------------------------- events

def parse_events(text: str, command: str | None) -> ParseResult:
    """``kubectl get events`` in the current, wide and pre-1.14 layouts."""
    result = ParseResult()
    header, rows = _rows(text)
    if header is None:
        result.unparsed.extend(l for l, _ in rows)
        return result
    cmd_ns = command_namespace(command)
    last: Event | None = None
    for line, cells in rows:
        event = _event_from_row(header, cells, cmd_ns, line) if cells else None
        if event is None:
            if last is not None:
                # a message that wrapped onto the next line
                last.message = f"{last.message} {line.strip()}"
                last.evidence.append(line)
            else:
                result.unparsed.append(line)
            continue
        result.events.append(event)
        last = event
    return result


def _event_from_row(header: Header, cells: list[str], cmd_ns: str | None,
                    line: str) -> Event | None:
    row = row_dict(header, cells)
    etype = row.get("TYPE", "")
    reason = normal_reason(row.get("REASON", ""))
    if "TYPE" not in row and reason:
        etype = event_type_for(reason)     # kubectl < 1.14 printed no TYPE column
    if etype not in ("Normal", "Warning", "Error"):
        return None
    obj = row.get("OBJECT", "")
    kind, name = "", ""
    if obj and "/" in obj:
        kind, name = obj.split("/", 1)
    elif "KIND" in row:
        # pre-1.14 layout: NAME is the involved object's name
        kind, name = row["KIND"], row.get("NAME", "")
    count = 1
    if row.get("COUNT", "").isdigit():
        count = int(row["COUNT"])
    m = _COUNT_OVER.search(row.get("LAST SEEN", ""))
    if m:
        count = int(m.group(1))
    return Event(
        type=etype, reason=reason, message=row.get("MESSAGE", ""),
        kind=canonical_kind(kind) if kind else "", namespace=row.get("NAMESPACE") or cmd_ns,
        name=name, source=row.get("SOURCE", ""), age=row.get("LAST SEEN", row.get("LASTSEEN", "")),
        count=count, evidence=[line],
    )


# ------------------------------------------------------- any other table

_NODE_WORDS = frozenset({"Ready", "NotReady", "Unknown", "Ready,SchedulingDisabled", "NotReady,SchedulingDisabled"})
_PVC_WORDS = frozenset({"Bound", "Lost"})
_FILLERS: dict[str, Callable[[Resource, dict[str, str]], None]] = {}


def _guess_kind(row: dict[str, str], command_kind: str) -> str:
    """The kind of a row in a table whose columns are not a known layout."""
    if command_kind:
        return command_kind
    status = row.get("STATUS", "")
    if status in _NODE_WORDS and "READY" not in row:
        return "Node"
    if "/" in row.get("READY", "") and status:
        return "Pod"
    if status in _PVC_WORDS or (status == "Pending" and "VOLUME" in row):
        return "PersistentVolumeClaim"
    return ""


def parse_generic(text: str, command: str | None) -> ParseResult:
    """Tables with other columns (old kubectl, custom columns, ``get all`` sections): each row of a
    kind the analysers know becomes a resource of the kind its NAME (``pod/x``), the command or its
    STATUS tells; the text also goes to the matcher."""
    result = ParseResult()
    header, rows = _rows(text)
    if header is None or "NAME" not in header.names:
        result.unparsed.append(text)
        return result
    words = command_words(command)
    target = words[2] if len(words) >= 3 and words[1] == "get" else ""
    command_kind = canonical_kind(target) if target and not target.startswith("-") and target != "all" else ""
    cmd_ns = command_namespace(command)
    for line, cells in rows:
        if cells is None:
            continue
        row = row_dict(header, cells)
        kind, name = _split_name(row.get("NAME", ""), "")
        kind = kind or _guess_kind(row, command_kind)
        if kind not in _FILLERS or not name:
            continue
        res = Resource(kind=kind, namespace=row.get("NAMESPACE") or cmd_ns, name=name, priority=1,
                       evidence=[line], sources={"table"})
        filler = _FILLERS.get(kind)
        if filler is not None:
            filler(res, row)
        result.resources.append(res)
    result.unparsed.append(text)    # its columns may still be what an article describes (HPA TARGETS, ...)
    return result


TABLE_PARSERS: dict[str, Callable[[str, str | None], ParseResult]] = {
    "generic-table": parse_generic,
    "pods-table": parse_pods,
    "nodes-table": parse_nodes,
    "events-table": parse_events,
    "nodeclaims-table": parse_nodeclaims,
    "nodepools-table": parse_nodepools,
    "ec2nodeclasses-table": parse_ec2nodeclasses,
    "pvc-table": parse_pvcs,
    "deployments-table": parse_deployments,
    "replicasets-table": parse_replicasets,
}

_FILLERS.update({"Pod": _fill_pod, "Node": _fill_node, "PersistentVolumeClaim": _fill_pvc,
                 "Deployment": _fill_deployment, "ReplicaSet": _fill_replicaset,
                 "NodeClaim": _fill_nodeclaim, "NodePool": _fill_ready_only, "EC2NodeClass": _fill_ready_only})
