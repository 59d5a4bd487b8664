"""The same paste gets the same scores in every process (no dependence on string hash seeds)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import json
from tests.engine.kb import SIGNATURES
from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.types import Signature
# a symptom whose pieces contain overlapping generic phrases ("operation error", "error")
throttle = Signature("thr:en:0", "throttling", "en", "operation error EC2: DescribeInstances, exceeded maximum number "
                     "of attempts, 3, https response error StatusCode: 503, api error RequestLimitExceeded")
m = Matcher(list(SIGNATURES) + [throttle])
pastes = [
    "operation error EC2: DescribeInstances, exceeded maximum number of attempts, 3, https response error "
    "StatusCode: 503, RequestID: 1, api error RequestLimitExceeded: Request limit exceeded.",
    "0/5 nodes are available: 2 Insufficient memory, 3 node(s) had untolerated taint {dedicated: infra}.",
    "Warning  Failed  3s  kubelet  Failed to pull image \\"nginx:lates\\": rpc error: not found",
]
print(json.dumps([[(x.topic, x.score) for x in m.match(p).matches] for p in pastes]))
"""


def run(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout


def test_scores_do_not_depend_on_the_hash_seed() -> None:
    results = {run(seed) for seed in ("1", "2", "3", "4", "5", "6")}
    assert len(results) == 1
