"""kubectl output analysis: accept uploads, redact them, run the kubectl engine and
link every finding to its articles through the matcher.

The work runs in a Celery task (inline without a broker); these functions are the
services the task, the API, the pages and the ``analyze`` command call.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from troubleshoot.engine.normalize import normalize
from troubleshoot.kubectl import PROBLEM_CODES, analyze_text
from troubleshoot.learning.services import analysis_observed
from troubleshoot.matching import match_payload, match_text
from troubleshoot.metrics import ANALYSIS_SECONDS, ANALYSIS_TOTAL
from troubleshoot.models import Analysis
from troubleshoot.redact import redact
from troubleshoot.versions import read_versions

log = logging.getLogger(__name__)

MAX_DISTINCT_MATCHES = 300
CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}
SEVERITY_RANK = {"critical": 3, "warning": 2, "info": 1}


# The article a finding's problem code is about, when one article owns it. One event
# line often carries several scheduling reasons; this orders the matched articles so
# each finding leads with the one for its own reason. It only reorders articles the
# matcher already found for the finding's evidence; it never adds one.
PROBLEM_TOPICS = {
    "FailedScheduling.UntoleratedTaint": "untolerated-taint",
    "Node.TaintNotTolerated": "untolerated-taint",
    "FailedScheduling.InsufficientResources": "insufficient-cpu-memory",
    "FailedScheduling.NodeAffinity": "node-affinity-mismatch",
    "FailedScheduling.TooManyPods": "too-many-pods",
    "FailedScheduling.UnboundPVC": "pvc-unbound",
    "PVC.Pending": "pvc-unbound",
    "FailedScheduling.VolumeNodeAffinityConflict": "volume-node-affinity-conflict",
    "FailedScheduling.FargateProfile": "karpenter-pending-on-fargate",
    "Karpenter.IncompatibleNodePool": "karpenter-incompatible-nodepool",
    "CrashLoopBackOff.OOMKilled": "oomkilled",
    "CrashLoopBackOff.ProbeFailure": "probe-failures",
    "Probe.NotReady": "probe-failures",
    "ImagePull.NotFound": "image-pull-backoff",
    "ImagePull.Unauthorized": "image-pull-backoff",
    "ImagePull.RateLimited": "image-pull-backoff",
    "ImagePull.WrongArchitecture": "exec-format-error",
    "CreateContainerConfigError.MissingSecret": "create-container-config-error",
    "CreateContainerConfigError.MissingConfigMap": "create-container-config-error",
    "CreateContainerConfigError.MissingKey": "create-container-config-error",
    "Pod.Evicted": "evicted-disk-pressure",
    "Node.DiskPressure": "evicted-disk-pressure",
    "Node.NotReady": "node-not-ready",
    "Node.Unknown": "node-not-ready",
    "Node.NetworkUnavailable": "node-not-ready",
    "Pod.FailedMount": "volume-attach-mount-failure",
    "NodeClaim.NotRegistered": "karpenter-nodes-not-joining",
    "NodeClaim.UnregisteredTaintNotFound": "karpenter-missing-startup-taint",
    "Container.OOMKilled": "oomkilled",
}


class UploadError(ValueError):
    """Input refused before any work: ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 400, code: str = "invalid") -> None:
        super().__init__(message)
        self.message, self.status, self.code = message, status, code


@dataclass
class Upload:
    name: str
    data: bytes


def decode_upload(upload: Upload) -> str:
    """Text of an uploaded file; binary files are refused by name."""
    data = upload.data
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise UploadError(f"{upload.name}: starts like UTF-16 but does not decode as it") from None
    head = data[:8192]
    if b"\x00" in head:
        raise UploadError(f"{upload.name}: looks like a binary file (it contains NUL bytes); "
                          "upload the text kubectl printed")
    if head:
        controls = sum(1 for b in head if b < 9 or 13 < b < 32)
        if controls / len(head) > 0.05:
            raise UploadError(f"{upload.name}: looks like a binary file, not text")
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") > max(16, len(text) // 100):
        raise UploadError(f"{upload.name}: is not UTF-8 text (save it as UTF-8 and upload again)")
    return text


