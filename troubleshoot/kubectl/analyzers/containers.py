"""Containers that do not start or keep restarting.

CrashLoopBackOff (with the last termination), image pulls and
CreateContainerConfigError.
"""

from __future__ import annotations

import re

from ..models import Finding
from ..resources import Container, Event, Inventory, Resource
from .common import container_label, event_lines, fully_ready, make, only_from_events, ref, waiting

_EXIT_MEANING = {
    1: "application error", 2: "misuse of shell builtins / bad arguments",
    126: "command not executable", 127: "command not found", 128: "invalid exit argument",
    134: "aborted (SIGABRT)", 137: "killed (SIGKILL)", 139: "segmentation fault (SIGSEGV)",
    143: "terminated (SIGTERM)",
}
_IMAGE = re.compile(r'(?:pull(?:ing)? image|image) "([^"]+)"', re.I)

IMAGE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ImagePull.WrongArchitecture", re.compile(
        r"no match for platform in manifest|exec format error|does not match the specified platform",
        re.I)),
    ("ImagePull.RateLimited", re.compile(r"toomanyrequests|429 too many requests|pull rate limit", re.I)),
    ("ImagePull.Unauthorized", re.compile(
        r"401 unauthorized|403 forbidden|\bunauthorized\b|authorization failed|no basic auth credentials|"
        r"pull access denied|authentication required|access denied|denied:", re.I)),
    ("ImagePull.NotFound", re.compile(
        r"not found|manifest unknown|notfound|does not exist|name unknown", re.I)),
    ("ImagePull.Network", re.compile(
        r"i/o timeout|dial tcp|context deadline exceeded|connection refused|no such host|tls handshake",
        re.I)),
)
_CONFIG = (
    ("CreateContainerConfigError.MissingKey",
     re.compile(r"couldn't find key (\S+) in (Secret|ConfigMap) (\S+)", re.I)),
    ("CreateContainerConfigError.MissingSecret", re.compile(r'secrets? "([^"]+)" not found', re.I)),
    ("CreateContainerConfigError.MissingConfigMap", re.compile(r'configmaps? "([^"]+)" not found', re.I)),
)


def _pull_events(pod: Resource) -> list[Event]:
    return [e for e in pod.events if e.is_warning and e.reason in ("Failed", "ErrImagePull",
                                                                   "ImagePullBackOff", "BackOff",
                                                                   "InspectFailed")
            and ("image" in e.message.lower() or "pull" in e.message.lower())]


def classify_image_error(text: str) -> str:
    for code, pattern in IMAGE_PATTERNS:
        if pattern.search(text):
            return code
    return "ImagePull.Other"


def _image_findings(pod: Resource, items: list[tuple[Container | None, str]]) -> list[Finding]:
    pulls = [(c, r) for c, r in items if r in ("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
                                               "ErrImageNeverPull")]
    events = _pull_events(pod)
    if not pulls and not any(e.reason == "Failed" and "Failed to pull image" in e.message
                             for e in events):
        return []
    if pulls and pulls[0][1] == "InvalidImageName":
        c = pulls[0][0]
        return [make(pod, "ImagePull.InvalidName",
                     f"Pod {ref(pod)}: the image reference of {container_label(c)} is not valid"
                     f"{f' ({c.image})' if c and c.image else ''}.",
                     (c.evidence if c else []) + pod.evidence[:1], "critical")]
    messages = [c.message for c, _ in pulls if c and c.message]
    messages += [e.message for e in events if e.reason == "Failed"]
    code = classify_image_error(" \n ".join(messages)) if messages else "ImagePull.Other"
    images: list[str] = []
    candidates = [m for text in messages for m in _IMAGE.findall(text)]
    candidates += [c.image for c, _ in pulls if c and c.image]
    for image in candidates:
        if image not in images:
            images.append(image)
    what = {
        "ImagePull.NotFound": "the image or tag does not exist in the registry",
        "ImagePull.Unauthorized": "the registry refused access (missing or wrong pull credentials / permissions)",
        "ImagePull.RateLimited": "the registry rate-limited the pulls",
        "ImagePull.WrongArchitecture": "the image has no variant for the node's CPU architecture/OS",
        "ImagePull.Network": "the registry could not be reached",
        "ImagePull.Other": "the image could not be pulled",
    }[code]
    img = f" {', '.join(images[:3])}" if images else ""
    detail = f"Pod {ref(pod)} cannot pull image{img}: {what}."
    first = next((m for m in messages if m), "")
    if first:
        detail += f" Kubelet said: {first[:300]}"
    evidence: list[str] = pod.evidence[:1]
    for c, _ in pulls:
        if c:
            evidence += c.evidence
    evidence += event_lines(events)
    severity = "warning" if only_from_events(pod) else "critical"
    return [make(pod, code, detail, evidence, severity)]


