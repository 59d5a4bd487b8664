"""Read what kubectl-like text hides in lines that are not a table or an object.

Real uploads often hold pieces rather than whole outputs:

* event rows cut out of ``kubectl describe`` without their ``Events:`` header
  (``Warning  FailedScheduling  2m  default-scheduler  0/3 nodes are ...``),
  or a scheduler message on its own (``0/5 nodes are available: ...``);
* events as controllers log them, in klog
  (``event.go:211] Event(v1.ObjectReference{Kind:"Pod", ...}): type: 'Warning' reason: ...``)
  or in OpenShift's summaries (``ns/x pod/y node/z - reason/BackOff ...``);
* ``kubectl get nodes`` / ``get pods`` rows without their header;
* controller and kubelet logs: klog, systemd journal lines, JSON (zap/logr),
  logfmt, and JSON copied field by field out of a log viewer.

Rows and events become resources and events like any parsed output; log lines
become ``LogRecord`` objects for the log analyser. Everything else is left for
the text matcher.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .resources import Event, Resource, canonical_kind, event_type_for, normal_reason

# -------------------------------------------------------------- log records


@dataclass
class LogRecord:
    component: str           # kubelet, karpenter, kube-scheduler, ... or "log" when unknown
    level: str               # error, warning, info, debug, fatal
    message: str
    line: str                # the input line(s), as evidence
    refs: list[tuple[str, str, str]] = field(default_factory=list)   # (kind, namespace, name)

    @property
    def is_error(self) -> bool:
        return self.level in ("error", "fatal")


_KLOG = re.compile(r"(?P<level>[IWEF])(?P<date>\d{4}) (?P<time>\d\d:\d\d:\d\d\.\d+)\s+\d+ "
                   r"(?P<file>[\w./-]+:\d+)\] (?P<msg>.*)$")
_JOURNAL = re.compile(r"^(?P<ts>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d)\s+(?:(?P<host>[\w.-]+)\s+)?"
                      r"(?P<proc>[\w.@-]+)(?:\[\d+\])?: (?P<msg>.*)$")
_LOGFMT_LEVEL = re.compile(r'(?:^|\s)level=(?P<level>"?\w+"?)')
_LOGFMT_MSG = re.compile(r'(?:^|\s)msg=(?P<msg>"(?:[^"\\]|\\.)*"|\S+)')
_LOGFMT_ERR = re.compile(r'(?:^|\s)err(?:or)?=(?P<err>"(?:[^"\\]|\\.)*"|\S+)')
_JSON_FIELD = re.compile(r'^\s*"(?P<key>[\w. -]+)"\s*:\s*(?P<value>.*?),?\s*$')
_LEVELS = {"i": "info", "w": "warning", "e": "error", "f": "fatal", "info": "info", "warn": "warning",
           "warning": "warning", "error": "error", "err": "error", "fatal": "fatal", "panic": "fatal",
           "dpanic": "fatal", "crit": "fatal", "critical": "fatal", "debug": "debug", "trace": "debug"}
_KLOG_KV_POD = re.compile(r'\bpod="(?P<ns>[\w.-]+)/(?P<name>[\w.-]+)"')
_KUBELET_POD = re.compile(r'\bpod "(?P<name>[\w.-]+)_(?P<ns>[\w.-]+)\(')
_KLOG_FILE_COMPONENT = (
    (("kubelet", "kuberuntime", "pod_workers", "eviction_manager", "pleg", "kubelet_node_status",
      "fsHandler", "remote_runtime", "operation_generator", "reconciler", "cni.go", "prober"), "kubelet"),
    (("node_lifecycle_controller", "replica_set", "deployment_controller", "garbagecollector"),
     "kube-controller-manager"),
    (("schedule_one", "scheduler.go", "factory.go", "generic_scheduler"), "kube-scheduler"),
)


def _level(raw: object) -> str:
    return _LEVELS.get(str(raw).strip('"').lower(), "info")


def _klog_component(file: str) -> str:
    for needles, name in _KLOG_FILE_COMPONENT:
        if any(n in file for n in needles):
            return name
    return "log"


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        try:
            return str(json.loads(value))
        except ValueError:
            return value[1:-1]
    return value


def _json_record(obj: dict[str, object], line: str) -> LogRecord | None:
    level = obj.get("level") or obj.get("severity") or obj.get("lvl")
    message = obj.get("message") or obj.get("msg")
    if level is None or not isinstance(message, str):
        return None
    error = obj.get("error") or obj.get("err")
    text = message + (f": {error}" if isinstance(error, str) and error and error not in message else "")
    component = "log"
    blob = line.lower()
    if "karpenter" in blob or "nodeclaim" in blob or "nodepool" in blob:
        component = "karpenter"
    elif isinstance(obj.get("logger"), str):
        component = str(obj["logger"]).split(".")[0] or "log"
    refs: list[tuple[str, str, str]] = []
    for kind in ("NodeClaim", "Pod", "Node", "NodePool", "EC2NodeClass"):
        ref = obj.get(kind)
        if isinstance(ref, dict) and isinstance(ref.get("name"), str) and ref["name"]:
            refs.append((kind, str(ref.get("namespace") or ""), ref["name"]))
        elif isinstance(ref, str) and ref and kind != "Node":
            ns, _, name = ref.rpartition("/")
            refs.append((kind, ns, name))
    if not refs and isinstance(obj.get("nodeclaim"), str) and obj["nodeclaim"]:
        refs.append(("NodeClaim", "", str(obj["nodeclaim"])))
    return LogRecord(component, _level(level), text, line, refs)


def log_record(line: str) -> LogRecord | None:
    """A log record from one line, or None when the line is not a log line."""
    stripped = line.strip()
    if stripped.startswith("{") and stripped.endswith("}") and '"' in stripped:
        try:
            obj = json.loads(stripped)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return _json_record(obj, line)
    component = ""
    message = line
    if line[:1].isupper() and line[3:4] == " " and ": " in line:
        m = _JOURNAL.match(line)
        if m:
            component = m.group("proc")
            message = m.group("msg")
    if "] " in message:
        k = _KLOG.search(message)
        if k:
            msg = k.group("msg")
            refs = _pod_refs(msg)
            return LogRecord(component or _klog_component(k.group("file")), _level(k.group("level")),
                             msg, line, refs)
    if "level=" in message:
        lv = _LOGFMT_LEVEL.search(message)
        mm = _LOGFMT_MSG.search(message)
        if lv and mm:
            text = _unquote(mm.group("msg"))
            err = _LOGFMT_ERR.search(message)
            if err:
                text += f": {_unquote(err.group('err'))}"
            return LogRecord(component or "log", _level(lv.group("level")), text, line)
    if component:
        return LogRecord(component, "error" if _looks_failed(message) else "info", message, line,
                         _pod_refs(message))
    return None


_FAILED_WORDS = re.compile(r"\b(?:error|failed|failure|fatal|unable to|cannot|could not|denied|refused)\b",
                           re.I)


def _looks_failed(text: str) -> bool:
    return bool(_FAILED_WORDS.search(text))


def _pod_refs(message: str) -> list[tuple[str, str, str]]:
    m = _KLOG_KV_POD.search(message) or _KUBELET_POD.search(message)
    return [("Pod", m.group("ns"), m.group("name"))] if m else []


def json_field_block(lines: list[str]) -> LogRecord | None:
    """One log record copied out of a log viewer, one ``"key": value`` per line."""
    fields: dict[str, str] = {}
    for line in lines:
        m = _JSON_FIELD.match(line)
        if m:
            fields[m.group("key")] = _unquote(m.group("value"))
    if "level" not in fields or not ({"message", "msg"} & set(fields)):
        return None
    obj: dict[str, object] = dict(fields)
    return _json_record(obj, "\n".join(l for l in lines if l.strip()))


# ------------------------------------------------------------ event rows

_EVENT_ROW = re.compile(r"^\s*(?P<type>Normal|Warning|Error)\s+(?P<reason>[A-Za-z][\w.]*)(?:\s{2,}(?P<rest>\S.*))?\s*$")
_AGE = re.compile(r"^(?:<unknown>|<invalid>|\d+[smhdy][\dsmhdy]*(?: \(x\d+ over [\dsmhdy]+\))?|"
                  r"\d+[smhdy]?\s*ago)$")
_SCHEDULER_LINE = re.compile(r"^\s*(?:\d+/\d+ nodes are available:|no nodes available to schedule pods|"
                             r"No nodes are available that match all of the (?:predicates|following predicates)|"
                             r"Error scheduling: failed to find (?:a )?fit for pod)", re.I)
_KLOG_EVENT = re.compile(
    r"Event\((?:v1\.|api\.)?ObjectReference\{Kind:\"(?P<kind>\w*)\", Namespace:\"(?P<ns>[^\"]*)\", "
    r"Name:\"(?P<name>[^\"]*)\".*?\}\): type: '(?P<type>\w+)' reason: '(?P<reason>\w+)' (?P<message>.*)$")
_OPENSHIFT_EVENT = re.compile(r"\bns/(?P<ns>[\w.-]+) (?P<kind>pod|node|deployment|replicaset)/(?P<name>[\w.-]+)"
                              r"(?: node/[\w.-]+)? - reason/(?P<reason>\w+) (?P<message>.*)$")
_ASSIGNED = re.compile(r"Successfully assigned (?:(?P<ns>[\w.-]+)/)?(?P<name>[\w.-]+) to ")
_NODE_STATUS_EVENT = re.compile(r"^Node (?P<name>\S+) status is now: ")

_POD_REASONS = frozenset({
    "FailedScheduling", "Scheduled", "Pulling", "Pulled", "Created", "Started", "Killing", "BackOff",
    "Failed", "Unhealthy", "FailedMount", "FailedAttachVolume", "SuccessfulAttachVolume",
    "FailedCreatePodSandBox", "SandboxChanged", "FailedSync", "Evicted", "Preempted", "Nominated",
    "FailedPreStopHook", "FailedPostStartHook", "NetworkNotReady", "InspectFailed", "ErrImageNeverPull",
    "FailedKillPod", "FailedCreatePodContainer", "TriggeredScaleUp", "NotTriggerScaleUp",
    "SuccessfulMountVolume", "Generated", "ProbeWarning", "FailedValidation",
})
_NODE_REASONS = frozenset({
    "NodeNotReady", "NodeReady", "NodeHasDiskPressure", "NodeHasNoDiskPressure", "NodeHasSufficientMemory",
    "NodeHasInsufficientMemory", "NodeHasSufficientPID", "NodeNotSchedulable", "NodeSchedulable",
    "RegisteredNode", "RemovingNode", "Starting", "Rebooted", "EvictionThresholdMet", "FreeDiskSpaceFailed",
    "ImageGCFailed", "ContainerGCFailed", "NodeAllocatableEnforced", "InvalidDiskCapacity", "SystemOOM",
    "DisruptionBlocked", "Unconsolidatable",
})
_PVC_REASONS = frozenset({"ProvisioningFailed", "ExternalProvisioning", "Provisioning", "ProvisioningSucceeded",
                          "WaitForFirstConsumer", "FailedBinding", "WaitForPodScheduled"})
_WORKLOAD_REASONS = {"FailedCreate": "ReplicaSet", "SuccessfulCreate": "ReplicaSet",
                     "ScalingReplicaSet": "Deployment", "SuccessfulDelete": "ReplicaSet"}
_SERVICE_REASONS = frozenset({"SyncLoadBalancerFailed", "EnsuringLoadBalancer", "EnsuredLoadBalancer",
                              "UpdatedLoadBalancer", "DeletingLoadBalancer", "FailedToUpdateEndpoint"})
_NODECLAIM_REASONS = frozenset({"Launched", "Registered", "Initialized", "InsufficientCapacityError",
                                "FailedConsistencyCheck", "TerminationGracePeriodExpiring"})


def kind_for_reasons(reasons: list[str]) -> str:
    """The kind of object a group of events is about, judged from their reasons."""
    votes: dict[str, int] = {}
    for reason in reasons:
        kind = ("Pod" if reason in _POD_REASONS else "Node" if reason in _NODE_REASONS
                else "PersistentVolumeClaim" if reason in _PVC_REASONS
                else "Service" if reason in _SERVICE_REASONS
                else "NodeClaim" if reason in _NODECLAIM_REASONS
                else _WORKLOAD_REASONS.get(reason, ""))
        if kind:
            votes[kind] = votes.get(kind, 0) + 1
    if not votes:
        return "Pod"
    return max(votes, key=lambda k: votes[k])


def scheduler_reason(message: str) -> str:
    """``FailedScheduling`` when ``message`` is the scheduler's, else an empty string."""
    return "FailedScheduling" if _SCHEDULER_LINE.match(message) else ""


