"""Taints, tolerations and the rules that decide whether one tolerates the other.

The matching follows the Kubernetes API semantics:

* a toleration with an effect only matches taints with that same effect; an
  empty effect matches every effect;
* an empty key is only valid with ``operator: Exists`` and then matches every
  taint key (and value);
* ``Exists`` ignores the value, ``Equal`` (the default) compares it exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

BLOCKING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
EFFECTS = frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute"})


@dataclass(frozen=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""

    def __str__(self) -> str:
        text = self.key
        if self.value:
            text += f"={self.value}"
        if self.effect:
            text += f":{self.effect}"
        return text

    @property
    def blocks_scheduling(self) -> bool:
        return self.effect in BLOCKING_EFFECTS


@dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    seconds: int | None = None

    def __str__(self) -> str:
        text = self.key
        if self.value:
            text += f"={self.value}"
        if self.effect:
            text += f":{self.effect}"
        if self.operator == "Exists" and not self.value:
            text += " op=Exists" if (self.key or self.effect) else "op=Exists"
        if self.seconds is not None:
            text += f" for {self.seconds}s"
        return text

    def tolerates(self, taint: Taint) -> bool:
        if self.effect and self.effect != taint.effect:
            return False
        if not self.key:
            # Only "operator: Exists" may leave the key empty; it tolerates all.
            return self.operator == "Exists"
        if self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Equal", ""):
            return self.value == taint.value
        return False


def tolerated(taint: Taint, tolerations: Iterable[Toleration]) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def untolerated(taints: Iterable[Taint], tolerations: Iterable[Toleration],
                blocking_only: bool = True) -> list[Taint]:
    """Taints from ``taints`` that no toleration covers."""
    tols = list(tolerations)
    result = []
    for taint in taints:
        if blocking_only and not taint.blocks_scheduling:
            continue
        if not tolerated(taint, tols):
            result.append(taint)
    return result


# ----------------------------------------------------------------- parsing

_TAINT_TEXT = re.compile(r"^(?P<key>[^=:\s]+)(?:=(?P<value>[^:\s]*))?(?::(?P<effect>\w+))?$")
_TOL_TEXT = re.compile(r"^(?P<key>[^=:\s]*)(?:=(?P<value>[^:\s]*))?(?::(?P<effect>\w+))?$")
_TOL_SECONDS = re.compile(r"\s+for\s+(\d+)s$")


def parse_taint_text(text: str) -> Taint | None:
    """Parse ``key=value:Effect`` / ``key:Effect`` as printed by describe."""
    text = text.strip()
    if not text or text in ("<none>", "<nil>"):
        return None
    m = _TAINT_TEXT.match(text)
    if not m:
        return None
    return Taint(m["key"], m["value"] or "", m["effect"] or "")


def parse_toleration_text(text: str) -> Toleration | None:
    """Parse the describe rendering, e.g. ``node.kubernetes.io/not-ready:NoExecute
    op=Exists for 300s``, ``dedicated=gpu:NoSchedule`` or a bare ``op=Exists``."""
    text = text.strip()
    if not text or text in ("<none>", "<nil>"):
        return None
    seconds = None
    m = _TOL_SECONDS.search(text)
    if m:
        seconds = int(m.group(1))
        text = text[: m.start()]
    operator = "Equal"
    if text.endswith("op=Exists"):
        operator = "Exists"
        text = text[: -len("op=Exists")].rstrip()
    m = _TOL_TEXT.match(text)
    if not m:
        return None
    return Toleration(m["key"] or "", operator, m["value"] or "", m["effect"] or "", seconds)


def taint_from_dict(obj: Any) -> Taint | None:
    if not isinstance(obj, dict) or not obj.get("key"):
        return None
    return Taint(str(obj.get("key", "")), str(obj.get("value") or ""), str(obj.get("effect") or ""))


def toleration_from_dict(obj: Any) -> Toleration | None:
    if not isinstance(obj, dict):
        return None
    seconds = obj.get("tolerationSeconds")
    try:
        secs = int(seconds) if seconds is not None else None
    except (TypeError, ValueError):
        secs = None
    return Toleration(
        key=str(obj.get("key") or ""),
        operator=str(obj.get("operator") or "Equal"),
        value=str(obj.get("value") or ""),
        effect=str(obj.get("effect") or ""),
        seconds=secs,
    )


_MSG_TAINT = re.compile(r"\{([^{}:]+):\s*([^{}]*)\}")


def taints_in_scheduler_message(message: str) -> list[Taint]:
    """Taints quoted by the scheduler, e.g. ``{karpenter.sh/controller: true}``.

    The scheduler prints key and value but not the effect, so the effect is
    left empty.
    """
    found: list[Taint] = []
    for key, value in _MSG_TAINT.findall(message):
        taint = Taint(key.strip(), value.strip())
        if taint not in found:
            found.append(taint)
    return found
