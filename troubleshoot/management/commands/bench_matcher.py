from __future__ import annotations

import statistics
import time
from pathlib import Path

from django.conf import settings

from troubleshoot.engine.bench import bench, default_texts, synthetic_signatures
from troubleshoot.engine.matcher import Matcher
from troubleshoot.management.schema import SchemaCommand
from troubleshoot.matching import build_signatures, build_topics, match_payload, match_text
from troubleshoot.models import Article

REPEATS = {"1 line": 200, "5 KB": 100, "1 MB": 5, "5 MB": 3}


class Command(SchemaCommand):
    help = ("Benchmark the matcher in-process: p50/p95 for a 1-line, 5 KB, 1 MB and 5 MB paste, with the "
            "shipped KB and with 3,000 synthetic articles; and the full match path (engine + database + "
            "response) for a realistic 4 KB kubectl describe paste.")

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")

    def table(self, title: str, rows: dict[str, dict[str, float]]) -> None:
        self.stdout.write(f"\n{title}")
        self.stdout.write(f"  {'input':8s} {'bytes':>10s} {'p50 ms':>10s} {'p95 ms':>10s} {'max ms':>10s}")
        for name, r in rows.items():
            self.stdout.write(f"  {name:8s} {int(r['bytes']):>10d} {r['p50']:>10.2f} {r['p95']:>10.2f} "
                              f"{r['max']:>10.2f}")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        quick = options["quick"]
        texts = default_texts()

        def run(matcher: Matcher) -> dict[str, dict[str, float]]:
            rows = {}
            for name, text in texts.items():
                repeat = 2 if quick else REPEATS[name]
                rows.update(bench(matcher, {name: text}, repeat=repeat))
            return rows

        signatures = build_signatures()
        topics = len({s.topic for s in signatures})
        articles = list(Article.objects.published().prefetch_related("symptoms", "causes", "fixes", "components"))
        t = time.perf_counter()
        shipped = Matcher(signatures, topics=build_topics(articles))
        self.stdout.write(f"shipped KB: {topics} topics, {len(signatures)} symptoms, "
                          f"matcher built in {(time.perf_counter() - t) * 1000:.0f} ms")
        shipped_rows = run(shipped)
        self.table("shipped KB", shipped_rows)

        small = Matcher(synthetic_signatures(30))
        small_rows = run(small)
        self.table("30 synthetic articles", small_rows)

        synthetic = synthetic_signatures(3000)
        t = time.perf_counter()
        big = Matcher(synthetic)
        self.stdout.write(f"\n3,000 synthetic articles: {len(synthetic)} symptoms, "
                          f"matcher built in {time.perf_counter() - t:.1f} s")
        big_rows = run(big)
        self.table("3,000 synthetic articles", big_rows)
        self.stdout.write("\nratio 3,000 / 30 synthetic articles (p50): " + ", ".join(
            f"{name} {big_rows[name]['p50'] / max(small_rows[name]['p50'], 1e-6):.2f}x" for name in texts))

        describe = (Path(settings.BASE_DIR) / "tests" / "fixtures" / "kubectl" / "describe-pod-pending-taint.txt")
        paste = describe.read_text()
        while len(paste) < 4096:
            paste += "\n" + describe.read_text()
        paste = paste[:4096]
        engine = []
        for _ in range(5 if quick else 200):
            t = time.perf_counter()
            shipped.match(paste)
            engine.append((time.perf_counter() - t) * 1000)
        engine.sort()
        self.stdout.write(f"\nengine only, 4 KB describe paste: p50 {statistics.median(engine):.2f} ms, "
                          f"p95 {engine[int(len(engine) * 0.95) - 1]:.2f} ms ({len(engine)} runs)")
        match_payload(match_text(text=paste))
        times = []
        for _ in range(5 if quick else 200):
            t = time.perf_counter()
            match_payload(match_text(text=paste))
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        self.stdout.write(f"\nfull match path, 4 KB describe paste: p50 {statistics.median(times):.2f} ms, "
                          f"p95 {times[int(len(times) * 0.95) - 1]:.2f} ms ({len(times)} runs)")
