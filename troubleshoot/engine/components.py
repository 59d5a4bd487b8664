"""Which component a text is about: cheap literal hints confirmed by expressions.

Used by :mod:`fields` (who printed a line, which controller a denied role or action belongs to)
and through it by attribution in ranking. Plain Python, no Django.
"""

from __future__ import annotations

import re

import ahocorasick

__all__ = ["components_of", "has_aws_hint", "KNOWN_COMPONENTS", "ACTION_COMPONENT"]


# (canonical component name, hint expression). Names are the KB's component names.
_COMPONENT_HINTS: list[tuple[str, str]] = [
    ("Karpenter", r"karpenter|nodeclaim|\bnodepool\b|\b(?:ec2)?nodeclass\b|\bprovisioner\b|KarpenterController"
                  r"|controller\.(?:provisioning|deprovisioning|machine|interruption|disruption)"),
    ("VPC CNI", r"aws-node|\bipamd\b|ipamd\.go|aws-cni|amazon-vpc-cni|vpc-cni|aws-k8s-agent|routed-eni"
                r"|AmazonEKS_CNI|cni-metrics-helper|\baws-vpc-cni\b"),
    ("EBS CSI driver", r"ebs-csi|ebs\.csi\.aws\.com|ebs-plugin|EBS_CSI|EBSCSI"),
    ("EFS CSI driver", r"efs-csi|efs\.csi\.aws\.com|efs-plugin|efs-utils|mount\.efs|EFS_CSI|EFSCSI"),
    ("AWS Load Balancer Controller", r"aws-load-balancer-controller|elbv2\.k8s\.aws|aws-load-balancer-webhook"
                                     r"|AWSLoadBalancerController|ingress\.k8s\.aws|load-balancer-controller"
                                     r"|\bcontroller=(?:ingress|targetGroupBinding)\b"),  # its reconcilers
    ("external-dns", r"external-?dns"),
    ("cert-manager", r"cert-manager|certmanager|cert-manager\.io|acme\.cert-manager"),
    ("metrics-server", r"metrics-server|metrics\.k8s\.io"),
    ("CoreDNS", r"\bcoredns\b|plugin/(?:errors|forward|loop|kubernetes|health|ready)\b|\bkube-dns\b"),
    ("Cluster Autoscaler", r"cluster-autoscaler|clusterautoscaler|static_autoscaler|scale_up\.go"),
    ("ingress-nginx", r"ingress-nginx|nginx-ingress|validate\.nginx\.ingress|nginx\.ingress\.kubernetes\.io"),
    ("Argo CD", r"\bargocd\b|argo-cd|argoproj\.io|argocd-"),
    ("Node Termination Handler", r"node-termination-handler|\bnth\b"),
    ("EKS Pod Identity", r"eks-pod-identity|pods\.eks\.amazonaws\.com|169\.254\.170\.23"),
    ("kubelet", r"^kubelet\b|kubelet\.go|kuberuntime_|pod_workers\.go|\bkubelet\[|\bkubelet$"),
    ("containerd", r"\bcontainerd\b"),
    ("Helm", r"\bhelm\b|helm\.sh|INSTALLATION FAILED|UPGRADE FAILED|ROLLBACK FAILED"),
    ("Terraform", r"terraform|\bwith module\.|\.tf line \d+|\bprovider\[\"registry"),
    ("Fargate", r"fargate"),
    ("EKS Auto Mode", r"eks-auto-mode|\bEKS Auto Mode\b"),
]
_COMPONENT_RX = [(name, re.compile(rx, re.IGNORECASE)) for name, rx in _COMPONENT_HINTS]
# Lowercase substrings, one of which every match of a component's hint contains: checked with `in`
# before its regex runs, since most lines name no component at all.
_COMPONENT_KEYS = {
    "Karpenter": ("karpenter", "nodeclaim", "nodepool", "nodeclass", "provisioner", "controller."),
    "VPC CNI": ("aws-node", "ipamd", "aws-cni", "vpc-cni", "aws-k8s-agent", "routed-eni", "amazoneks_cni",
                "cni-metrics-helper"),
    "EBS CSI driver": ("ebs-csi", "ebs.csi", "ebs-plugin", "ebs_csi", "ebscsi"),
    "EFS CSI driver": ("efs-csi", "efs.csi", "efs-plugin", "efs-utils", "mount.efs", "efs_csi", "efscsi"),
    "AWS Load Balancer Controller": ("load-balancer-controller", "elbv2.k8s.aws", "aws-load-balancer-webhook",
                                     "awsloadbalancercontroller", "ingress.k8s.aws", "controller=ingress",
                                     "controller=targetgroupbinding"),
    "external-dns": ("external-dns", "externaldns"),
    "cert-manager": ("cert-manager", "certmanager"),
    "metrics-server": ("metrics-server", "metrics.k8s.io"),
    "CoreDNS": ("coredns", "plugin/", "kube-dns"),
    "Cluster Autoscaler": ("cluster-autoscaler", "clusterautoscaler", "static_autoscaler", "scale_up.go"),
    "ingress-nginx": ("ingress-nginx", "nginx-ingress", "validate.nginx.ingress", "nginx.ingress.kubernetes.io"),
    "Argo CD": ("argocd", "argo-cd", "argoproj.io"),
    "Node Termination Handler": ("node-termination-handler", "nth"),
    "EKS Pod Identity": ("eks-pod-identity", "pods.eks.amazonaws.com", "169.254.170.23"),
    "kubelet": ("kubelet", "kuberuntime_", "pod_workers.go"),
    "containerd": ("containerd",),
    "Helm": ("helm", "installation failed", "upgrade failed", "rollback failed"),
    "Terraform": ("terraform", "with module.", ".tf line", 'provider["registry'),
    "Fargate": ("fargate",),
    "EKS Auto Mode": ("eks-auto-mode", "eks auto mode"),
}
KNOWN_COMPONENTS = frozenset(name for name, _ in _COMPONENT_HINTS)

