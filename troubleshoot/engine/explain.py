"""What the structured fields of a paste say, in words, for people.

"AWS denied `iam:PassRole` to role `prod-karpenter`, from Karpenter": shown with every
answer, and most useful when there is no confident one (the engineer still learns what
the message is about). Plain Python, no Django.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .attribution import display
from .fields import KNOWN_COMPONENTS, Fields
from .types import Evidence

_HOW = {"pattern": "its message pattern", "phrase": "its message", "fields": "the fields it recognises",
        "fuzzy": "a message close to one it lists"}


def why(evidence: Sequence[Evidence], shared: Sequence[str], conflict_with: Sequence[str]) -> list[str]:
    """Why an article was suggested: its first evidence line, the words its text shares with the paste,
    and, when it was demoted, the component the paste is from instead."""
    out = []
    if evidence:
        out.append(f"{_HOW.get(evidence[0].how, evidence[0].how)} on line {evidence[0].line}")
    if shared:
        out.append("its text shares: " + ", ".join(shared))
    if conflict_with:
        out.append("written for another component than the one in the paste ("
                   + ", ".join(display(c) for c in conflict_with) + ")")
    return out

__all__ = ["describe", "why"]


def _short_role(role: str) -> str:
    return role if len(role) <= 48 else role[:20] + "…" + role[-20:]


def describe(per_line: Iterable[Fields], components: Sequence[str] = ()) -> list[str]:
    """What was read, in words: "AWS denied `iam:PassRole` to role `x-karpenter`, from the Karpenter controller"."""
    said: list[str] = []

    def say(sentence: str) -> None:
        if sentence not in said:
            said.append(sentence)

    for f in per_line:
        printers = [p for p in f.get("printed_by", []) if p in KNOWN_COMPONENTS]
        who = f", from {printers[0]}" if printers else ""
        for action in f.get("aws.action", [])[:2]:
            role = f.get("aws.role", [None])[0]
            deny = " (an explicit deny: an SCP, boundary or deny statement)" if "explicit" in f.get("aws.deny", []) \
                else ""
            kind = "user" if ":user/" in f.get("aws.principal", [""])[0] else "role"
            target = f" to {kind} `{_short_role(role)}`" if role else ""
            say(f"AWS denied `{action}`{target}{deny}{who}")
        if "aws.action" not in f and f.get("aws.code"):
            op = ""
            if f.get("aws.service") and f.get("aws.operation"):
                op = f" on {f['aws.service'][0]} {f['aws.operation'][0]}"
            elif f.get("aws.operation"):
                op = f" on {f['aws.operation'][0]}"
            say(f"AWS answered `{f['aws.code'][0]}`{op}{who}")
        if f.get("k8s.verb"):
            scope = f" in namespace `{f['k8s.namespace'][0]}`" if f.get("k8s.namespace") else ""
            group = f.get("k8s.group", [""])[0]
            res = f.get("k8s.resource", ["?"])[0] + (f".{group}" if group and group != "core" else "")
            say(f"Kubernetes RBAC refused `{f['k8s.user'][0]}` to `{f['k8s.verb'][0]}` `{res}`{scope}")
        elif f.get("k8s.reason"):
            say(f"The Kubernetes API answered `{f['k8s.reason'][0]}`{who}")
        for kind, version in zip(f.get("crd.kind", []), f.get("crd.version", [])):
            say(f"The API server does not know kind `{kind}` in `{version}`")
        for hook in f.get("webhook", [])[:2]:
            say(f"The {f.get('webhook.type', ['admission'])[0]} webhook `{hook}` failed")
        for reason in f.get("event.reason", [])[:1]:
            say(f"Kubernetes event `{reason}`")
        for addr in f.get("tf.address", [])[:1]:
            say(f"Terraform resource `{addr}`")
        if f.get("helm.action"):
            say(f"Helm {f['helm.action'][0]} failed")
    if components:
        say("Components in the paste: " + ", ".join(components[:4]))
    return said[:8]
