"""Entry point: text in, ``Report`` out."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator

from .analyzers import ANALYZERS, POST_PASSES
from .cleanup import clean_paste
from .describe_map import parse_describe
from .models import Finding, Report, Section, severity_rank
from .parse_tables import TABLE_PARSERS, ParseResult, command_namespace
from .resources import Inventory
from .splitter import command_words, split_sections
from .structured import load_json, load_yaml, parse_structured
from .textscan import adopt_orphans, scan

log = logging.getLogger(__name__)

Progress = Callable[[float, str], None]

# flags of ``kubectl logs`` that take a value
_LOG_FLAGS_WITH_VALUE = {"-n", "--namespace", "-c", "--container", "--tail", "--since",
                         "--since-time", "-l", "--selector", "--context", "--max-log-requests",
                         "--pod-running-timeout", "--kubeconfig", "--cluster", "--user"}


def logs_target(command: str | None) -> str:
    """Pod named by ``kubectl logs [flags] POD`` (``pod/x`` accepted)."""
    words = command_words(command)
    if len(words) < 2 or words[1] != "logs":
        return ""
    skip = False
    for word in words[2:]:
        if skip:
            skip = False
            continue
        if word in _LOG_FLAGS_WITH_VALUE:
            skip = True
            continue
        if word.startswith("-"):
            continue
        if "/" in word:
            kind, _, name = word.partition("/")
            return name if kind in ("pod", "pods", "po") else ""
        return word
    return ""


def parse_section(section: Section, seq: Iterator[int] | None = None) -> ParseResult:
    """Resources, events and log records of one section.

    ``seq`` numbers the objects the upload shows only in part (describe
    fragments, event rows without their object), so each stays distinct.
    """
    seq = seq if seq is not None else itertools.count(1)
    fmt = section.format
    if fmt in TABLE_PARSERS:
        return TABLE_PARSERS[fmt](section.text, section.command)
    if fmt == "describe":
        return parse_describe(section.text, section.command, seq=seq)
    if fmt in ("yaml", "json"):
        docs = load_yaml(section.text) if fmt == "yaml" else load_json(section.text)
        result = ParseResult()
        if not docs:
            result.unparsed.append(section.text)
            return result
        result.resources, result.events = parse_structured(docs, seq)
        if not result.resources and not result.events:
            result.unparsed.append(section.text)
        _use_source_lines(section.text, result)
        return result
    result = ParseResult()
    if fmt == "logs":
        result.logs.append((command_namespace(section.command) or "",
                            logs_target(section.command), section.text))
    found = scan(section.text, block_seq=seq)
    result.resources, result.events, result.records = found.resources, found.events, found.records
    # The whole text still goes to the matcher: a log line that yields no finding may
    # be the very message an article is written for.
    result.unparsed.append(section.text)
    return result


_VERBATIM_KEYS = ("message: ", "reason: ", "exitCode: ")


def _source_line(text: str, evidence: str) -> str:
    """The input line holding ``evidence`` (``key: value``), when the whole
    value sits on that one line (YAML ``key: value`` or JSON ``"key": "value"``)."""
    if not evidence.startswith(_VERBATIM_KEYS):
        return evidence
    key, _, value = evidence.partition(": ")
    if not value:
        return evidence
    for needle in (f"{key}: {value}", f'"{key}": "{value}"', f'"{key}": {value}'):
        idx = text.find(needle)
        if idx >= 0:
            start = text.rfind("\n", 0, idx) + 1
            end = text.find("\n", idx)
            return text[start:end if end >= 0 else len(text)].rstrip()
    return evidence


def _use_source_lines(text: str, result: ParseResult) -> None:
    """Swap the synthesised ``key: value`` evidence of YAML/JSON objects for the
    real input lines where the value sits on one line."""
    lists: list[list[str]] = []
    for res in result.resources:
        lists.append(res.evidence)
        lists.extend(c.evidence for c in res.containers.values())
        lists.extend(c.evidence for c in res.conditions.values())
    lists.extend(e.evidence for e in result.events)
    for evidence in lists:
        evidence[:] = [_source_line(text, e) for e in evidence]


def dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per (kind, namespace, name, problem) with merged evidence."""
    merged: dict[tuple[str, str, str, str, str], Finding] = {}
    for f in findings:
        existing = merged.get(f.key)
        if existing is None:
            merged[f.key] = f
            continue
        existing.add_evidence(f.evidence)
        if severity_rank(f.severity) < severity_rank(existing.severity):
            existing.severity = f.severity
        if len(f.detail) > len(existing.detail):
            existing.detail = f.detail
    return sorted(merged.values(),
                  key=lambda f: (severity_rank(f.severity), f.kind, f.namespace, f.name, f.problem))


def _notify(progress: Progress | None, fraction: float, message: str) -> None:
    if progress is None:
        return
    try:
        progress(fraction, message)
    except Exception:  # a broken progress callback must not break the analysis
        log.exception("progress callback failed")


def analyze_text(text: str, *, progress: Progress | None = None) -> Report:
    """Parse everything kubectl-like in ``text`` and run every analyser."""
    if not isinstance(text, str):
        text = str(text or "")
    text = clean_paste(text.replace("\x00", ""))
    _notify(progress, 0.0, "starting")
    try:
        sections = split_sections(text)
    except Exception:
        log.exception("splitting failed")
        sections = [Section(None, "text", 1, text)] if text.strip() else []
    _notify(progress, 0.2, f"split into {len(sections)} section(s)")

    inv = Inventory()
    unparsed: list[str] = []
    event_count = 0
    seq = itertools.count(1)
    for section in sections:
        try:
            result = parse_section(section, seq)
        except Exception:
            log.exception("parsing a %s section failed", section.format)
            unparsed.append(section.text)
            continue
        for res in result.resources:
            inv.add(res)
        for event in result.events:
            inv.add_event(event)
        event_count += len(result.events)
        event_count += sum(len(r.events) for r in result.resources)
        inv.log_texts.extend(result.logs)
        inv.log_records.extend(result.records)
        unparsed.extend(u for u in result.unparsed if u.strip())
    for res in adopt_orphans(inv.orphan_events, seq):
        inv.add(res)
    inv.orphan_events = []
    inv.resolve_namespaces()
    _notify(progress, 0.6, f"parsed {len(inv)} object(s)")

    findings: list[Finding] = []
    for name, analyzer in ANALYZERS:
        try:
            findings.extend(analyzer(inv))
        except Exception:
            log.exception("analyser %s failed", name)
    for name, post in POST_PASSES:
        try:
            findings = post(inv, findings)
        except Exception:
            log.exception("post-pass %s failed", name)
    findings = dedupe(findings)
    _notify(progress, 0.9, f"{len(findings)} finding(s)")

    resources = inv.counts()
    if event_count:
        resources["Event"] = event_count
    report = Report(sections=sections, findings=findings, resources=resources,
                    unparsed_text="\n".join(unparsed))
    _notify(progress, 1.0, "done")
    return report
