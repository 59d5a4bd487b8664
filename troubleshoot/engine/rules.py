"""Symptoms that match on structured fields (``when: {field: regex}``) instead of words.

A symptom with conditions matches a line when every condition's regex fully matches one of
the values :mod:`fields` read for that field on that line (case-insensitive). ``component``
and ``printed_by`` may also be satisfied by the paste as a whole: a Karpenter log's error
line rarely names Karpenter itself. Regexes are editors' input, so they run through the
``regex`` module with a timeout, like symptom patterns; field values are short.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

from .condense import Template
from .fields import FIELD_CAPTURES, Fields, components_of, read_fields
from .types import Line, Signature

__all__ = ["FieldRules", "RuleHit", "PASTE_WIDE", "template_fields"]

PASTE_WIDE = frozenset({"component", "printed_by"})
# Conditions on these alone say only what kind of message it is (a Forbidden, an Unauthorized, an event
# reason, who printed it): a symptom needs one on a narrower field (the action, the verb, the kind, the
# webhook ...) to count as much as a pattern hit. A condition on ``component`` narrows: the paste is about
# that controller (a kubelet's Unauthorized in a paste about a Karpenter NodeClaim is a Karpenter node's).
BROAD = frozenset({"k8s.reason", "aws.code", "aws.status", "aws.deny", "event.reason", "printed_by",
                   "webhook.type", "error.head", "error.root"})
_FLAGS = regex.IGNORECASE | regex.VERSION0


@dataclass(frozen=True)
class RuleHit:
    sig: int
    template: int
    captures: dict[str, str]
    broad: bool = False  # only broad fields were required (see BROAD)


class FieldRules:
    """The structured conditions of every signature, compiled once."""

    def __init__(self, signatures: Sequence[Signature], *, timeout: float = 0.05):
        self.timeout = timeout
        self.rules: list[tuple[int, list[tuple[str, regex.Pattern[str]]]]] = []
        self.broad: set[int] = set()
        for i, sig in enumerate(signatures):
            if not sig.when:
                continue
            try:
                conds = [(name, regex.compile(rx, _FLAGS)) for name, rx in sig.when]
            except regex.error:
                continue  # the lint and the admin refuse these; never fail a match for one
            # cheapest first: a line-level field that most lines lack rejects fastest
            conds.sort(key=lambda c: c[0] in PASTE_WIDE)
            self.rules.append((i, conds))
            if all(name in BROAD for name, _ in conds):
                self.broad.add(i)
        self.conditioned = frozenset(i for i, _ in self.rules)  # symptoms defined by their fields

    def __len__(self) -> int:
        return len(self.rules)

    def _holds(self, rx: regex.Pattern[str], values: Sequence[str]) -> str | None:
        for value in values:
            try:
                if rx.fullmatch(value, timeout=self.timeout):
                    return value
            except TimeoutError:
                return None
        return None

    def match(self, per_template: Sequence[Fields], paste: Fields) -> list[RuleHit]:
        """Every (signature, template) whose conditions hold; ``paste`` holds paste-wide fields."""
        hits: list[RuleHit] = []
        present = [i for i, f in enumerate(per_template) if f]
        for sig, conds in self.rules:
            for ti in present:
                fields = per_template[ti]
                captures: dict[str, str] = {}
                for name, rx in conds:
                    values = fields.get(name, ())
                    found = self._holds(rx, values) if values else None
                    if found is None and name in PASTE_WIDE:
                        found = self._holds(rx, paste.get(name, ()))
                    if found is None:
                        break
                    if name in FIELD_CAPTURES:
                        captures[FIELD_CAPTURES[name]] = found
                else:
                    for name, key in FIELD_CAPTURES.items():
                        if name in fields and key not in captures:
                            captures[key] = fields[name][0]
                    hits.append(RuleHit(sig, ti, captures, sig in self.broad))
                    break  # the first line that satisfies it is its evidence
        return hits


def template_fields(lines: Sequence[Line], templates: Sequence[Template], limit: int) -> tuple[list[Fields], Fields]:
    """Structured fields of the ``limit`` most severe templates, and the paste-wide components
    (most frequent first) and printers."""
    per: list[Fields] = [{} for _ in templates]
    order = sorted(range(len(templates)), key=lambda i: (-templates[i].severity, i))[:limit]
    counts: dict[str, int] = {}
    printers: list[str] = []
    for ti in sorted(order):
        line = lines[templates[ti].first]
        fields = per[ti] = read_fields(line)
        names = set(fields.get("component", ()))
        if not fields:
            names.update(components_of(line.text[:400]))
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        for name in fields.get("printed_by", ()):
            if name not in printers:
                printers.append(name)
    paste: Fields = {"component": sorted(counts, key=lambda n: (-counts[n], n))}
    if printers:
        paste["printed_by"] = printers
    return per, paste