def event_row(line: str) -> Event | None:
    """An event from a ``kubectl describe`` Events row (``Type  Reason  Age  From  Message``)."""
    m = _EVENT_ROW.match(line)
    if not m:
        return None
    parts = [p for p in re.split(r"\s{2,}|\t+", m.group("rest") or "") if p]
    age, source, message = "", "", ""
    if parts and _AGE.match(parts[0]):
        age = parts.pop(0)
    if len(parts) >= 2:
        source, message = parts[0], "  ".join(parts[1:])
    elif parts:
        message = parts[0]
    if not age and not source and message and len(message.split()) < 3:
        return None     # "Warning  Something odd" in prose, not an event row
    count = 1
    c = re.search(r"\(x(\d+) over", age)
    if c:
        count = int(c.group(1))
    return Event(type=m.group("type"), reason=m.group("reason"), message=message.strip(), source=source,
                 age=age, count=count, evidence=[line])


def named_object(event: Event) -> tuple[str, str | None, str] | None:
    """(kind, namespace, name) when the event's message names its object."""
    m = _ASSIGNED.search(event.message)
    if m:
        return "Pod", m.group("ns"), m.group("name")
    m = _NODE_STATUS_EVENT.match(event.message)
    if m:
        return "Node", "", m.group("name")
    return None


