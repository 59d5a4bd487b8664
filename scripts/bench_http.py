#!/usr/bin/env python3
"""HTTP load benchmark for Troubleshoot KB (a script, not a test).

Starts gunicorn (sync workers, like `make run`) on a free loopback port against a
throw-away KB_DATA_DIR (SQLite, migrated, shipped KB imported), then drives:

  match     POST /api/v1/match/   with the real pastes in tests/matcher_cases/*/*.txt, cycling
  article   GET  /articles/<slug>/ over every shipped slug, cycling
  healthz   GET  /healthz          baseline: the cost of the stack without the app's work

Each scenario sends --requests requests from --concurrency threads, one keep-alive
http.client connection per thread (it reconnects when the server closes it, which
gunicorn's sync workers do after every request). For each it prints requests/s, p50,
p99 and max latency in ms and the number of errors (non-2xx answers or exceptions).
The exit status is 1 when any request failed.

Standard library only:

    .venv/bin/python scripts/bench_http.py                    # 10,000 requests per scenario
    .venv/bin/python scripts/bench_http.py --requests 2000 --concurrency 32 --workers 2
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"

Request = tuple[str, str, bytes | None, dict[str, str]]  # method, path, body, headers


# ----------------------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def app_env(data_dir: Path) -> dict[str, str]:
    drop = ("CELERY_", "KB_", "DJANGO_", "DATABASE_", "ANALYSIS_", "MATCH_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(
        DJANGO_SETTINGS_MODULE="kbapp.settings",
        KB_DATA_DIR=str(data_dir),
        DATABASE_URL=f"sqlite:///{data_dir / 'kb.sqlite3'}",
        DJANGO_DEBUG="0",
        DJANGO_ALLOWED_HOSTS=f"{HOST},localhost",
        DJANGO_LOG_LEVEL="WARNING",
        # In case throttling is switched on: the benchmark is one very busy client.
        KB_THROTTLE_ANON="1000000/min",
        KB_THROTTLE_USER="1000000/min",
        PYTHONUNBUFFERED="1",
    )
    return env


def manage(env: dict[str, str], *args: str) -> None:
    proc = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")


class Server:
    def __init__(self, env: dict[str, str], port: int, workers: int, threads: int, log_path: Path) -> None:
        self.port = port
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115 - closed in stop()
        args = [sys.executable, "-m", "gunicorn", "kbapp.wsgi:application", "--bind", f"{HOST}:{port}",
                "--workers", str(workers), "--timeout", "300", "--graceful-timeout", "10",
                "--backlog", "2048"]
        if threads > 1:
            args += ["--threads", str(threads)]
        self.proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"gunicorn exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit(f"gunicorn did not answer /healthz within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        self._log.close()


# ----------------------------------------------------------------------------- load


@dataclass
class Result:
    name: str
    requests: int
    seconds: float
    latencies_ms: list[float]
    errors: int
    samples: list[str] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        ordered = sorted(self.latencies_ms)
        rank = max(0, min(len(ordered) - 1, int(round(q / 100 * len(ordered) + 0.5)) - 1))
        return ordered[rank]


def drive(name: str, port: int, requests: list[Request], total: int, concurrency: int,
          check: Callable[[int, bytes], bool] | None = None, timeout: float = 120) -> Result:
    """Send ``total`` requests (cycling through ``requests``) from ``concurrency`` threads."""
    counter = itertools.count()
    lock = threading.Lock()
    latencies: list[list[float]] = [[] for _ in range(concurrency)]
    errors = [0]
    samples: list[str] = []

    def fail(message: str) -> None:
        with lock:
            errors[0] += 1
            if len(samples) < 5:
                samples.append(message)

    def run(slot: int) -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        mine = latencies[slot]
        try:
            while True:
                with lock:
                    i = next(counter)
                if i >= total:
                    return
                method, path, body, headers = requests[i % len(requests)]
                started = time.perf_counter()
                try:
                    conn.request(method, path, body=body, headers=headers)
                    resp = conn.getresponse()
                    payload = resp.read()
                    elapsed = (time.perf_counter() - started) * 1000
                    if resp.will_close:
                        conn.close()  # the next request() reconnects
                except (OSError, http.client.HTTPException) as exc:
                    conn.close()
                    fail(f"{method} {path}: {type(exc).__name__}: {exc}")
                    continue
                mine.append(elapsed)
                if not 200 <= resp.status < 300:
                    fail(f"{method} {path}: HTTP {resp.status}: {payload[:200]!r}")
                elif check is not None and not check(resp.status, payload):
                    fail(f"{method} {path}: unexpected body {payload[:200]!r}")
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=(slot,), name=f"{name}-{slot}", daemon=True)
               for slot in range(concurrency)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - started
    return Result(name, total, seconds, [x for slot in latencies for x in slot], errors[0], samples)


def match_requests() -> list[Request]:
    pastes = sorted((REPO / "tests" / "matcher_cases").glob("*/*.txt"))
    if not pastes:
        raise SystemExit("no pastes found under tests/matcher_cases/*/*.txt")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    return [("POST", "/api/v1/match/", json.dumps({"text": p.read_text(encoding="utf-8")}).encode("utf-8"), headers)
            for p in pastes]


def article_requests() -> list[Request]:
    slugs = sorted({p.stem for p in (REPO / "troubleshoot" / "kb").glob("*/*.md")})
    if not slugs:
        raise SystemExit("no shipped articles found under troubleshoot/kb/")
    return [("GET", f"/articles/{slug}/", None, {"Accept": "text/html"}) for slug in slugs]


def is_match_payload(_status: int, body: bytes) -> bool:
    try:
        return "matches" in json.loads(body)
    except ValueError:
        return False


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=10_000, help="requests per scenario (default 10000)")
    parser.add_argument("--concurrency", type=int, default=32, help="client threads (default 32)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--threads", type=int, default=1, help="gunicorn threads per worker (default 1: sync)")
    parser.add_argument("--only", choices=["match", "article", "healthz"], action="append",
                        help="run only this scenario (repeatable)")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.concurrency < 1 or args.workers < 1:
        parser.error("--requests, --concurrency and --workers must be at least 1")

    with tempfile.TemporaryDirectory(prefix="kb-bench-") as tmp:
        data_dir = Path(tmp) / "data"
        data_dir.mkdir()
        env = app_env(data_dir)
        t0 = time.perf_counter()
        manage(env, "migrate", "--noinput")
        manage(env, "import_kb")
        print(f"prepared {data_dir} (migrate + import_kb) in {time.perf_counter() - t0:.1f} s", flush=True)

        port = free_port()
        server = Server(env, port, args.workers, args.threads, Path(tmp) / "gunicorn.log")
        try:
            server.wait_ready()
            mode = f"{args.threads} threads" if args.threads > 1 else "sync"
            print(f"gunicorn: {args.workers} workers ({mode}) on http://{HOST}:{port}/; "
                  f"client: {args.concurrency} threads, {args.requests} requests per scenario; "
                  f"{os.cpu_count()} CPUs shared by server and client", flush=True)
            scenarios = [
                ("match", "POST /api/v1/match/", match_requests(), is_match_payload),
                ("article", "GET /articles/<slug>/", article_requests(), None),
                ("healthz", "GET /healthz", [("GET", "/healthz", None, {})], None),
            ]
            results: list[Result] = []
            for key, label, reqs, check in scenarios:
                if args.only and key not in args.only:
                    continue
                # Warm up every worker (matcher build, templates, first DB connection); not timed.
                warm = drive(f"{label} (warm-up)", port, reqs, min(len(reqs) * 2, 200), min(args.concurrency, 8),
                             check)
                if warm.errors:
                    print(f"warning: {warm.errors} errors during the warm-up of {label}: {warm.samples}")
                result = drive(label, port, reqs, args.requests, args.concurrency, check)
                results.append(result)
                print(f"  done: {label} in {result.seconds:.1f} s", flush=True)
        finally:
            server.stop()

    print()
    print(f"{'scenario':<24}{'requests':>9}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}")
    for r in results:
        print(f"{r.name:<24}{r.requests:>9}{r.requests / r.seconds:>10.1f}{r.percentile(50):>9.1f}"
              f"{r.percentile(99):>9.1f}{max(r.latencies_ms, default=float('nan')):>9.1f}{r.errors:>8}")
    failed = [r for r in results if r.errors]
    for r in failed:
        print(f"\n{r.name}: {r.errors} errors, for example:")
        for sample in r.samples:
            print(f"  {sample}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
