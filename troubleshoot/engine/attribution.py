"""Who printed a message, and whom it is about: a signal against answers for the wrong component.

A denial quoted in the VPC CNI's log is a VPC CNI problem even when its words resemble a
Karpenter message; a metrics-server readiness failure is not an application's probe. When the
paste says clearly which controller printed it (a journal unit, a JSON ``logger``/``caller``,
the container of ``kubectl logs --prefix``) or which one was denied (the role, the action, the
webhook), an article written for *another* specific controller is penalised in ranking.
Articles about Kubernetes in general (no specific controller among their components) are never
penalised. Plain Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .fields import KNOWN_COMPONENTS, Fields, components_of

__all__ = ["canonical", "display", "specific", "owners", "SPECIFIC", "who", "conflicts", "agrees"]

# Components that are one controller or tool: an answer for one of them is wrong for another.
SPECIFIC = frozenset({
    "karpenter", "vpccni", "ebscsidriver", "efscsidriver", "awsloadbalancercontroller", "externaldns",
    "certmanager", "metricsserver", "coredns", "clusterautoscaler", "ingressnginx", "argocd",
    "nodeterminationhandler", "ekspodidentity", "helm", "terraform", "eksautomode",
})
_ALIASES = {
    "awsnodeterminationhandler": "nodeterminationhandler", "nth": "nodeterminationhandler",
    "albcontroller": "awsloadbalancercontroller", "awslbc": "awsloadbalancercontroller",
    "lbc": "awsloadbalancercontroller", "ebscsi": "ebscsidriver", "efscsi": "efscsidriver",
    "awsebscsidriver": "ebscsidriver", "awsefscsidriver": "efscsidriver", "amazonvpccni": "vpccni",
    "awsvpccni": "vpccni", "awsnode": "vpccni", "nginxingress": "ingressnginx",
    "ingressnginxcontroller": "ingressnginx",
    "podidentity": "ekspodidentity", "podidentityagent": "ekspodidentity", "ekspodidentityagent": "ekspodidentity",
    "terraformawseksmodule": "terraform", "terraformkubernetesprovider": "terraform",
    "terraformhelmprovider": "terraform", "kubednscoredns": "coredns", "certmanagerio": "certmanager",
    "argo": "argocd", "casautoscaler": "clusterautoscaler", "autoscaler": "clusterautoscaler",
}
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def canonical(name: str) -> str:
    key = _NON_ALNUM.sub("", name.lower())
    return _ALIASES.get(key, key)


def display(name: str) -> str:
    """A canonical name as people write it ("awsloadbalancercontroller" -> "AWS Load Balancer Controller")."""
    return _DISPLAY.get(name, name)


def specific(components: Iterable[str]) -> frozenset[str]:
    """The canonical names of the specific controllers among ``components`` (computed once per article)."""
    return frozenset(canonical(c) for c in components) & SPECIFIC


def owners(slug: str, components: Iterable[str], named: Iterable[str] = ()) -> frozenset[str]:
    """The specific controllers an article is written for, for :func:`conflicts` and the owner bonus: those of
    its components its slug names (``karpenter-iam-denied``), plus the ones its own messages name. An article
    whose slug names none (``rbac-forbidden``, ``x509-unknown-authority``) is about a general mechanism: the
    controllers it lists are examples, and a paste from another controller is no conflict."""
    own = specific(components) & specific(components_of(slug))
    return own | specific(named) if own else own


def who(per_line: Iterable[Fields]) -> list[str]:
    """Specific components the paste names as printer or denied principal, most named first."""
    counts: dict[str, int] = {}
    for f in per_line:
        if not f:
            continue
        strong = "printed_by" in f or "aws.role" in f or "aws.action" in f or "webhook" in f
        if not strong:
            continue
        for name in {canonical(c) for c in f.get("component", ())}:
            if name in SPECIFIC:
                counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda n: (-counts[n], n))


def conflicts(article_specific: frozenset[str], paste_who: Sequence[str]) -> bool:
    """The paste is about specific component(s) and the article (its ``specific`` set) about others only."""
    return bool(paste_who) and bool(article_specific) and not (article_specific & set(paste_who))


def agrees(article_specific: frozenset[str], paste_components: Iterable[str]) -> bool:
    return bool(article_specific) and any(canonical(c) in article_specific for c in paste_components)


_DISPLAY = {canonical(n): n for n in KNOWN_COMPONENTS}