def uploads_combine(uploads: list[Upload], text: str | None) -> tuple[str, list[dict[str, Any]]]:
    parts: list[str] = []
    sources: list[dict[str, Any]] = []
    line = 1
    items: list[tuple[str, str, int]] = [(u.name, decode_upload(u), len(u.data)) for u in uploads]
    if text and text.strip():
        items.append(("pasted text", text, len(text.encode("utf-8"))))
    for name, body, size in items:
        body = body.replace("\r\n", "\n").replace("\r", "\n")
        if not body.endswith("\n"):
            body += "\n"
        sources.append({"name": name, "bytes": size, "start_line": line})
        parts.append(body)
        line += body.count("\n")
    return "".join(parts), sources


def analysis_create(*, uploads: list[Upload], text: str | None, owner: Any = None,
                    session_key: str = "") -> Analysis:
    """Validate, redact and store an upload; queue its analysis."""
    total = sum(len(u.data) for u in uploads) + len((text or "").encode("utf-8"))
    if total > settings.ANALYSIS_MAX_BYTES:
        raise UploadError(f"The upload is {total} bytes; the limit is {settings.ANALYSIS_MAX_BYTES} bytes "
                          "(ANALYSIS_MAX_BYTES).", status=413, code="payload_too_large")
    if not uploads and not (text and text.strip()):
        raise UploadError("Nothing to analyse: upload one or more files (field 'files') or send text.")
    if text and "\x00" in text:
        raise UploadError("pasted text: contains NUL bytes, so it looks like binary data, not kubectl output; "
                          "paste text or upload the file")
    empty = [u.name for u in uploads if not u.data.strip()]
    if empty and len(empty) == len(uploads) and not (text and text.strip()):
        raise UploadError(f"{', '.join(empty)}: the file is empty.")
    combined, sources = uploads_combine(uploads, text)
    redacted, found = redact(combined)
    analysis = Analysis.objects.create(
        owner=owner if owner is not None and owner.is_authenticated else None,
        session_key=session_key or "", sources=sources, text=redacted,
        redactions=[{"kind": r.kind, "line": r.line, "preview": r.preview} for r in found],
        progress_message="waiting for a worker",
    )
    transaction.on_commit(lambda: analysis_enqueue(analysis_id=analysis.id))
    return analysis


QUEUE_DOWN = ("The task queue (CELERY_BROKER_URL) is unreachable, so the analysis could not be queued. "
              "Matching still works; try the analysis again later.")


def analysis_enqueue(*, analysis_id: str) -> None:
    """Hand the analysis to a worker (inline without a broker); a broker that is down fails it
    at once with a clear message instead of an error page or a forever-queued analysis."""
    from troubleshoot.tasks import analysis_run_task

    try:
        analysis_run_task.apply_async(args=[analysis_id], retry=False)
    except Exception:  # noqa: BLE001 - kombu/redis raise many kinds of connection errors
        log.exception("could not queue analysis %s", analysis_id)
        analysis_fail(analysis_id=analysis_id, message=QUEUE_DOWN)


def _compact(match: dict[str, Any]) -> dict[str, Any]:
    return {k: match[k] for k in ("slug", "title", "language", "url", "score", "confidence")} | {
        "fix": match["fix"]["title"] if match.get("fix") else None,
        "version_check": match.get("version_check", [])}


def _described(problem: str, cache: dict[str, list[dict[str, Any]]], language: str, request: Any,
               versions: dict[str, str]) -> list[dict[str, Any]]:
    """Articles found by searching the KB for what a finding is, when its evidence matched no
    symptom confidently (a ``get nodes`` row, a NodeClaim table, a 2015 event wording). They
    stay low confidence; searched once per problem code."""
    if problem not in cache:
        description = PROBLEM_CODES.get(problem, "")
        found: list[dict[str, Any]] = []
        if description and problem not in UNDESCRIBED:
            outcome = match_text(text=description, limit=2, language=language, use_recall=True)
            found = [{**m, "described": True}
                     for m in match_payload(outcome, request=request, versions=versions)["matches"]]
        cache[problem] = found[:1]
    return cache[problem]


# Codes whose description names no cause an article could be about (they say only that something is
# stuck, or what the evidence says): their evidence is all there is.
UNDESCRIBED = frozenset({
    "Event.Warning", "Log.Error", "FailedScheduling.Other", "CreateContainerConfigError.Other", "ImagePull.Other",
    "CrashLoopBackOff", "CrashLoopBackOff.ExitCode", "Container.Restarts", "Pod.Pending", "Pod.ContainerCreating",
    "Pod.NotReady", "Pod.Terminating", "NodeClaim.NotReady", "NodeClaim.Warning", "Deployment.Unavailable",
})


