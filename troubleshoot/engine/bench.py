"""Micro-benchmark helpers (wrapped by a Django management command).

``bench(matcher, texts, repeat)`` times ``matcher.match`` per text and
returns p50 / p95 / max in milliseconds.  ``synthetic_signatures(n)``
fabricates a plausible knowledge base of ``n`` articles (about four
symptoms each, sharing the boilerplate real ones share), and
``synthetic_paste(size)`` a log paste of roughly ``size`` bytes that mixes
klog lines, Karpenter JSON records and kubectl events, with one real
symptom near the end.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Mapping
from typing import Any

from .normalize import clear_cache
from .types import Signature

__all__ = ["bench", "synthetic_signatures", "synthetic_paste", "default_texts"]

_COMPONENTS = [
    "kubelet",
    "karpenter",
    "aws-node",
    "coredns",
    "ebs-csi",
    "kube-proxy",
    "alb-controller",
    "cluster-autoscaler",
    "external-dns",
    "cert-manager",
    "vpc-cni",
    "pod-identity-agent",
]
_VERBS = [
    "creating",
    "deleting",
    "attaching",
    "resolving",
    "launching",
    "registering",
    "draining",
    "mounting",
    "validating",
    "syncing",
    "provisioning",
    "terminating",
]
_OBJECTS = [
    "volume",
    "network interface",
    "launch template",
    "instance profile",
    "security group",
    "target group",
    "nodeclaim",
    "hosted zone",
    "certificate",
    "subnet",
    "route table",
    "listener",
]
_SYLL = [
    "ka",
    "zu",
    "mi",
    "tor",
    "vex",
    "lin",
    "qua",
    "dre",
    "pol",
    "sen",
    "rix",
    "ghu",
    "nai",
    "bro",
    "fel",
    "jum",
    "cyr",
    "wap",
    "xen",
    "oda",
]


def _word(rng: random.Random, n: int = 3) -> str:
    return "".join(rng.choice(_SYLL) for _ in range(n))


def synthetic_signatures(n_articles: int, seed: int = 7) -> list[Signature]:
    """About four distinct, realistic-looking signatures per fake article."""
    rng = random.Random(seed)
    out: list[Signature] = []
    used: set[str] = set()
    for a in range(n_articles):
        while True:
            code = _word(rng, 3).capitalize() + _word(rng, 2).capitalize() + "Exception"
            if code not in used:
                used.add(code)
                break
        topic = f"synthetic-{a:05d}"
        comp, verb, obj = rng.choice(_COMPONENTS), rng.choice(_VERBS), rng.choice(_OBJECTS)
        thing = _word(rng, 2)
        key = f"{thing}.example.com/{_word(rng, 2)}"
        texts = [
            (
                f"0/{rng.randint(2, 9)} nodes are available: 3 node(s) had volume {thing} conflict on {key}. "
                "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
                "event",
                None,
            ),
            (
                f"{comp}: error {verb} {obj} {thing}-{a}: operation error EC2: {code.replace('Exception', '')}, "
                f"https response error StatusCode: 400, RequestID: 1b2c3d4e-0000-1111-2222-333344445555, {code}: "
                f"the {obj} {thing} is {_word(rng, 2)} for {comp}",
                "log",
                rf"{code}: the (?P<object>[\w ]+) (?P<name>\w+) is",
            ),
            (
                f'Error: {verb} {obj} ("{thing}-{a}"): {code}: {_word(rng, 3)} {_word(rng, 2)} quota reached for '
                f"{obj} in us-west-2",
                "terraform",
                None,
            ),
            (
                f"Warning {_word(rng, 2).capitalize()}Failed {comp} failed to {verb.rstrip('ing')} {obj}: "
                f"{thing} {_word(rng, 2)} {_word(rng, 2)} timeout after 30s",
                "event",
                None,
            ),
        ]
        for i, (text, kind, pattern) in enumerate(texts[: 3 + (a % 2)]):
            out.append(
                Signature(
                    key=f"{topic}:en:{i}",
                    topic=topic,
                    language="en",
                    text=text,
                    pattern=pattern,
                    weight=rng.choice([0.8, 1.0, 1.0, 1.2]),
                    kind=kind,
                    cause=i % 2,
                )
            )
    return out


_NOISE = [
    "I0521 {t} 1 reflector.go:{n}] Listing and watching *v1.Pod from "
    "pkg/mod/k8s.io/client-go@v0.30.1/tools/cache/reflector.go:{n}",
    '{{"level":"INFO","time":"2024-05-21T{t}Z","logger":"controller","message":"found provisionable pod(s)",'
    '"commit":"1072d3b","controller":"provisioner","Pods":"default/web-7d4b9c8f6-{h}","duration":"{n}.2ms"}}',
    '{{"level":"DEBUG","time":"2024-05-21T{t}Z","logger":"controller","message":"discovered subnets",'
    '"commit":"1072d3b","subnets":["subnet-0{x} (us-west-2a)"]}}',
    '  Normal   Pulled     {n}s   kubelet  Successfully pulled image "nginx:1.27" in {n}ms',
    "E0521 {t} 1 controller.go:{n}] error syncing pod default/web-7d4b9c8f6-{h}: context deadline exceeded",
    "2024-05-21T{t}Z ip-10-0-{n}-{n}.us-west-2.compute.internal kubelet[{n}]: W0521 probe failed for pod {h}",
]


def synthetic_paste(size: int, seed: int = 3, tail: str | None = None) -> str:
    """A log paste of about ``size`` bytes; ``tail`` (a real symptom) goes last."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        t = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}"
        line = rng.choice(_NOISE).format(
            t=t,
            n=rng.randint(1, 999),
            h="".join(rng.choice("bcdfg2456789") for _ in range(5)),
            x=f"{rng.getrandbits(64):016x}",
        )
        parts.append(line)
        total += len(line) + 1
    if tail is not None:
        parts.append(tail)
    return "\n".join(parts)


