"""A small in-test knowledge base that mimics real articles (no Django)."""

from __future__ import annotations

from troubleshoot.engine.types import Signature

TAINT = "untolerated-taint"
CPU = "insufficient-cpu"
AFFINITY = "node-affinity-mismatch"
CRASH = "crashloop-backoff"
OOM = "oomkilled"
NODEPOOL = "karpenter-incompatible-nodepool"
EC2_AUTH = "karpenter-ec2-unauthorized"
ICE = "insufficient-instance-capacity"
TF_SUBNETS = "eks-nodegroup-subnets"
IMAGE = "image-pull-backoff"
PROBE = "readiness-probe-failed"
CNI_PANIC = "aws-node-nil-pointer"
WEBHOOK = "karpenter-webhook-timeout"
HELM_CRD = "helm-karpenter-crd-exists"


def S(topic: str, n: int, text: str, *, lang: str = "en", **kw: object) -> Signature:
    return Signature(key=f"{topic}:{lang}:{n}", topic=topic, language=lang, text=text, **kw)  # type: ignore[arg-type]


SIGNATURES: list[Signature] = [
    S(
        TAINT,
        0,
        "0/3 nodes are available: 3 node(s) had untolerated taint {karpenter.sh/controller: true}. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        pattern=r"(?P<count>\d+) node\(s\) had untolerated taint \{(?P<key>[^:}]+):\s?(?P<value>[^}]*)\}",
        weight=1.2,
        kind="event",
        cause=0,
    ),
    S(
        TAINT,
        0,
        "0/3 nodes are available: 3 node(s) had untolerated taint {karpenter.sh/controller: true}. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        lang="zh-hans",
        weight=1.2,
        kind="event",
        cause=0,
    ),
    S(
        CPU,
        0,
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: "
        "3 No preemption victims found for incoming pod.",
        pattern=r"(?P<count>\d+) Insufficient (?P<resource>cpu)",
        kind="event",
        cause=0,
    ),
    S(
        AFFINITY,
        0,
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        kind="event",
        cause=0,
    ),
    S(CRASH, 0, "Back-off restarting failed container", weight=0.3, kind="event"),
    S(CRASH, 1, "CrashLoopBackOff", weight=0.5, kind="pod-status"),
    S(OOM, 0, "OOMKilled", kind="pod-status", cause=0),
    S(OOM, 1, "Last State: Terminated Reason: OOMKilled Exit Code: 137", kind="pod-status", cause=0),
    S(
        NODEPOOL,
        0,
        'Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"150m","pods":"2"}, '
        "incompatible requirements, key karpenter.sh/capacity-type, karpenter.sh/capacity-type In [on-demand] "
        "not in karpenter.sh/capacity-type In [spot]",
        pattern=r'incompatible with nodepool "(?P<nodepool>[^"]+)"',
        kind="event",
        cause=1,
    ),
    S(
        EC2_AUTH,
        0,
        "UnauthorizedOperation: You are not authorized to perform this operation. User: "
        "arn:aws:sts::123456789012:assumed-role/KarpenterControllerRole-demo/1716285600 is not authorized to perform: "
        "ec2:RunInstances on resource: arn:aws:ec2:us-west-2:123456789012:launch-template/lt-0abc1234def567890",
        pattern=r"not authorized to perform: (?P<action>ec2:\w+)",
        weight=1.5,
        kind="log",
        cause=0,
    ),
    S(
        ICE,
        0,
        "InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the "
        "Availability Zone you requested (us-west-2a).",
        kind="log",
    ),
    S(
        TF_SUBNETS,
        0,
        "Error: creating EKS Node Group (demo:workers): operation error EKS: CreateNodegroup, https response "
        "error StatusCode: 400, RequestID: 5f2c1b7e-1111-2222-3333-444455556666, InvalidParameterException: "
        "Subnets specified must be in at least two different AZs",
        kind="terraform",
    ),
    S(
        IMAGE,
        0,
        'Failed to pull image "nginx:latst": rpc error: code = NotFound desc = failed to pull and unpack image '
        '"docker.io/library/nginx:latst": failed to resolve reference "docker.io/library/nginx:latst": '
        "docker.io/library/nginx:latst: not found",
        kind="event",
        pattern=r'Failed to pull image "(?P<image>[^"]+)"',
    ),
    S(IMAGE, 1, "Back-off pulling image", weight=0.6, kind="event"),
    S(PROBE, 0, "Readiness probe failed: HTTP probe failed with statuscode: 503", kind="event"),
    S(
        CNI_PANIC,
        0,
        "panic: runtime error: invalid memory address or nil pointer dereference [signal SIGSEGV: "
        "segmentation violation code=0x1 addr=0x0 pc=0x1a2b3c4]",
        kind="log",
    ),
    S(CNI_PANIC, 1, "github.com/aws/amazon-vpc-cni-k8s/pkg/ipamd.(*IPAMContext).nodeInit", weight=1.5, kind="log"),
    S(
        WEBHOOK,
        0,
        'Internal error occurred: failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: '
        'Post "https://karpenter.kube-system.svc:8443/validation?timeout=10s": context deadline exceeded',
        kind="cli",
        pattern=r'failed calling webhook "(?P<webhook>[^"]+)"',
    ),
    S(
        HELM_CRD,
        0,
        "Error: INSTALLATION FAILED: Unable to continue with install: CustomResourceDefinition "
        '"nodepools.karpenter.sh" in namespace "" exists and cannot be imported into the current release: '
        'invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by"',
        kind="cli",
    ),
]
