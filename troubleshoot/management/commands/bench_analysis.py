from __future__ import annotations

import statistics
import time

from django.core.management.base import BaseCommand

from troubleshoot.analysis import analysis_compute
from troubleshoot.kubectl import analyze_text
from troubleshoot.kubectl.synthetic import generate_session
from troubleshoot.redact import redact


class Command(BaseCommand):
    help = "Benchmark: parse and analyse a generated kubectl session (default 10 MB); prints timings."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--mb", type=float, default=10.0, help="size of the generated session in MB")
        parser.add_argument("--repeat", type=int, default=3)

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        text = generate_session(int(options["mb"] * 1024 * 1024), seed=1)
        self.stdout.write(f"session: {len(text.encode()) / 1e6:.1f} MB, {text.count(chr(10))} lines")
        rows: dict[str, list[float]] = {"redact": [], "parse+analyse": [], "full report (with article links)": []}
        findings = 0
        for _ in range(options["repeat"]):
            t = time.perf_counter()
            redact(text)
            rows["redact"].append(time.perf_counter() - t)
            t = time.perf_counter()
            report = analyze_text(text)
            rows["parse+analyse"].append(time.perf_counter() - t)
            findings = len(report.findings)
            t = time.perf_counter()
            analysis_compute(text)
            rows["full report (with article links)"].append(time.perf_counter() - t)
        self.stdout.write(f"findings: {findings}")
        for name, values in rows.items():
            self.stdout.write(f"{name:34s} median {statistics.median(values):6.2f} s   max {max(values):6.2f} s "
                              f"({len(values)} runs)")