def default_texts() -> dict[str, str]:
    """The standard bench inputs: 1 line, 5 KB, 1 MB and 5 MB."""
    hit = (
        "Warning  FailedScheduling  3m24s (x239 over 19h)  default-scheduler  0/5 nodes are available: "
        "1 node(s) had untolerated taint {karpenter.sh/controller: true}, 4 Insufficient cpu. preemption: "
        "0/5 nodes are available: 5 Preemption is not helpful for scheduling."
    )
    return {
        "1 line": hit,
        "5 KB": synthetic_paste(5_000, tail=hit),
        "1 MB": synthetic_paste(1_000_000, tail=hit),
        "5 MB": synthetic_paste(5_000_000, tail=hit),
    }


def _pct(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def bench(
    matcher: Any, texts: Mapping[str, str], repeat: int = 20, *, cold: bool = True
) -> dict[str, dict[str, float]]:
    """Time ``matcher.match`` on every text ``repeat`` times (after one warm-up).

    With ``cold`` (the default) the normaliser's line cache is emptied
    before every run, so a repeated text is not served from it.
    """
    out: dict[str, dict[str, float]] = {}
    for name, text in texts.items():
        matcher.match(text)
        times: list[float] = []
        for _ in range(max(1, repeat)):
            if cold:
                clear_cache()
            t0 = time.perf_counter()
            matcher.match(text)
            times.append((time.perf_counter() - t0) * 1000.0)
        out[name] = {
            "p50": round(statistics.median(times), 3),
            "p95": round(_pct(times, 95), 3),
            "max": round(max(times), 3),
            "bytes": len(text.encode("utf-8")),
        }
    return out


if __name__ == "__main__":  # pragma: no cover - manual use
    from .matcher import Matcher

    texts = default_texts()
    for n in (30, 3000):
        t0 = time.perf_counter()
        m = Matcher(synthetic_signatures(n))
        build = (time.perf_counter() - t0) * 1000
        reps = {"1 line": 200, "5 KB": 100, "1 MB": 5, "5 MB": 3}
        res = {k: bench(m, {k: v}, reps[k])[k] for k, v in texts.items()}
        print(json.dumps({"articles": n, "build_ms": round(build, 1), "results": res}))
