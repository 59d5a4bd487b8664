"""Deterministic generator of large, realistic kubectl terminal sessions.

Used by the benchmark and the load tests: ``generate_session(10_000_000)``
returns about 10 MB of mixed ``get pods -A``, ``get nodes``, ``get events``,
``describe`` and ``-o yaml/json`` output with a known mix of problems.
"""

from __future__ import annotations

import json
import random
import string

_NAMESPACES = ("default", "payments", "checkout", "media", "batch", "monitoring", "search", "web",
               "kube-system", "karpenter")
_APPS = ("api", "worker", "frontend", "ledger", "sync", "indexer", "resizer", "gateway", "cron",
         "exporter", "consumer", "scheduler")
_ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")
_STATUSES = (
    ("Running", 60), ("Pending", 8), ("CrashLoopBackOff", 6), ("ImagePullBackOff", 4),
    ("ErrImagePull", 2), ("CreateContainerConfigError", 2), ("OOMKilled", 2), ("Evicted", 2),
    ("Completed", 6), ("Terminating", 1), ("Init:0/1", 2), ("ContainerCreating", 2),
)
_SCHED_MESSAGES = (
    "0/{n} nodes are available: {n} node(s) had untolerated taint {{karpenter.sh/controller: true}}. "
    "preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling.",
    "0/{n} nodes are available: {n} Insufficient cpu, 2 Insufficient memory. preemption: 0/{n} nodes are "
    "available: {n} No preemption victims found for incoming pod.",
    "0/{n} nodes are available: {n} node(s) didn't match Pod's node affinity/selector. preemption: "
    "0/{n} nodes are available: {n} Preemption is not helpful for scheduling.",
    "0/{n} nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/{n} "
    "nodes are available: {n} Preemption is not helpful for scheduling.",
    "0/{n} nodes are available: {n} node(s) had volume node affinity conflict. preemption: 0/{n} nodes "
    "are available: {n} Preemption is not helpful for scheduling.",
)