# Findings whose evidence is a message no rule explains: worth an editor's look when no article
# answers them. Others (a Pending pod in a `get pods` row) show no message to learn from.
LEARN_PROBLEMS = frozenset({"Event.Warning", "Log.Error"})
MAX_UNANSWERED = 20  # texts an analysis hands to troubleshoot.learning, at most


def _learnable(problem: str) -> bool:
    return problem in LEARN_PROBLEMS or problem.endswith(".Other")


def analysis_compute(text: str, *, progress: Callable[[float, str], None] | None = None,
                     language: str = "en", request: Any = None) -> dict[str, Any]:
    """The report for ``text``: findings (each with its articles), overall matches and a summary."""
    started = time.perf_counter()

    def parse_progress(fraction: float, message: str) -> None:
        if progress:
            progress(0.05 + 0.6 * fraction, message)

    report = analyze_text(text, progress=parse_progress)
    versions = read_versions(text)
    described: dict[str, list[dict[str, Any]]] = {}
    findings = [f.to_dict() for f in report.findings]
    findings.sort(key=lambda f: (-SEVERITY_RANK.get(f["severity"], 0), f["kind"], f["namespace"], f["name"]))
    overall: dict[str, dict[str, Any]] = {}
    cache: dict[str, list[dict[str, Any]]] = {}
    unanswered: list[str] = []  # what no article answers, for troubleshoot.learning (never stored as is)

    def consider(match: dict[str, Any], source: str) -> None:
        entry = overall.get(match["slug"])
        if entry is None:
            overall[match["slug"]] = entry = {**match, "findings": 0, "from": []}
        elif (CONFIDENCE_RANK[match["confidence"]], match["score"]) > (CONFIDENCE_RANK[entry["confidence"]],
                                                                       entry["score"]):
            entry.update(match)
        entry["findings"] += 1
        if source not in entry["from"] and len(entry["from"]) < 10:
            entry["from"].append(source)

    by_problem: dict[str, list[dict[str, Any]]] = {}
    for i, finding in enumerate(findings):
        evidence = "\n".join(finding.get("evidence") or [finding.get("detail", "")])[:200_000]
        # Findings that differ only in names and counts link to the same articles: match each
        # distinct normalised evidence once, and past MAX_DISTINCT_MATCHES reuse the articles
        # found for the same problem code, so a 10 MB session with thousands of findings stays fast.
        key = finding["problem"] + "\n" + "\n".join(normalize(line) for line in evidence.splitlines()[:20])
        if key not in cache:
            if len(cache) >= MAX_DISTINCT_MATCHES and finding["problem"] in by_problem:
                cache[key] = by_problem[finding["problem"]]
            else:
                outcome = match_text(text=evidence, limit=3, language=language, use_recall=False)
                payload = match_payload(outcome, request=request, versions=versions)
                confident = [m for m in payload["matches"] if m["confidence"] != "low"]
                if not confident and _learnable(finding["problem"]) and len(unanswered) < MAX_UNANSWERED:
                    unanswered.append(evidence)
                cache[key] = confident or _described(finding["problem"], described, language, request,
                                                      versions) or payload["matches"][:1]
                by_problem.setdefault(finding["problem"], cache[key])
        linked = list(cache[key])
        owner = PROBLEM_TOPICS.get(finding["problem"])
        linked.sort(key=lambda m: m["slug"] != owner)
        finding["articles"] = [_compact(m) for m in linked]
        for m in linked[:1] if owner in {x["slug"] for x in linked} else linked[:2]:
            if m["confidence"] != "low" or m.get("described"):
                consider(m, f"{finding['kind']}/{finding['name'] or '?'}: {finding['problem']}")
        if progress and i % 20 == 0:
            progress(0.65 + 0.3 * (i + 1) / max(1, len(findings)), f"linked {i + 1} of {len(findings)} findings")
    unparsed = report.unparsed_text.strip()
    if unparsed:
        payload = match_payload(match_text(text=unparsed[: settings.MATCH_MAX_BYTES], limit=5, language=language),
                                request=request, versions=versions)
        if payload["best"] is None:
            unanswered.append(unparsed)
        for m in payload["matches"]:
            if m["confidence"] != "low":
                consider(m, "text that is not a kubectl table or object")
    matches = sorted(overall.values(), key=lambda m: (-CONFIDENCE_RANK[m["confidence"]], -m["findings"],
                                                      -m["score"]))
    by_severity: dict[str, int] = {}
    for f in findings:
        by_severity[f["severity"]] = by_severity.get(f["severity"], 0) + 1
    summary = {
        "findings": len(findings), "by_severity": by_severity,
        "resources": report.resources, "sections": len(report.sections),
        "section_formats": sorted({s.format for s in report.sections}),
        "seconds": round(time.perf_counter() - started, 3),
        "versions": versions,      # kept here so a stored analysis needs no new column
    }
    return {"findings": findings, "matches": matches, "versions": versions, "summary": summary,
            "unanswered": unanswered}


