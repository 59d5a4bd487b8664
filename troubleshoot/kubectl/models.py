"""Public result types of the kubectl-output analysis engine.

These are plain dataclasses so that callers (a Django view, a Celery task,
a CLI) can serialise them with ``to_dict()`` without knowing the internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("critical", "warning", "info")
_SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}


def severity_rank(severity: str) -> int:
    """Lower is more severe; unknown severities sort last."""
    return _SEVERITY_RANK.get(severity, len(SEVERITIES))


@dataclass
class Finding:
    """One problem detected on one Kubernetes object."""

    kind: str
    namespace: str
    name: str
    problem: str
    detail: str
    evidence: list[str] = field(default_factory=list)
    severity: str = "warning"
    # Keeps findings apart that share kind, name and problem: the fragment an
    # unnamed object came from, or the reason and message of a warning event.
    subject: str = ""
    # For a finding about several pods of one owner: their names, and those
    # whose explanation comes from a sibling's event rather than their own.
    members: list[str] = field(default_factory=list)
    inferred: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.kind, self.namespace, self.name, self.problem, self.subject)

    def add_evidence(self, lines: list[str], limit: int = 20) -> None:
        """Append lines that are not already present, keeping order."""
        seen = set(self.evidence)
        for line in lines:
            if len(self.evidence) >= limit:
                break
            if line and line not in seen:
                self.evidence.append(line)
                seen.add(line)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "problem": self.problem,
            "detail": self.detail,
            "evidence": list(self.evidence),
            "severity": self.severity,
            "members": list(self.members),
            "inferred": list(self.inferred),
        }


@dataclass
class Section:
    """A contiguous piece of the input understood as one output format."""

    command: str | None
    format: str
    start_line: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "format": self.format,
            "start_line": self.start_line,
            "text": self.text,
        }


@dataclass
class Report:
    sections: list[Section] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    resources: dict[str, int] = field(default_factory=dict)
    unparsed_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "sections": [s.to_dict() for s in self.sections],
            "findings": [f.to_dict() for f in self.findings],
            "resources": dict(self.resources),
            "unparsed_text": self.unparsed_text,
        }
