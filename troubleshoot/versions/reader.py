"""Read which versions a paste or an upload shows, under the KB's component names.

Sources, strongest first:

* container images: ``public.ecr.aws/karpenter/controller:1.1.1@sha256:...``,
  ``.../amazon-k8s-cni:v1.18.3-eksbuild.1``, ``aws-ebs-csi-driver:v1.35.0``,
  ``eks/coredns:v1.11.1-eksbuild.9``;
* ``kubectl version`` (short, ``version.Info{...}``, ``-o yaml`` / ``-o json``):
  the client is kubectl, the server is Kubernetes;
* Helm: ``helm.sh/chart: karpenter-1.0.5`` for charts versioned like their
  application, ``app.kubernetes.io/name`` + ``app.kubernetes.io/version``, and
  ``helm list`` rows (their APP VERSION);
* Terraform: ``Downloading registry.terraform.io/terraform-aws-modules/eks/aws 20.8.4``,
  ``Installing hashicorp/helm v2.12.1``, a module block's ``version = "..."``;
* nodes: ``Kubelet Version:`` / ``Kube-Proxy Version:`` of ``describe node``,
  the VERSION column of ``get nodes``; an ``-eks-`` build means EKS;
* EKS: ``platformVersion`` with the cluster ``version`` of ``aws eks describe-cluster``,
  and EKS-optimised AMI names (``amazon-eks-node-1.29-v20240227``,
  ``bottlerocket-aws-k8s-1.29-...``), which name the Kubernetes minor version;
* API versions that date a release: ``karpenter.sh/v1beta1`` was served by
  Karpenter 0.32 to 1.0, so it reads as ``>=0.32.0 <1.1.0``.

A component read several ways keeps its strongest readings; several exact
versions (an upgrade half done) read as the span between them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from .numbers import Bound, Span, parse_version
from .ranges import reading_span

EXACT, NODE, MINOR, DATED = 4, 3, 2, 1      # how much a reading is worth


@dataclass(frozen=True)
class Reading:
    component: str
    version: str
    rank: int
    source: str
    line: str


# image repository (its last path segments) -> component
IMAGES: tuple[tuple[str, str], ...] = (
    ("karpenter/controller", "Karpenter"), ("karpenter/karpenter", "Karpenter"),
    ("aws-karpenter/controller", "Karpenter"),
    ("amazon-k8s-cni", "VPC CNI"), ("amazon-k8s-cni-init", "VPC CNI"), ("amazon/aws-network-policy-agent", "VPC CNI"),
    ("aws-ebs-csi-driver", "EBS CSI driver"), ("aws-efs-csi-driver", "EFS CSI driver"),
    ("coredns", "CoreDNS"), ("aws-load-balancer-controller", "AWS Load Balancer Controller"),
    ("metrics-server", "metrics-server"), ("cluster-autoscaler", "Cluster Autoscaler"),
    ("ingress-nginx/controller", "ingress-nginx"), ("cert-manager-controller", "cert-manager"),
    ("eks-pod-identity-agent", "EKS Pod Identity Agent"),
)
_KUBE_PROXY_IMAGE = "kube-proxy"
# Helm charts whose chart version is the application's version.
CHARTS_VERSIONED_AS_APP = {"karpenter": "Karpenter"}
# app.kubernetes.io/name values, Helm chart names -> component
APP_NAMES = {
    "karpenter": "Karpenter", "aws-ebs-csi-driver": "EBS CSI driver", "aws-efs-csi-driver": "EFS CSI driver",
    "aws-load-balancer-controller": "AWS Load Balancer Controller", "coredns": "CoreDNS",
    "metrics-server": "metrics-server", "cert-manager": "cert-manager", "ingress-nginx": "ingress-nginx",
    "aws-node": "VPC CNI", "aws-vpc-cni": "VPC CNI", "cluster-autoscaler": "Cluster Autoscaler",
}
# Parts of a component that articles name in their ranges ("terraform-provider-helm >=3.0.0").
PRODUCTS = ("terraform-provider-helm", "terraform-provider-kubernetes", "terraform-provider-aws", "runc")
# Every name this module can produce.
KNOWN_COMPONENTS = frozenset(
    {c for _, c in IMAGES} | set(APP_NAMES.values()) | set(PRODUCTS)
    | {"Kubernetes", "kubelet", "kubectl", "EKS", "Helm", "containerd", "Terraform AWS EKS module"})

# API versions and the Karpenter releases that served them (a superset, to stay safe):
# v1alpha5 (Provisioner/Machine) until 0.32; v1beta1 from 0.32 until 1.0; v1 from the
# 0.33+ migration patches on.
API_DATES = {
    "karpenter.sh/v1alpha5": ("Karpenter", "<0.33.0"),
    "karpenter.k8s.aws/v1alpha1": ("Karpenter", "<0.33.0"),
    "karpenter.sh/v1beta1": ("Karpenter", ">=0.32.0 <1.1.0"),
    "karpenter.k8s.aws/v1beta1": ("Karpenter", ">=0.32.0 <1.1.0"),
    "karpenter.sh/v1": ("Karpenter", ">=0.33.0"),
    "karpenter.k8s.aws/v1": ("Karpenter", ">=0.33.0"),
}

_V = r"v?\d+\.\d+\.\d+[\w.+-]*"        # a version as tools print it
_Q = r"[\"']?"                          # an optional quote (YAML, JSON)
_IMAGE = re.compile(r"(?P<repo>[\w.-]+(?::\d+)?(?:/[\w.-]+)*):(?P<tag>v?\d+\.\d+[\w.+-]*)(?:@sha256:[0-9a-f]+)?")
_KUBECTL_SHORT = re.compile(r"^\s*(?P<which>Client|Server) Version:\s*"
                            r"(?:version\.Info\{.*?GitVersion:\"(?P<git>[^\"]+)\"|(?P<short>v?\d+\.\d+\.\d+\S*))")
_GIT_VERSION = re.compile(_Q + r"gitVersion" + _Q + r"\s*:\s*" + _Q + r"(?P<v>v?\d+\.\d+\.\d+[^\"',\s]*)")
_CHART_LABEL = re.compile(r"helm\.sh/chart" + _Q + r"\s*[:=]\s*" + _Q
                          + r"(?P<chart>[a-z0-9][a-z0-9-]*?)-(?P<v>" + _V + ")")
_APP_NAME = re.compile(r"app\.kubernetes\.io/name" + _Q + r"\s*[:=]\s*" + _Q + r"(?P<name>[\w.-]+)")
_APP_VERSION = re.compile(r"app\.kubernetes\.io/version" + _Q + r"\s*[:=]\s*" + _Q + r"(?P<v>" + _V + ")")
_HELM_LIST_ROW = re.compile(r"\s(?P<chart>[a-z0-9][a-z0-9-]*?)-(?P<cv>" + _V + r")\s+(?P<app>" + _V + r")\s*$")
_TF_MODULE = re.compile(r"terraform-aws-modules/eks/aws(?://modules/[\w-]+)?\s+(?P<v>\d+\.\d+\.\d+)")
_TF_PROVIDER = re.compile(r"(?:Installing|Installed|Using previously-installed|Downloading)\s+"
                          r"hashicorp/(?P<name>helm|kubernetes|aws)\s+v?(?P<v>\d+\.\d+\.\d+)")
_TF_SOURCE = re.compile(r"source\s*=\s*\"terraform-aws-modules/eks/aws(?://modules/[\w-]+)?\"")
_TF_VERSION = re.compile(r"^\s*version\s*=\s*\"(?P<v>[^\"]+)\"")
_NODE_FIELD = re.compile(r"^\s*(?P<what>Kubelet|Kube-Proxy) Version:\s*(?P<v>v?\d+\.\d+\.\d+\S*)")
_RUNTIME = re.compile(r"Container Runtime Version:\s*containerd://(?P<v>\d+\.\d+\.\d+\S*)")
_NODE_ROW = re.compile(r"^\S+\s+(?:Ready|NotReady|Unknown)(?:,SchedulingDisabled)?\s+\S+\s+\S+\s+"
                       r"(?P<v>v\d+\.\d+\.\d+\S*)")
_PLATFORM = re.compile(_Q + r"platform[ _]?[vV]ersion" + _Q + r"\s*[:=]\s*" + _Q + r"(?P<p>eks\.\d+)")
_CLUSTER_VERSION = re.compile(r"^\s*" + _Q + r"(?:version|Kubernetes version)" + _Q + r"\s*[:=]\s*" + _Q
                              + r"(?P<v>1\.\d+)" + _Q + r",?\s*$")
_AMI = re.compile(r"(?:amazon-eks-(?:arm64-|gpu-)?node-(?:al2023-[\w]+-(?:standard|nvidia|neuron)-)?|"
                  r"bottlerocket-aws-k8s-)(?P<minor>1\.\d+)[-_]")
_API = re.compile(r"(?:apiVersion|API Version)[\"']?\s*[:=]\s*[\"']?(?P<api>karpenter\.(?:sh|k8s\.aws)/v\w+)")

@lru_cache(maxsize=1024)
def _minor(version: str) -> str:
    parsed = parse_version(version)
    return ".".join(str(p) for p in parsed.version.parts[:2]) if parsed else ""


@lru_cache(maxsize=1024)
def _exact(version: str) -> str:
    parsed = parse_version(version)
    return str(parsed.version) if parsed else ""


def _image_component(repo: str) -> str:
    repo = repo.lower()
    for suffix, component in IMAGES:
        if repo == suffix or repo.endswith("/" + suffix):
            return component
    return ""


def _lines_with(text: str, needle: str) -> Iterator[tuple[int, str]]:
    """(offset, line) of every line holding ``needle``, each line once. ``str.find`` keeps a
    10 MB upload to a few milliseconds for a needle that does not occur."""
    pos = text.find(needle)
    while pos != -1:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        yield start, text[start:end]
        pos = text.find(needle, end)


class _Found:
    def __init__(self) -> None:
        self.items: list[Reading] = []
        self._seen: set[tuple[str, str, str]] = set()

    def add(self, component: str, version: str, rank: int, source: str, line: str) -> None:
        key = (component, version, source)
        if version and key not in self._seen:
            self._seen.add(key)
            self.items.append(Reading(component, version, rank, source, line.strip()[:300]))


def _images(text: str, found: _Found) -> None:
    needles = {suffix.rsplit("/", 1)[-1] for suffix, _ in IMAGES} | {_KUBE_PROXY_IMAGE}
    lines: dict[int, str] = {}
    for needle in needles:
        for start, line in _lines_with(text, needle + ":"):
            lines[start] = line
    for _, line in sorted(lines.items()):
        for m in _IMAGE.finditer(line):
            repo = m.group("repo")
            component = _image_component(repo)
            if component:
                found.add(component, _exact(m.group("tag")), EXACT, "image", line)
            elif repo.lower().endswith(_KUBE_PROXY_IMAGE):
                found.add("Kubernetes", _minor(m.group("tag")), MINOR, "kube-proxy image", line)


def _kubectl(text: str, found: _Found) -> None:
    for needle in ("Client Version:", "Server Version:"):
        for _, line in _lines_with(text, needle):
            m = _KUBECTL_SHORT.match(line)
            if m:
                which = "client" if m.group("which") == "Client" else "server"
                _kubectl_reading(found, which, m.group("git") or m.group("short"), line)
    for start, line in _lines_with(text, "gitVersion"):
        m = _GIT_VERSION.search(line)
        if not m:
            continue
        before = text[max(0, start - 800):start]      # -o yaml / -o json: the block it sits in
        client, server = before.rfind("clientVersion"), before.rfind("serverVersion")
        if client >= 0 or server >= 0:
            _kubectl_reading(found, "client" if client > server else "server", m.group("v"), line)


def _kubectl_reading(found: _Found, which: str, raw: str, line: str) -> None:
    version = _exact(raw)
    if which == "client":
        found.add("kubectl", version, EXACT, "kubectl version (client)", line)
        return
    found.add("Kubernetes", version, EXACT, "kubectl version (server)", line)
    if "-eks-" in raw:
        found.add("EKS", _minor(raw), EXACT, "kubectl version (server)", line)


def _nodes(text: str, found: _Found) -> None:
    for needle in ("Kubelet Version:", "Kube-Proxy Version:"):
        for _, line in _lines_with(text, needle):
            m = _NODE_FIELD.match(line)
            if m:
                v, what = m.group("v"), f"{m.group('what')} Version"
                found.add("kubelet", _exact(v), NODE, what, line)
                found.add("Kubernetes", _exact(v), NODE, what, line)
                if "-eks-" in v:
                    found.add("EKS", _minor(v), MINOR, what, line)
    for _, line in _lines_with(text, "Container Runtime Version:"):
        m = _RUNTIME.search(line)
        if m:
            found.add("containerd", _exact(m.group("v")), NODE, "Container Runtime Version", line)
    for _, line in _lines_with(text, " v1."):          # get nodes: NAME STATUS ROLES AGE VERSION
        if "Ready" not in line and "Unknown" not in line:
            continue
        m = _NODE_ROW.match(line)
        if m:
            v = m.group("v")
            found.add("kubelet", _exact(v), NODE, "get nodes VERSION", line)
            found.add("Kubernetes", _exact(v), NODE, "get nodes VERSION", line)
            if "-eks-" in v:
                found.add("EKS", _minor(v), MINOR, "get nodes VERSION", line)


def _helm(text: str, found: _Found) -> None:
    for _, line in _lines_with(text, "helm.sh/chart"):
        m = _CHART_LABEL.search(line)
        if m and m.group("chart") in CHARTS_VERSIONED_AS_APP:
            found.add(CHARTS_VERSIONED_AS_APP[m.group("chart")], _exact(m.group("v")), EXACT, "helm.sh/chart", line)
    for start, line in _lines_with(text, "app.kubernetes.io/version"):
        v = _APP_VERSION.search(line)
        if not v:
            continue
        # the app's name is another label of the same object: the nearest one before, else after
        before = list(_APP_NAME.finditer(text, max(0, start - 1500), start))
        name = before[-1] if before else _APP_NAME.search(text, start, min(len(text), start + 1500))
        component = APP_NAMES.get(name.group("name").lower(), "") if name else ""
        if component:
            found.add(component, _exact(v.group("v")), EXACT, "app.kubernetes.io/version", line)
    for _, line in _lines_with(text, "deployed"):
        m = _HELM_LIST_ROW.search(line)
        if m and m.group("chart") in APP_NAMES:
            found.add(APP_NAMES[m.group("chart")], _exact(m.group("app")), EXACT, "helm list APP VERSION", line)


def _terraform(text: str, found: _Found) -> None:
    for start, line in _lines_with(text, "terraform-aws-modules/eks/aws"):
        m = _TF_MODULE.search(line)
        if m:
            found.add("Terraform AWS EKS module", m.group("v"), EXACT, "terraform init", line)
        if not _TF_SOURCE.search(line):
            continue
        for following in text[start:start + 400].split("\n")[1:5]:     # the module block's version
            v = _TF_VERSION.match(following)
            if v:
                constraint = v.group("v").strip()
                parsed = parse_version(constraint)
                if parsed is not None and parsed.precision == 3:
                    found.add("Terraform AWS EKS module", str(parsed.version), EXACT, "module version", following)
                elif reading_span(constraint) is not None:
                    found.add("Terraform AWS EKS module", constraint, MINOR, "module version constraint", following)
                break
    for _, line in _lines_with(text, "hashicorp/"):
        m = _TF_PROVIDER.search(line)
        if m:
            found.add(f"terraform-provider-{m.group('name')}", m.group("v"), EXACT, "terraform init", line)


def _eks(text: str, found: _Found) -> None:
    for needle in ("amazon-eks-", "bottlerocket-aws-k8s-"):
        for _, line in _lines_with(text, needle):
            m = _AMI.search(line)
            if m:
                found.add("EKS", m.group("minor"), MINOR, "AMI name", line)
                found.add("Kubernetes", m.group("minor"), MINOR, "AMI name", line)
    for needle in ("platformVersion", "platform_version", "Platform version", "platform version"):
        for start, line in _lines_with(text, needle):
            p = _PLATFORM.search(line)
            if not p:
                continue
            near = text[max(0, start - 2000):start + 2000].split("\n")
            cluster = next((m.group("v") for near_line in near if (m := _CLUSTER_VERSION.match(near_line))), "")
            if cluster:
                platform = p.group("p")
                found.add("EKS", cluster, EXACT, f"platformVersion {platform}", f"version {cluster}, {platform}")
                found.add("Kubernetes", cluster, EXACT, f"EKS cluster version ({platform})", f"version {cluster}")


def _apis(text: str, found: _Found) -> None:
    for needle in ("karpenter.sh/v", "karpenter.k8s.aws/v"):
        for _, line in _lines_with(text, needle):
            m = _API.search(line)
            if m and m.group("api") in API_DATES:
                component, span = API_DATES[m.group("api")]
                found.add(component, span, DATED, f"apiVersion {m.group('api')}", line)


def readings(text: str) -> list[Reading]:
    """Every version the text shows, with where it came from."""
    found = _Found()
    for source in (_images, _kubectl, _nodes, _helm, _terraform, _eks, _apis):
        source(text, found)
    return found.items


def combine(found: Iterable[Reading]) -> dict[str, str]:
    """One version per component: its strongest readings; several exact ones as the span between them."""
    best: dict[str, list[Reading]] = {}
    for r in found:
        current = best.get(r.component)
        if current is None or r.rank > current[0].rank:
            best[r.component] = [r]
        elif r.rank == current[0].rank:
            current.append(r)
    out: dict[str, str] = {}
    for component, rs in sorted(best.items()):
        values = list(dict.fromkeys(r.version for r in rs))
        if len(values) == 1:
            if reading_span(values[0]) is not None:
                out[component] = values[0]            # as read: "1.1.1", "1.29", ">=0.32.0 <1.1.0"
            continue
        spans = [s for v in values if (s := reading_span(v)) is not None]
        if not spans:
            continue
        exact = [s for s in spans if s.lo is not None and s.hi is not None and s.lo.version == s.hi.version]
        if exact:
            lo = min(s.lo.version for s in exact)   # type: ignore[union-attr]
            hi = max(s.hi.version for s in exact)   # type: ignore[union-attr]
            out[component] = str(Span(Bound(lo, True), Bound(hi, True)))
            continue
        joined = spans[0]
        for s in spans[1:]:
            meet = joined.intersect(s)
            joined = meet if not meet.is_empty() else joined
        out[component] = str(joined)
    return out


def read_versions(text: str) -> dict[str, str]:
    """{component: version} for the versions ``text`` shows (``{}`` when none)."""
    if not text:
        return {}
    return combine(readings(text))


__all__ = ["KNOWN_COMPONENTS", "PRODUCTS", "Reading", "combine", "read_versions", "readings"]
