"""Map parsed ``kubectl describe`` objects to resources."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

from .describe import (
    DescribeObject,
    DNode,
    parse_object,
    read_events_table,
    read_table,
    reindent_flat,
    split_objects,
    to_plain,
)
from .parse_tables import ParseResult, command_namespace
from .resources import Condition, Container, Event, Resource, canonical_kind, event_type_for, normal_reason
from .splitter import command_words
from .structured import resource_from_object
from .taints import parse_taint_text, parse_toleration_text
from .textscan import kind_for_reasons, named_object, scheduler_reason

_COUNT_OVER = re.compile(r"\(x(\d+) over")
_REPLICAS = re.compile(r"(\d+) desired \| (\d+) updated \| (\d+) total \| (\d+) available"
                       r"(?: \| (\d+) unavailable)?")


def _none(value: str) -> str:
    return "" if value in ("<none>", "<unknown>", "<nil>", "<unset>") else value


def detect_kind(obj: DescribeObject, command: str | None) -> str:
    explicit = obj.get("Kind")
    if explicit:
        return explicit
    words = command_words(command)
    if len(words) >= 3 and words[1] == "describe":
        target = next((w for w in words[2:] if not w.startswith("-")), "")
        if target:
            return canonical_kind(target.split("/", 1)[0])
    keys = obj.keys()
    if "Containers" in keys or "Init Containers" in keys:
        return "Pod"
    if "Taints" in keys and ("Unschedulable" in keys or "Addresses" in keys or "Roles" in keys):
        return "Node"
    if "StorageClass" in keys and ("Access Modes" in keys or "VolumeMode" in keys):
        return "PersistentVolumeClaim"
    if "StrategyType" in keys:
        return "Deployment"
    if "Pods Status" in keys and "Pod Template" in keys:
        return "ReplicaSet"
    return ""


def _labels(node: DNode | None) -> dict[str, str]:
    result: dict[str, str] = {}
    if node is None:
        return result
    for item in node.multiline_values():
        if "=" in item:
            k, v = item.split("=", 1)
            result[k] = v
    return result


def _events(obj: DescribeObject, kind: str, ns: str | None, name: str) -> list[Event]:
    events = []
    for row in read_events_table(obj.child("Events")):
        c = row.cells
        m = _COUNT_OVER.search(c.get("Age", ""))
        reason = normal_reason(c.get("Reason", ""))
        events.append(Event(
            type=c.get("Type", "") or event_type_for(reason), reason=reason, message=c.get("Message", ""),
            kind=kind, namespace=ns, name=name, source=c.get("From", ""), age=c.get("Age", ""),
            count=int(m.group(1)) if m else 1, evidence=list(row.lines)))
    return events


def _table_conditions(node: DNode | None) -> dict[str, Condition]:
    result: dict[str, Condition] = {}
    for row in read_table(node):
        c = row.cells
        ctype = c.get("Type", "")
        if not ctype:
            continue
        result[ctype] = Condition(ctype, c.get("Status", ""), c.get("Reason", ""),
                                  c.get("Message", ""), list(row.lines))
    return result


def _state(node: DNode | None) -> tuple[str, str, str, int | None, list[str]]:
    if node is None:
        return "", "", "", None, []
    reason, message, code = node.get("Reason"), node.get("Message"), node.get("Exit Code")
    lines = [node.line] + [c.line for c in node.children
                           if c.key in ("Reason", "Message", "Exit Code", "Signal")]
    return node.value, reason, message, int(code) if code.lstrip("-").isdigit() else None, lines


def _containers(block: DNode | None, init: bool) -> dict[str, Container]:
    result: dict[str, Container] = {}
    if block is None:
        return result
    for cnode in block.children:
        if cnode.key is None:
            continue
        cont = Container(name=cnode.key, init=init, image=cnode.get("Image"))
        cont.state, cont.reason, cont.message, cont.exit_code, ev1 = _state(cnode.child("State"))
        (cont.last_state, cont.last_reason, cont.last_message, cont.last_exit_code,
         ev2) = _state(cnode.child("Last State"))
        ready = cnode.get("Ready")
        if ready:
            cont.ready = ready == "True"
        rc = cnode.get("Restart Count")
        if rc.isdigit():
            cont.restart_count = int(rc)
        cont.evidence = ev1 + ev2
        for extra in ("Ready", "Restart Count"):
            n = cnode.child(extra)
            if n is not None and (cont.state != "Running" or extra == "Ready"):
                cont.evidence.append(n.line)
        result[cont.name] = cont
    return result


def _pod(res: Resource, obj: DescribeObject) -> None:
    status = obj.get("Status")
    res.evidence.append(obj.child("Status").line if obj.child("Status") else "")
    if status.startswith("Terminating"):
        res.deleting = True
        res.status = "Terminating"
    else:
        res.phase = status
        res.status = status
    res.reason = obj.get("Reason")
    res.message = obj.get("Message")
    for key in ("Reason", "Message"):
        node = obj.child(key)
        if node is not None:
            res.evidence.append(node.line)
    res.node_name = _none(obj.get("Node")).split("/", 1)[0]
    tol_node = obj.child("Tolerations")
    if tol_node is not None:
        tols = [parse_toleration_text(v) for v in tol_node.multiline_values()]
        res.tolerations = [t for t in tols if t is not None]
    sel = obj.child("Node-Selectors")
    if sel is not None:
        res.node_selector = _labels(sel)
    res.conditions = _table_conditions(obj.child("Conditions"))
    res.containers = _containers(obj.child("Init Containers"), True)
    res.containers.update(_containers(obj.child("Containers"), False))
    if not res.containers and (obj.child("State") is not None or obj.child("Last State") is not None):
        # a container's block pasted on its own: State / Last State / Restart Count at the top
        res.containers = _containers(DNode(None, "", -1, "", [DNode("", "", 0, "", obj.top.children)]), False)
    regular = [c for c in res.containers.values() if not c.init]
    if regular and all(c.ready is not None for c in regular):
        res.ready = f"{sum(1 for c in regular if c.ready)}/{len(regular)}"
    counts = [c.restart_count for c in res.containers.values() if c.restart_count is not None]
    if counts:
        res.restarts = sum(counts)
    volumes = obj.child("Volumes")
    for vol in volumes.children if volumes is not None else []:
        claim = vol.get("ClaimName")
        if claim:
            res.claims.append(claim)


def _node(res: Resource, obj: DescribeObject) -> None:
    taint_node = obj.child("Taints")
    if taint_node is not None:
        taints = [parse_taint_text(v) for v in taint_node.multiline_values()]
        res.taints = [t for t in taints if t is not None]
        if res.taints:
            res.fields["taint_lines"] = taint_node.lines()
    if obj.get("Unschedulable") == "true":
        res.fields["unschedulable"] = True
    res.conditions = _table_conditions(obj.child("Conditions"))
    ready = res.conditions.get("Ready")
    if ready is not None:
        res.ready = {"True": "Ready", "False": "NotReady"}.get(ready.status, "Unknown")
        res.status = res.ready


def _pvc(res: Resource, obj: DescribeObject) -> None:
    res.phase = res.status = obj.get("Status")
    res.fields["storage_class"] = _none(obj.get("StorageClass"))
    if obj.child("Status") is not None:
        res.evidence.append(obj.child("Status").line)
    if obj.child("StorageClass") is not None:
        res.evidence.append(obj.child("StorageClass").line)
    if _none(obj.get("Volume")):
        res.fields["volume"] = obj.get("Volume")
    used_by = obj.child("Used By")
    if used_by is not None:
        res.fields["used_by"] = used_by.multiline_values()
    ann = obj.child("Annotations")
    for item in ann.multiline_values() if ann is not None else []:
        key, _, value = item.partition(": ")
        if key.endswith("storage-provisioner"):
            res.fields["provisioner"] = value.strip()
        elif key == "volume.kubernetes.io/selected-node":
            res.fields["selected_node"] = value.strip()


def _workload(res: Resource, obj: DescribeObject) -> None:
    replicas = obj.get("Replicas")
    m = _REPLICAS.search(replicas)
    if m:
        res.fields.update(replicas=int(m.group(1)), updated_replicas=int(m.group(2)),
                          available_replicas=int(m.group(4)),
                          unavailable_replicas=int(m.group(5) or 0))
    else:
        m2 = re.search(r"(\d+) current / (\d+) desired", replicas)
        if m2:
            res.fields.update(current_replicas=int(m2.group(1)), replicas=int(m2.group(2)))
    res.conditions = _table_conditions(obj.child("Conditions"))


def _camel(key: str) -> str:
    words = key.replace("-", " ").split()
    if not words:
        return key
    first = words[0].lower()
    rest = [w if w.isupper() else w[:1].upper() + w[1:] for w in words[1:]]
    return first + "".join(rest)


def _camelize(value: Any) -> Any:
    if isinstance(value, dict):
        return {_camel(k): _camelize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camelize(v) for v in value]
    return value


def _crd(obj: DescribeObject, kind: str) -> Resource | None:
    plain: dict[str, Any] = {}
    for node in obj.top.children:
        if node.key in ("Spec", "Status"):
            plain[node.key.lower()] = _camelize(to_plain(node))
    plain["kind"] = kind
    plain["metadata"] = {"name": obj.get("Name"), "namespace": _none(obj.get("Namespace")),
                         "labels": _labels(obj.child("Labels"))}
    res = resource_from_object(plain)
    if not isinstance(res, Resource):
        return None
    res.priority = 2
    res.sources = {"describe"}
    _condition_lines(obj, res)
    return res


def _condition_lines(obj: DescribeObject, res: Resource) -> None:
    """Give CRD conditions the verbatim describe lines as evidence."""
    status = obj.child("Status")
    conds = status.child("Conditions") if status is not None else None
    if conds is None:
        return
    group: list[DNode] = []
    groups: list[list[DNode]] = []
    for child in conds.children:
        if child.key is not None and any(g.key == child.key for g in group):
            groups.append(group)
            group = []
        group.append(child)
    if group:
        groups.append(group)
    for group in groups:
        ctype = next((g.value for g in group if g.key == "Type"), "")
        cond = res.conditions.get(ctype)
        if cond is not None:
            cond.evidence = [g.line for g in group if g.key in ("Type", "Status", "Reason", "Message")
                             and (g.value or g.key != "Message")]


_MAPPERS = {"Pod": _pod, "Node": _node, "PersistentVolumeClaim": _pvc,
            "Deployment": _workload, "ReplicaSet": _workload}


def parse_describe(text: str, command: str | None, *, seq: Iterator[int] | None = None) -> ParseResult:
    result = ParseResult()
    cmd_ns = command_namespace(command)
    seq = seq if seq is not None else itertools.count(1)
    for lines in split_objects(text):
        obj = parse_object(reindent_flat(lines))
        name = obj.get("Name")
        kind = detect_kind(obj, command) or fragment_kind(obj)
        if kind == "Event":
            event = _described_event(obj, lines)
            if event is not None:
                result.events.append(event)
                continue
        if not kind:
            result.unparsed.extend(lines)
            continue
        anonymous = not name
        if anonymous:
            name = _name_from_command(command) or ""
            anonymous = not name
        result.unparsed.extend(obj.unparsed)
        ns = _none(obj.get("Namespace")) or cmd_ns
        if kind in _MAPPERS:
            res = Resource(kind=kind, namespace=ns, name=name, priority=2, sources={"describe"})
            res.labels = _labels(obj.child("Labels"))
            _MAPPERS[kind](res, obj)
            res.evidence = [e for e in res.evidence if e]
        elif anonymous:
            res = Resource(kind=kind, namespace=ns, name=name, priority=2, sources={"describe"})
        else:
            crd = _crd(obj, kind)
            if crd is None:
                result.unparsed.extend(lines)
                continue
            res = crd
        owner = _owner(obj)
        if owner:
            res.fields["owner"] = owner
        events = _events(obj, kind, res.namespace, name)
        if anonymous:
            named = next((n for e in events if (n := named_object(e)) is not None and n[0] == kind), None)
            if named is not None:
                res.namespace, res.name = named[1] if named[1] is not None else ns, named[2]
            else:
                res.name, res.namespace, res.anonymous = f"#{next(seq)}", "", True
            if obj.keys() <= {"Events"}:
                res.sources, res.priority = {"event"}, 0      # only events: nothing else is known of it
            for event in events:
                event.namespace, event.name = res.namespace, res.name
        for event in events:
            res.add_event(event)
        result.resources.append(res)
    return result


def _name_from_command(command: str | None) -> str:
    words = command_words(command)
    if len(words) >= 3 and words[1] == "describe":
        rest = [w for w in words[2:] if not w.startswith("-")]
        if len(rest) >= 2:
            return rest[1]
        if rest and "/" in rest[0]:
            return rest[0].split("/", 1)[1]
    return ""


_OWNER = re.compile(r"^(?P<kind>\w+)/(?P<name>[\w.-]+)")


def _owner(obj: DescribeObject) -> tuple[str, str] | None:
    """The controller of a described object (``Controlled By: ReplicaSet/api-5d8f``)."""
    for key in ("Controlled By", "Created By", "Controllers", "Replication Controllers"):
        m = _OWNER.match(obj.get(key))
        if m:
            return canonical_kind(m.group("kind")), m.group("name")
    return None


# Condition types that tell which kind of object a Conditions table belongs to.
_NODE_CONDITIONS = frozenset({"MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable",
                              "OutOfDisk", "KernelDeadlock", "ReadonlyFilesystem"})
_POD_CONDITIONS = frozenset({"PodScheduled", "Initialized", "ContainersReady", "PodReadyToStartContainers"})
_NODECLAIM_CONDITIONS = frozenset({"Launched", "Registered", "Initialized", "Drifted", "Consolidatable",
                                   "ConsolidationBlocked", "InstanceTerminating", "Empty", "Expired"})


def fragment_kind(obj: DescribeObject) -> str:
    """The kind of a describe fragment that has no ``Name:`` (or of an object
    whose kind the keys do not give), from what the fragment shows."""
    keys = obj.keys()
    if keys & {"State", "Last State", "Restart Count", "Containers", "Init Containers", "QoS Class"}:
        return "Pod"
    if "Taints" in keys or "Allocated resources" in keys or "System Info" in keys:
        return "Node"
    types = {row.cells.get("Type", "") for row in read_table(obj.child("Conditions"))}
    if types & _NODE_CONDITIONS:
        return "Node"
    if types & _POD_CONDITIONS:
        return "Pod"
    if "Events" in keys:
        reasons = [normal_reason(r.cells.get("Reason", "")) for r in read_events_table(obj.child("Events"))]
        if reasons:
            return kind_for_reasons(reasons)
    return ""


def _described_event(obj: DescribeObject, lines: list[str]) -> Event | None:
    """``kubectl describe event``: the Event object with its Involved Object."""
    involved = obj.child("Involved Object")
    message = obj.get("Message")
    if involved is None and not message:
        return None
    reason = normal_reason(obj.get("Reason")) or scheduler_reason(message)
    etype = obj.get("Type") or (event_type_for(reason) if reason else "")
    kind = canonical_kind(involved.get("Kind")) if involved is not None and involved.get("Kind") else ""
    evidence = [n.line for n in (obj.child("Message"), obj.child("Reason")) if n is not None and n.value]
    count = obj.get("Count")
    return Event(type=etype or "Warning", reason=reason, message=message, kind=kind,
                 namespace=(involved.get("Namespace") if involved is not None else "") or None,
                 name=involved.get("Name") if involved is not None else "",
                 count=int(count) if count.isdigit() else 1, evidence=evidence or lines[:1])