# ---------------------------------------------------------- headerless rows

_NODE_STATUSES = frozenset({"Ready", "NotReady", "Unknown", "Ready,SchedulingDisabled",
                            "NotReady,SchedulingDisabled", "Unknown,SchedulingDisabled"})
_HOSTLIKE = re.compile(r"^(?:[a-z0-9][\w-]*\.[\w.-]*[a-z0-9]|\d{1,3}(?:\.\d{1,3}){3}|ip-[\d-]+[\w.-]*|"
                       r"[a-z][\w-]*-(?:node|worker|master|control-plane)[\w-]*)$", re.I)
_VERSION_CELL = re.compile(r"^v\d+\.\d+\.\d+\S*$")
_POD_STATUSES = frozenset({
    "Running", "Pending", "CrashLoopBackOff", "Error", "Completed", "ContainerCreating", "ImagePullBackOff",
    "ErrImagePull", "CreateContainerConfigError", "OOMKilled", "Evicted", "Terminating", "PodInitializing",
    "Unknown", "Init:Error", "Init:CrashLoopBackOff", "RunContainerError", "InvalidImageName",
})


def headerless_row(line: str) -> tuple[str, list[str]] | None:
    """("node", cells) or ("pod", cells) for a ``get nodes`` / ``get pods`` row without its header."""
    cells = [c for c in re.split(r"\s{2,}|\t+", line.strip()) if c]
    if len(cells) < 2:
        return None
    if _HOSTLIKE.match(cells[0]):
        status = next((c for c in cells[1:4] if c in _NODE_STATUSES), "")
        if status and (len(cells) <= 3 or any(_VERSION_CELL.match(c) for c in cells)
                       or any("=" in c for c in cells[1:3])):
            return "node", cells
    for offset in (0, 1):
        if len(cells) >= offset + 4 and re.fullmatch(r"\d+/\d+", cells[offset + 1]) \
                and (cells[offset + 2] in _POD_STATUSES or cells[offset + 2].startswith("Init:")) \
                and re.match(r"^\d+", cells[offset + 3]):
            return "pod", cells
    return None