def _table(rows: list[list[str]], pad: int = 3, indent: str = "") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [c.ljust(widths[i] + pad) for i, c in enumerate(row[:-1])] + [row[-1]]
        out.append(indent + "".join(cells))
    return out


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.nodes = [self._node_name() for _ in range(40)]
        self.pods: list[tuple[str, str, str]] = []   # (ns, name, status)

    def _suffix(self, n: int) -> str:
        return "".join(self.rnd.choice(string.ascii_lowercase + string.digits) for _ in range(n))

    def _node_name(self) -> str:
        r = self.rnd
        return f"ip-10-0-{r.randint(0, 255)}-{r.randint(1, 254)}.eu-west-1.compute.internal"

    def _status(self) -> str:
        total = sum(w for _, w in _STATUSES)
        pick = self.rnd.uniform(0, total)
        for status, weight in _STATUSES:
            pick -= weight
            if pick <= 0:
                return status
        return "Running"

    def pods_table(self, count: int) -> list[str]:
        rows = [["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]]
        self.pods = []
        for _ in range(count):
            ns = self.rnd.choice(_NAMESPACES)
            name = f"{self.rnd.choice(_APPS)}-{self._suffix(9)}-{self._suffix(5)}"
            status = self._status()
            restarts = "0"
            if status in ("CrashLoopBackOff", "OOMKilled"):
                restarts = f"{self.rnd.randint(1, 40)} ({self.rnd.randint(1, 59)}s ago)"
            ready = "1/1" if status == "Running" and self.rnd.random() > 0.1 else "0/1"
            rows.append([ns, name, ready, status, restarts, f"{self.rnd.randint(1, 90)}m"])
            self.pods.append((ns, name, status))
        return ["$ kubectl get pods -A"] + _table(rows)

    def nodes_table(self) -> list[str]:
        rows = [["NAME", "STATUS", "ROLES", "AGE", "VERSION"]]
        for node in self.nodes:
            status = self.rnd.choice(("Ready",) * 12 + ("NotReady", "Ready,SchedulingDisabled", "Unknown"))
            rows.append([node, status, "<none>", f"{self.rnd.randint(1, 30)}d", "v1.29.3-eks-ae9a62a"])
        return ["user@bastion:~$ kubectl get nodes"] + _table(rows)

    def events_table(self, count: int) -> list[str]:
        rows = [["NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]]
        for _ in range(count):
            ns, name, status = self.rnd.choice(self.pods) if self.pods else ("default", "x", "Pending")
            age = f"{self.rnd.randint(1, 59)}m"
            if status == "Pending":
                msg = self.rnd.choice(_SCHED_MESSAGES).format(n=len(self.nodes))
                rows.append([ns, age, "Warning", "FailedScheduling", f"pod/{name}", msg])
            elif status in ("ImagePullBackOff", "ErrImagePull"):
                rows.append([ns, age, "Warning", "Failed", f"pod/{name}",
                             f'Failed to pull image "registry.example.com/{name}:1.0": rpc error: code = '
                             f'NotFound desc = failed to pull and unpack image: not found'])
            elif status == "CreateContainerConfigError":
                rows.append([ns, age, "Warning", "Failed", f"pod/{name}",
                             f'Error: secret "{name[:12]}-creds" not found'])
            elif status == "CrashLoopBackOff":
                rows.append([ns, f"{age} (x{self.rnd.randint(2, 90)} over 1h)", "Warning", "BackOff",
                             f"pod/{name}", f"Back-off restarting failed container app in pod {name}_{ns}"])
            else:
                rows.append([ns, age, "Normal", "Pulled", f"pod/{name}",
                             'Container image "registry.example.com/app:1.0" already present on machine'])
        return ["➜  ~ kubectl get events -A"] + _table(rows)

    def describe_pod(self) -> list[str]:
        ns, name, status = self.rnd.choice(self.pods) if self.pods else ("default", "x", "Pending")
        node = "<none>" if status == "Pending" else f"{self.rnd.choice(self.nodes)}/10.0.1.2"
        lines = [
            f"$ kubectl describe pod {name} -n {ns}",
            f"Name:             {name}", f"Namespace:        {ns}", "Priority:         0",
            f"Node:             {node}", f"Labels:           app={name.split('-')[0]}",
            "                  pod-template-hash=7d9f8b6c5d",
            f"Status:           {'Pending' if status == 'Pending' else 'Running'}",
            "Containers:", "  app:", "    Image:          registry.example.com/app:1.0",
        ]
        if status == "CrashLoopBackOff":
            lines += ["    State:          Waiting", "      Reason:       CrashLoopBackOff",
                      "    Last State:     Terminated", "      Reason:       OOMKilled",
                      "      Exit Code:    137", "    Ready:          False", "    Restart Count:  12"]
        elif status != "Pending":
            lines += ["    State:          Running", "    Ready:          True", "    Restart Count:  0"]
        lines += ["Conditions:", "  Type           Status",
                  f"  PodScheduled   {'False' if status == 'Pending' else 'True'} ",
                  "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
                  "                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
                  "Events:"]
        msg = self.rnd.choice(_SCHED_MESSAGES).format(n=len(self.nodes))
        lines += _table([["Type", "Reason", "Age", "From", "Message"], ["----", "------", "----", "----", "-------"],
                         ["Warning", "FailedScheduling", "2m (x5 over 12m)", "default-scheduler", msg]],
                        pad=2, indent="  ")
        return lines

    def describe_node(self) -> list[str]:
        node = self.rnd.choice(self.nodes)
        rows = [["Type", "Status", "LastHeartbeatTime", "LastTransitionTime", "Reason", "Message"],
                ["----", "------", "-----------------", "------------------", "------", "-------"],
                ["MemoryPressure", "False", "Tue, 14 May 2024 09:14:52 +0000", "Thu, 02 May 2024 07:12:08 +0000",
                 "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
                ["Ready", "False", "Tue, 14 May 2024 09:14:52 +0000", "Tue, 14 May 2024 09:02:17 +0000",
                 "KubeletNotReady", "PLEG is not healthy: pleg was last seen active 3m41.2s ago; threshold is 3m0s"]]
        return ([f"$ kubectl describe node {node}", f"Name:               {node}", "Roles:              <none>",
                 "Taints:             node.kubernetes.io/not-ready:NoSchedule", "Unschedulable:      false",
                 "Conditions:"] + _table(rows, pad=2, indent="  "))

    def pod_yaml(self) -> list[str]:
        ns, name, _ = self.rnd.choice(self.pods) if self.pods else ("default", "x", "")
        return [f"$ kubectl get pod {name} -n {ns} -o yaml", "apiVersion: v1", "kind: Pod", "metadata:",
                f"  name: {name}", f"  namespace: {ns}", "spec:", "  containers:", "  - name: app",
                "    image: registry.example.com/app:1.0", "status:", "  phase: Running", "  containerStatuses:",
                "  - name: app", "    ready: false", "    restartCount: 4", "    lastState:", "      terminated:",
                "        exitCode: 1", "        reason: Error", "    state:", "      waiting:",
                "        reason: CrashLoopBackOff"]

    def nodeclaims_json(self) -> list[str]:
        items = []
        for _ in range(3):
            items.append({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
                          "metadata": {"name": f"default-{self._suffix(5)}"},
                          "status": {"conditions": [
                              {"type": "Launched", "status": "True", "reason": "Launched", "message": ""},
                              {"type": "Registered", "status": "Unknown", "reason": "NodeNotFound",
                               "message": "Node not registered with cluster"}]}})
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)
        return ["PS> kubectl get nodeclaims -o json"] + text.split("\n")

    def chunk(self) -> list[str]:
        lines = self.pods_table(self.rnd.randint(150, 400))
        lines += self.nodes_table()
        lines += self.events_table(self.rnd.randint(150, 350))
        for _ in range(self.rnd.randint(3, 8)):
            lines += self.describe_pod()
        lines += self.describe_node()
        lines += self.pod_yaml()
        lines += self.nodeclaims_json()
        return lines


def generate_session(target_bytes: int, seed: int = 0) -> str:
    """A terminal session of at least ``target_bytes`` (UTF-8) bytes."""
    gen = _Gen(seed)
    parts: list[str] = []
    size = 0
    while size < target_bytes:
        text = "\n".join(gen.chunk()) + "\n"
        parts.append(text)
        size += len(text.encode("utf-8"))
    return "".join(parts)