def analysis_run(*, analysis_id: str) -> None:
    """Run one analysis; always ends ``done`` or ``failed``."""
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().filter(pk=analysis_id).first()
        if analysis is None or analysis.status in (Analysis.Status.DONE, Analysis.Status.FAILED):
            return
        analysis.attempts += 1
        if analysis.attempts > 3:
            analysis.status = Analysis.Status.FAILED
            analysis.error = "The analysis was interrupted 3 times (worker lost); giving up."
            analysis.finished = timezone.now()
            analysis.save()
            return
        analysis.status = Analysis.Status.RUNNING
        analysis.started = timezone.now()
        analysis.progress, analysis.progress_message = 0.02, "parsing"
        analysis.save()

    last = {"t": 0.0}

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last["t"] < 0.5:
            return
        last["t"] = now
        Analysis.objects.filter(pk=analysis_id).update(progress=round(min(fraction, 0.99), 3),
                                                       progress_message=message[:200])

    started = time.perf_counter()
    try:
        result = analysis_compute(analysis.text, progress=progress)
    except Exception as exc:  # noqa: BLE001 - any failure must end as `failed`, never stuck
        ANALYSIS_TOTAL.labels("failed").inc()
        log.exception("analysis %s failed", analysis_id)
        analysis_fail(analysis_id=analysis_id, message=f"The analysis crashed: {type(exc).__name__}: {exc}"[:2000])
        return
    ANALYSIS_SECONDS.observe(time.perf_counter() - started)
    ANALYSIS_TOTAL.labels("done").inc()
    analysis_observed(result=result, client=_analysis_client(analysis))
    Analysis.objects.filter(pk=analysis_id).update(
        status=Analysis.Status.DONE, progress=1.0, progress_message="done", findings=result["findings"],
        matches=result["matches"], summary=result["summary"], finished=timezone.now(), error="")


def _analysis_client(analysis: Analysis) -> str:
    if analysis.owner_id is not None:
        return f"user:{analysis.owner_id}"
    return f"session:{analysis.session_key}" if analysis.session_key else f"analysis:{analysis.pk}"


def analysis_fail(*, analysis_id: str, message: str) -> None:
    Analysis.objects.filter(pk=analysis_id).exclude(status=Analysis.Status.DONE).update(
        status=Analysis.Status.FAILED, error=message, finished=timezone.now())


def analyses_expire() -> int:
    """Delete analyses older than ANALYSIS_RETENTION_DAYS; fail ones stuck past the task time limit."""
    now = timezone.now()
    deleted, _ = Analysis.objects.filter(created__lt=now - timedelta(days=settings.ANALYSIS_RETENTION_DAYS)).delete()
    stuck_before = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT * 2)
    Analysis.objects.filter(status=Analysis.Status.RUNNING, started__lt=stuck_before).update(
        status=Analysis.Status.FAILED, finished=now,
        error="The analysis stopped without finishing (its worker was lost or timed out).")
    return deleted


def analysis_payload(analysis: Analysis, *, request: Any = None) -> dict[str, Any]:
    url = analysis.get_absolute_url()
    return {
        "id": analysis.id,
        "status": analysis.status,
        "progress": round(analysis.progress, 3),
        "progress_message": analysis.progress_message,
        "findings": analysis.findings,
        "matches": analysis.matches,
        "versions": (analysis.summary or {}).get("versions", {}),
        "summary": analysis.summary,
        "error": analysis.error or None,
        "sources": analysis.sources,
        "redactions": analysis.redactions,
        "created": analysis.created.isoformat() if analysis.created else None,
        "finished": analysis.finished.isoformat() if analysis.finished else None,
        "url": request.build_absolute_uri(url) if request is not None else url,
    }