def _config_findings(pod: Resource, items: list[tuple[Container | None, str]]) -> list[Finding]:
    configs = [(c, r) for c, r in items if r == "CreateContainerConfigError"]
    events = [e for e in pod.events if e.is_warning and e.reason == "Failed"
              and any(p.search(e.message) for _, p in _CONFIG)]
    if not configs and not events:
        return []
    messages = [c.message for c, _ in configs if c and c.message] + [e.message for e in events]
    found: dict[str, tuple[str, list[Event]]] = {}
    for text in messages:
        for code, pattern in _CONFIG:
            m = pattern.search(text)
            if not m:
                continue
            if code.endswith("MissingKey"):
                what = f"key {m.group(1)} is missing from {m.group(2)} {m.group(3)}"
            elif code.endswith("MissingSecret"):
                what = f'Secret "{m.group(1)}" does not exist'
            else:
                what = f'ConfigMap "{m.group(1)}" does not exist'
            evs = [e for e in events if e.message == text]
            if code in found:
                found[code][1].extend(evs)
            else:
                found[code] = (what, evs)
            break
    if not found:
        found["CreateContainerConfigError.Other"] = (
            "the container configuration (env, volumes, secrets) could not be prepared", [])
    base: list[str] = pod.evidence[:1]
    for c, _ in configs:
        if c:
            base += c.evidence
    severity = "warning" if only_from_events(pod) else "critical"
    return [make(pod, code, f"Pod {ref(pod)} cannot create its container: {what}.",
                 base + event_lines(evs), severity)
            for code, (what, evs) in found.items()]


def _crash_findings(pod: Resource, items: list[tuple[Container | None, str]]) -> list[Finding]:
    crashing = [c for c, r in items if r == "CrashLoopBackOff"]
    oom_status = pod.status == "OOMKilled" and (pod.restarts or 0) > 0
    liveness = [e for e in pod.events if e.reason == "Unhealthy"
                and re.search(r"(liveness|startup) probe failed", e.message, re.I)]
    backoff = [e for e in pod.events if e.reason == "BackOff" and "restarting" in e.message]
    events_only = only_from_events(pod) and bool(backoff)
    if not crashing and not oom_status and not events_only:
        return []
    findings: dict[str, Finding] = {}
    targets: list[Container | None] = crashing or [None]
    for c in targets:
        last_reason = (c.last_reason if c else "") or ("OOMKilled" if oom_status else "")
        code_num = c.last_exit_code if c else None
        if last_reason == "OOMKilled":
            code, why = "CrashLoopBackOff.OOMKilled", "it was OOMKilled (exceeded its memory limit)"
        elif liveness:
            code, why = "CrashLoopBackOff.ProbeFailure", "its liveness/startup probe keeps failing"
        elif code_num == 137:
            code, why = "CrashLoopBackOff.OOMKilled", "it was killed with exit code 137 (SIGKILL, usually OOM)"
        elif code_num is not None:
            meaning = _EXIT_MEANING.get(code_num, "")
            code = "CrashLoopBackOff.ExitCode"
            why = f"it exits with code {code_num}" + (f" ({meaning})" if meaning else "")
        else:
            code, why = "CrashLoopBackOff", "it keeps exiting"
        restarts = (c.restart_count if c else None) or pod.restarts
        detail = (f"{container_label(c).capitalize()} in pod {ref(pod)} is crash-looping"
                  f"{f' ({restarts} restarts)' if restarts else ''}: {why}.")
        if c and c.last_message:
            detail += f" Last message: {c.last_message[:200]}"
        evidence = pod.evidence[:1] + (c.evidence if c else [])
        evidence += event_lines(liveness if code.endswith("ProbeFailure") else [], 4)
        evidence += event_lines(backoff, 2)
        if code in findings:
            findings[code].add_evidence(evidence)
        else:
            findings[code] = make(pod, code, detail, evidence, "warning" if events_only else "critical")
    return list(findings.values())


def _arch_from_exit(pod: Resource) -> list[Finding]:
    for c in pod.containers.values():
        text = f"{c.message} {c.last_message}"
        if "exec format error" in text:
            return [make(pod, "ImagePull.WrongArchitecture",
                         f"{container_label(c).capitalize()} in pod {ref(pod)} fails with 'exec format error': "
                         "the image was built for another CPU architecture than the node's.",
                         c.evidence + pod.evidence[:1], "critical")]
    return []


RESTARTS_WORTH_A_LOOK = 3


def _restarts(pod: Resource, items: list[tuple[Container | None, str]]) -> list[Finding]:
    """A container that runs now but has restarted again and again after failing."""
    if items or (pod.restarts or 0) < RESTARTS_WORTH_A_LOOK:
        return []
    findings = []
    for c in pod.containers.values():
        if (c.restart_count or 0) < RESTARTS_WORTH_A_LOOK or c.last_state != "Terminated":
            continue
        if c.last_reason == "Completed" or c.last_exit_code == 0:
            continue
        oom = c.last_reason == "OOMKilled" or c.last_exit_code == 137
        how = f"last exit: {c.last_reason or 'terminated'}"
        if c.last_exit_code is not None:
            meaning = _EXIT_MEANING.get(c.last_exit_code, "")
            how += f", code {c.last_exit_code}" + (f" ({meaning})" if meaning else "")
        detail = (f"{container_label(c).capitalize()} in pod {ref(pod)} has restarted {c.restart_count} times "
                  f"({how}); it runs again now, but keeps failing.")
        findings.append(make(pod, "Container.OOMKilled" if oom else "Container.Restarts", detail,
                             pod.evidence[:1] + c.evidence, "warning"))
    return findings


def analyze(inv: Inventory) -> list[Finding]:
    findings: list[Finding] = []
    for pod in inv.of_kind("Pod"):
        if pod.phase == "Succeeded":
            continue
        items = waiting(pod)
        findings += _restarts(pod, items)
        if not items and fully_ready(pod) and not only_from_events(pod):
            continue
        findings += _crash_findings(pod, items)
        findings += _image_findings(pod, items)
        findings += _config_findings(pod, items)
        findings += _arch_from_exit(pod)
    return findings