# The IAM action names which component needs (when a denial names no role that says it).
ACTION_COMPONENT: list[tuple[str, re.Pattern[str]]] = [
    ("VPC CNI", re.compile(r"^ec2:(?:CreateNetworkInterface|AttachNetworkInterface|DeleteNetworkInterface|"
                           r"DetachNetworkInterface|AssignPrivateIpAddresses|UnassignPrivateIpAddresses|"
                           r"AssignIpv6Addresses|ModifyNetworkInterfaceAttribute|CreateNetworkInterfacePermission)$",
                           re.IGNORECASE)),
    ("EBS CSI driver", re.compile(r"^ec2:(?:CreateVolume|AttachVolume|DetachVolume|DeleteVolume|ModifyVolume|"
                                  r"CreateSnapshot|DeleteSnapshot|DescribeVolumes\w*)$", re.IGNORECASE)),
    ("EFS CSI driver", re.compile(r"^elasticfilesystem:", re.IGNORECASE)),
    ("AWS Load Balancer Controller", re.compile(r"^(?:elasticloadbalancing|wafv2|waf-regional|shield):",
                                                re.IGNORECASE)),
    ("external-dns", re.compile(r"^route53:(?:ChangeResourceRecordSets|ListResourceRecordSets|ListHostedZones\w*)$",
                                re.IGNORECASE)),
    ("Cluster Autoscaler", re.compile(r"^autoscaling:(?:SetDesiredCapacity|TerminateInstanceInAutoScalingGroup|"
                                      r"DescribeAutoScalingGroups|DescribeLaunchConfigurations)$", re.IGNORECASE)),
    ("Karpenter", re.compile(r"^(?:ec2:(?:CreateFleet|RunInstances|CreateLaunchTemplate|DeleteLaunchTemplate)|"
                             r"iam:(?:PassRole|CreateInstanceProfile|AddRoleToInstanceProfile|TagInstanceProfile|"
                             r"GetInstanceProfile|RemoveRoleFromInstanceProfile|DeleteInstanceProfile)|"
                             r"pricing:GetProducts)$", re.IGNORECASE)),
]


def components_of(text: str) -> list[str]:
    """Canonical component names hinted at by ``text`` (a source, a role name, a line)."""
    if not text:
        return []
    named = {tag for _, tags in _HINTS.iter(text.lower()) for tag in tags if tag != _AWS_TAG}
    return [name for name, rx in _COMPONENT_RX if name in named and rx.search(text)]


_AWS_HINTS = ("aws", "arn:", "operation error", "status code", "statuscode", "request id", "requestid",
              "error occurred (", "exception", "denied", "unauthorized", "not authorized", "throttl", "insufficient",
              "exceeded", "invalid", "token", "credential", "capacity", "fault", "opt", "dependency", "volumeinuse",
              "incorrectstate", "entity", "malformed", "unsupported", "internalerror", "unavailable", "nodecreation",
              "asginstance", "ec2subnet", "spotmaxprice", "expired", "validation", "requesterror", "limit")


_AWS_TAG = "\x00aws"
# One automaton over every cheap hint (component keys and AWS-error words): one C-level pass per line
# decides which expressions are worth running at all.
_HINTS = ahocorasick.Automaton()
for _key, _tags in {
    **{h: {_AWS_TAG} for h in _AWS_HINTS},
    **{k: set() for keys in _COMPONENT_KEYS.values() for k in keys},
}.items():
    _HINTS.add_word(_key, frozenset(_tags | {name for name, keys in _COMPONENT_KEYS.items() if _key in keys}))
_HINTS.make_automaton()


def has_aws_hint(text: str) -> bool:
    return any(_AWS_TAG in tags for _, tags in _HINTS.iter(text.lower()))
