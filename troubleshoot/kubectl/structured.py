"""Objects from ``-o yaml`` / ``-o json`` (and converted describe of CRDs).

Evidence for structured input is the ``field: value`` text of the fields a
finding relies on (``reason: OOMKilled``, ``message: ...``), which is how
those fields read in the YAML itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import yaml

from .resources import CLUSTER_SCOPED, Condition, Container, Event, Resource, canonical_kind
from .taints import Taint, Toleration, taint_from_dict, toleration_from_dict

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> list[Any]:
    """All documents of a YAML stream; a broken document is skipped, and the last one, when a
    paste was cut off mid-line (``sourc``), loses its last lines rather than everything."""
    try:
        return [d for d in yaml.load_all(text, Loader=_Loader) if d is not None]
    except yaml.YAMLError:
        pass
    docs: list[Any] = []
    parts = text.split("\n---")
    for i, part in enumerate(parts):
        doc = _load_one(part, trim=i == len(parts) - 1)
        if doc is not None:
            docs.append(doc)
    return docs


def _load_one(part: str, *, trim: bool) -> Any:
    lines = part.rstrip().split("\n")
    for cut in range(0, min(6, len(lines)) if trim else 1):
        try:
            doc = yaml.load("\n".join(lines[:len(lines) - cut]), Loader=_Loader)
        except yaml.YAMLError:
            continue
        if doc is not None:
            return doc
    return None


def load_json(text: str) -> list[Any]:
    try:
        return [json.loads(text)]
    except ValueError:
        return []


def iter_objects(doc: Any) -> Iterable[dict[str, Any]]:
    """Objects of a document, unwrapping ``kind: List`` / ``items:``."""
    if isinstance(doc, list):
        for item in doc:
            yield from iter_objects(item)
        return
    if not isinstance(doc, dict):
        return
    items = doc.get("items")
    if isinstance(items, list) and ("kind" not in doc or str(doc.get("kind", "")).endswith("List")):
        item_kind = str(doc.get("kind", ""))[:-4] if str(doc.get("kind", "")).endswith("List") else ""
        for item in items:
            if isinstance(item, dict):
                if item_kind and item_kind != "" and "kind" not in item:
                    item = {**item, "kind": item_kind}
                yield item
        return
    yield doc


def _d(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _m(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one (input may be malformed)."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _s(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _ev(key: str, value: Any) -> str:
    return f"{key}: {_s(value)}"


def _plain_keys(c: dict[str, Any]) -> dict[str, Any]:
    """``Type`` / ``Last Transition Time`` (describe spelling pasted as YAML) -> ``type`` / ``lastTransitionTime``."""
    out = {}
    for k, v in c.items():
        words = str(k).split()
        key = (words[0][:1].lower() + words[0][1:] + "".join(w[:1].upper() + w[1:] for w in words[1:])) if words else k
        out[key] = v
    return out


def conditions_from(items: Any) -> dict[str, Condition]:
    result: dict[str, Condition] = {}
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        return result
    for c in items:
        if isinstance(c, dict) and "type" not in c:
            c = _plain_keys(c)
        if not isinstance(c, dict) or not c.get("type"):
            continue
        cond = Condition(_s(c.get("type")), _s(c.get("status")), _s(c.get("reason")),
                         _s(c.get("message")).strip())
        cond.evidence = [f"type: {cond.type}, status: {cond.status}"
                         + (f", reason: {cond.reason}" if cond.reason else "")]
        if cond.message:
            cond.evidence.append(_ev("message", cond.message))
        result[cond.type] = cond
    return result


def _container_from(status: dict[str, Any], init: bool) -> Container:
    c = Container(name=_s(status.get("name")), init=init, image=_s(status.get("image")))
    for which, prefix in (("state", ""), ("lastState", "last_")):
        state = status.get(which) or {}
        if not isinstance(state, dict):
            continue
        for sname in ("waiting", "terminated", "running"):
            detail = state.get(sname)
            if isinstance(detail, dict):
                setattr(c, f"{prefix}state", sname.capitalize())
                setattr(c, f"{prefix}reason", _s(detail.get("reason")))
                setattr(c, f"{prefix}message", _s(detail.get("message")).strip())
                setattr(c, f"{prefix}exit_code", _int(detail.get("exitCode")))
                if detail.get("reason"):
                    c.evidence.append(_ev("reason", detail.get("reason")))
                if detail.get("message"):
                    c.evidence.append(_ev("message", _s(detail.get("message")).strip()))
                if detail.get("exitCode") is not None:
                    c.evidence.append(_ev("exitCode", detail.get("exitCode")))
                break
    if "ready" in status:
        c.ready = bool(status.get("ready"))
    c.restart_count = _int(status.get("restartCount"))
    return c


def _pod(res: Resource, obj: dict[str, Any]) -> None:
    spec, status = _m(obj.get("spec")), _m(obj.get("status"))
    res.phase = _s(status.get("phase"))
    res.status = res.phase
    res.reason = _s(status.get("reason"))
    res.message = _s(status.get("message")).strip()
    res.node_name = _s(spec.get("nodeName"))
    if res.reason:
        res.evidence.append(_ev("reason", res.reason))
    if res.message:
        res.evidence.append(_ev("message", res.message))
    res.conditions = conditions_from(status.get("conditions"))
    tols = [toleration_from_dict(t) for t in _list(spec.get("tolerations"))]
    res.tolerations = [t for t in tols if t is not None]
    sel = spec.get("nodeSelector")
    res.node_selector = {str(k): _s(v) for k, v in sel.items()} if isinstance(sel, dict) else {}
    for vol in _list(spec.get("volumes")):
        claim = _d(vol, "persistentVolumeClaim", "claimName")
        if claim:
            res.claims.append(str(claim))
    images = {c.get("name"): c.get("image") for c in _list(spec.get("containers"))
              if isinstance(c, dict)}
    for key, init in (("initContainerStatuses", True), ("containerStatuses", False)):
        for cs in _list(status.get(key)):
            if isinstance(cs, dict) and cs.get("name"):
                cont = _container_from(cs, init)
                cont.image = cont.image or _s(images.get(cont.name))
                res.containers[cont.name] = cont
    total = len(_list(spec.get("containers")))
    ready = sum(1 for c in res.containers.values() if not c.init and c.ready)
    if total:
        res.ready = f"{ready}/{total}"
    restarts = [c.restart_count for c in res.containers.values() if c.restart_count is not None]
    if restarts:
        res.restarts = sum(restarts)


def _node(res: Resource, obj: dict[str, Any]) -> None:
    spec = _m(obj.get("spec"))
    taints = [taint_from_dict(t) for t in _list(spec.get("taints"))]
    res.taints = [t for t in taints if t is not None]
    if spec.get("unschedulable"):
        res.fields["unschedulable"] = True
    res.conditions = conditions_from(_d(obj, "status", "conditions"))
    ready = res.conditions.get("Ready")
    if ready is not None:
        res.ready = {"True": "Ready", "False": "NotReady"}.get(ready.status, "Unknown")
        res.status = res.ready


def _karpenter(res: Resource, obj: dict[str, Any]) -> None:
    spec, status = _m(obj.get("spec")), _m(obj.get("status"))
    res.conditions = conditions_from(status.get("conditions"))
    ready = res.conditions.get("Ready")
    if ready is not None:
        res.ready = ready.status
        res.status = ready.status
    if res.kind == "NodeClaim":
        res.node_name = _s(status.get("nodeName"))
        res.fields["provider_id"] = _s(status.get("providerID") or status.get("providerId"))
        res.fields["nodepool"] = res.labels.get("karpenter.sh/nodepool", "")
        res.fields["nodeclass"] = _s(_d(spec, "nodeClassRef", "name"))
        taints = [taint_from_dict(t) for t in _list(spec.get("taints"))]
        res.taints = [t for t in taints if t is not None]
    elif res.kind == "NodePool":
        tspec = _m(_d(spec, "template", "spec"))
        res.fields["nodeclass"] = _s(_d(tspec, "nodeClassRef", "name"))
        taints = [taint_from_dict(t) for t in _list(tspec.get("taints"))]
        res.taints = [t for t in taints if t is not None]
        if isinstance(spec.get("limits"), dict):
            res.fields["limits"] = {str(k): _s(v) for k, v in spec["limits"].items()}
        if isinstance(status.get("resources"), dict):
            res.fields["resources"] = {str(k): _s(v) for k, v in status["resources"].items()}


def _pvc(res: Resource, obj: dict[str, Any]) -> None:
    spec, status = _m(obj.get("spec")), _m(obj.get("status"))
    res.phase = _s(status.get("phase"))
    res.status = res.phase
    res.fields["storage_class"] = _s(spec.get("storageClassName"))
    if spec.get("volumeName"):
        res.fields["volume"] = _s(spec.get("volumeName"))
    ann = _m(_d(obj, "metadata", "annotations"))
    if isinstance(ann, dict):
        prov = ann.get("volume.kubernetes.io/storage-provisioner") or ann.get(
            "volume.beta.kubernetes.io/storage-provisioner")
        if prov:
            res.fields["provisioner"] = _s(prov)
        if ann.get("volume.kubernetes.io/selected-node"):
            res.fields["selected_node"] = _s(ann["volume.kubernetes.io/selected-node"])
    res.conditions = conditions_from(status.get("conditions"))


def _workload(res: Resource, obj: dict[str, Any]) -> None:
    spec, status = _m(obj.get("spec")), _m(obj.get("status"))
    replicas = _int(spec.get("replicas"))
    res.fields["replicas"] = 1 if replicas is None else replicas
    for key, field_name in (("readyReplicas", "ready_replicas"), ("availableReplicas", "available_replicas"),
                            ("updatedReplicas", "updated_replicas"),
                            ("unavailableReplicas", "unavailable_replicas")):
        res.fields[field_name] = _int(status.get(key)) or 0
    res.conditions = conditions_from(status.get("conditions"))
    res.ready = f"{res.fields['ready_replicas']}/{res.fields['replicas']}"


_FILLERS = {
    "Pod": _pod, "Node": _node, "NodeClaim": _karpenter, "NodePool": _karpenter, "Machine": _karpenter,
    "EC2NodeClass": _karpenter, "PersistentVolumeClaim": _pvc, "Deployment": _workload,
    "ReplicaSet": _workload, "StatefulSet": _workload,
}


def event_from_object(obj: dict[str, Any]) -> Event:
    inv = _m(obj.get("involvedObject") or obj.get("regarding"))
    message = _s(obj.get("message") or obj.get("note")).strip()
    source = _s(_d(obj, "source", "component") or obj.get("reportingController")
                or obj.get("reportingComponent"))
    count = _int(obj.get("count")) or _int(_d(obj, "series", "count")) or 1
    kind = _s(inv.get("kind"))
    ns = _s(inv.get("namespace")) or _s(_d(obj, "metadata", "namespace"))
    evidence = [_ev("reason", obj.get("reason"))]
    if message:
        evidence.append(_ev("message", message))
    return Event(type=_s(obj.get("type")) or "Normal", reason=_s(obj.get("reason")), message=message,
                 kind=canonical_kind(kind) if kind else "", namespace=ns or None,
                 name=_s(inv.get("name")), source=source, count=count, evidence=evidence)


_NODE_CONDITION_TYPES = {"MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable", "OutOfDisk"}
_NODECLAIM_CONDITION_TYPES = {"Launched", "Registered", "Initialized", "Drifted", "ConsolidationBlocked"}
_NODEPOOL_CONDITION_TYPES = {"NodeClassReady", "NodeRegistrationHealthy"}
_NODECLASS_CONDITION_TYPES = {"SubnetsReady", "SecurityGroupsReady", "InstanceProfileReady", "AMIsReady"}


def infer_kind(obj: dict[str, Any]) -> str:
    """The kind of an object pasted without ``kind:`` (a ``status:`` block, a bare ``conditions`` list)."""
    status = obj.get("status") if isinstance(obj.get("status"), dict) else obj
    if not isinstance(status, dict):
        return ""
    if "containerStatuses" in status or "initContainerStatuses" in status or "podIP" in status:
        return "Pod"
    conds = status.get("conditions")
    if isinstance(conds, dict):
        conds = [conds]
    types = {str(_plain_keys(c).get("type", "")) for c in conds or [] if isinstance(c, dict)}
    if types & _NODE_CONDITION_TYPES:
        return "Node"
    if types & _NODECLAIM_CONDITION_TYPES:
        return "NodeClaim"
    if types & _NODEPOOL_CONDITION_TYPES:
        return "NodePool"
    if types & _NODECLASS_CONDITION_TYPES:
        return "EC2NodeClass"
    if types & {"PodScheduled", "ContainersReady", "Initialized"} or "phase" in status:
        return "Pod"
    return ""


def resource_from_object(obj: dict[str, Any], seq: Iterator[int] | None = None) -> Resource | Event | None:
    kind = _s(obj.get("kind"))
    if not kind and seq is not None:
        # a status block pasted on its own: an object the upload shows only in part
        kind = infer_kind(obj)
        if not kind:
            return None
        name = _s(_d(obj, "metadata", "name"))
        if "status" not in obj:
            obj = {"status": obj}
        res = Resource(kind=kind, namespace=None if name else "", name=name or f"#{next(seq)}", priority=3,
                       sources={"structured"}, anonymous=not name)
        filler = _FILLERS.get(kind)
        if filler is not None:
            filler(res, obj)
        return res
    if not kind:
        return None
    if kind == "Event":
        return event_from_object(obj)
    meta = _m(obj.get("metadata"))
    name = _s(meta.get("name"))
    if not name:
        return None
    ns = "" if kind in CLUSTER_SCOPED else (_s(meta.get("namespace")) or None)
    res = Resource(kind=kind, namespace=ns, name=name, priority=3, sources={"structured"})
    labels = meta.get("labels")
    if isinstance(labels, dict):
        res.labels = {str(k): _s(v) for k, v in labels.items()}
    if meta.get("deletionTimestamp"):
        res.deleting = True
    filler = _FILLERS.get(kind)
    if filler is not None:
        filler(res, obj)
    return res


def parse_structured(docs: list[Any], seq: Iterator[int] | None = None) -> tuple[list[Resource], list[Event]]:
    resources: list[Resource] = []
    events: list[Event] = []
    for doc in docs:
        for obj in iter_objects(doc):
            item = resource_from_object(obj, seq)
            if isinstance(item, Event):
                events.append(item)
            elif item is not None:
                resources.append(item)
    return resources, events


__all__ = ["load_yaml", "load_json", "parse_structured", "resource_from_object", "conditions_from",
           "Taint", "Toleration"]
