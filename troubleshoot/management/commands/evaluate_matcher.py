from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from troubleshoot.evaluation import Ranked, evaluate, load_cases
from troubleshoot.matching import match_payload, match_text

DEFAULT_CASES = Path(settings.BASE_DIR) / "tests" / "matcher_cases"


def rank_with_kb(text: str) -> Ranked:
    payload = match_payload(match_text(text=text, limit=5))
    return Ranked(slugs=[m["slug"] for m in payload["matches"]],
                  best=payload["best"]["slug"] if payload["best"] else None)


class Command(BaseCommand):
    help = "Measure the matcher on the labelled cases: top-1, top-3, MRR and confident wrong answers."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--cases", default=str(DEFAULT_CASES), help="folder of labelled cases")
        parser.add_argument("--verbose-failures", action="store_true", help="print every miss")
        parser.add_argument("--min-top1", type=float, default=None, help="exit non-zero below this top-1")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        root = Path(options["cases"])
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder of labelled cases")
        report = evaluate(load_cases(root), rank_with_kb)
        failures = report.failures()
        if failures:
            self.stdout.write(f"misses ({len(failures)}):")
            for r in failures if options["verbose_failures"] else failures[:25]:
                got = ", ".join(r.ranked.slugs[:3]) or "-"
                self.stdout.write(f"  {r.case.path.parent.name}/{r.case.path.name}: got [{got}] "
                                  f"best={r.ranked.best or '-'}")
        self.stdout.write(report.summary())
        if options["min_top1"] is not None and report.top1 < options["min_top1"]:
            raise CommandError(f"top-1 {report.top1:.3f} is below {options['min_top1']}")