def resource_from_row(shape: str, cells: list[str], line: str) -> Resource:
    if shape == "node":
        res = Resource(kind="Node", namespace="", name=cells[0], priority=1, evidence=[line],
                       sources={"table"})
        res.status = next(c for c in cells[1:4] if c in _NODE_STATUSES)
        res.ready = res.status.split(",")[0]
        if "SchedulingDisabled" in res.status:
            res.fields["unschedulable"] = True
        version = next((c for c in cells if _VERSION_CELL.match(c)), "")
        if version:
            res.fields["version"] = version
        return res
    offset = 0 if re.fullmatch(r"\d+/\d+", cells[1]) else 1
    namespace = cells[0] if offset else None
    kind, _, name = cells[offset].rpartition("/")
    res = Resource(kind="Pod", namespace=namespace, name=name, priority=1, evidence=[line], sources={"table"})
    res.ready, res.status = cells[offset + 1], cells[offset + 2]
    res.restarts = int(re.match(r"^\d+", cells[offset + 3]).group())  # type: ignore[union-attr]
    res.phase = {"Running": "Running", "Pending": "Pending", "Completed": "Succeeded", "Evicted": "Failed",
                 "ContainerCreating": "Pending", "PodInitializing": "Pending"}.get(res.status, "")
    if res.status in ("ContainerCreating", "PodInitializing") or res.status.startswith("Init:"):
        res.fields["scheduled"] = True
    if res.status == "Terminating":
        res.deleting = True
    if res.status == "Evicted":
        res.reason = "Evicted"
    return res


# ------------------------------------------------------------------- scan


@dataclass
class ScanResult:
    resources: list[Resource] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)          # events that name their object
    records: list[LogRecord] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)


# Cheap tests that skip the regexes for the ordinary line.
_TRIGGERS = ("Normal", "Warning", "Error", "nodes are available", "no nodes available", "Event(",
             "reason/", "Ready", "level", "] ", "]: ", "{", "/", '"')


def scan(text: str, *, block_seq: Iterator[int]) -> ScanResult:
    """Event rows, headerless rows and log records found in free text.

    Consecutive event rows without an object belong to one object that the
    upload does not show: they become one anonymous resource per block.
    """
    result = ScanResult()
    lines = text.split("\n")
    block: list[Event] = []
    field_block: list[str] = []

    def close_block() -> None:
        if block:
            result.resources.extend(_anonymous_for(block, next(block_seq)))
            block.clear()

    def close_fields() -> None:
        if field_block:
            record = json_field_block(field_block) if len(field_block) >= 3 else None
            if record is not None:
                result.records.append(record)
            else:
                result.unparsed.extend(field_block)
            field_block.clear()

    for line in lines:
        if not line.strip():
            close_fields()
            continue
        if line.lstrip().startswith('"') and _JSON_FIELD.match(line):
            field_block.append(line)
            continue
        if field_block and line.strip() in ("{…},", "{…}", "(3)[…],") or (field_block and "[…]" in line):
            field_block.append(line)
            continue
        close_fields()
        if not any(t in line for t in _TRIGGERS):
            close_block()
            result.unparsed.append(line)
            continue
        event = _event_in_line(line)
        if event is not None:
            if event.name:
                close_block()
                result.events.append(event)
            else:
                block.append(event)
            continue
        close_block()
        row = headerless_row(line)
        if row is not None:
            result.resources.append(resource_from_row(row[0], row[1], line))
            continue
        record = log_record(line)
        if record is not None:
            if record.refs and record.is_error:
                result.events.extend(_events_from_record(record))
            result.records.append(record)
            continue
        result.unparsed.append(line)
    close_fields()
    close_block()
    return result


def _event_in_line(line: str) -> Event | None:
    if "Event(" in line and "ObjectReference" in line:
        m = _KLOG_EVENT.search(line)
        if m:
            return Event(type=m.group("type"), reason=normal_reason(m.group("reason")),
                         message=m.group("message").strip(), kind=canonical_kind(m.group("kind") or "Pod"),
                         namespace=m.group("ns") or None, name=m.group("name"), evidence=[line])
    if "reason/" in line:
        m = _OPENSHIFT_EVENT.search(line)
        if m:
            reason = m.group("reason")
            return Event(type=event_type_for(reason), reason=reason, message=m.group("message").strip(),
                         kind=canonical_kind(m.group("kind")), namespace=m.group("ns"), name=m.group("name"),
                         evidence=[line])
    event = event_row(line)
    if event is not None:
        return event
    reason = scheduler_reason(line)
    if reason:
        return Event(type="Warning", reason=reason, message=line.strip(), evidence=[line])
    return None


_SANDBOX = re.compile(r"sandbox", re.I)
_MOUNT = re.compile(r"MountVolume|Unable to attach or mount|FailedMount", re.I)
_PULL = re.compile(r"Failed to pull image|ErrImagePull|pull access denied", re.I)


def _events_from_record(record: LogRecord) -> list[Event]:
    """Error log lines that name an object read as that object's warning events."""
    events = []
    reason = ("FailedCreatePodSandBox" if _SANDBOX.search(record.message)
              else "FailedMount" if _MOUNT.search(record.message)
              else "Failed" if _PULL.search(record.message)
              else f"{record.component.capitalize()}Error")
    for kind, ns, name in record.refs:
        events.append(Event(type="Warning", reason=reason, message=record.message, kind=kind,
                            namespace=ns or None, name=name, source=record.component,
                            evidence=[record.line]))
    return events


def _anonymous_for(block: list[Event], seq: int) -> list[Resource]:
    """One resource for a block of event rows; named when a row names it."""
    named = next((n for e in block if (n := named_object(e)) is not None), None)
    if named is not None:
        kind, ns, name = named
        res = Resource(kind=kind, namespace=ns, name=name, priority=0, sources={"event"})
    else:
        kind = kind_for_reasons([e.reason for e in block])
        res = Resource(kind=kind, namespace="", name=f"#{seq}", priority=0, sources={"event"},
                       anonymous=True)
    for event in block:
        event.kind, event.namespace, event.name = res.kind, res.namespace, res.name
        res.add_event(event)
    return [res]


def adopt_orphans(events: list[Event], seq: Iterator[int]) -> list[Resource]:
    """Resources for events read without their object (each on its own)."""
    out: list[Resource] = []
    for event in events:
        out.extend(_anonymous_for([event], next(seq)))
    return out
