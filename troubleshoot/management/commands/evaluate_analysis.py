from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from troubleshoot.analysis import analysis_compute
from troubleshoot.analysis_quality import Outcome, evaluate, load_uploads, ratio, summary
from troubleshoot.redact import redact

DEFAULT_UPLOADS = Path(settings.BASE_DIR) / "tests" / "fixtures" / "real_uploads"


def analyse_with_kb(text: str) -> Outcome:
    report = analysis_compute(redact(text)[0])
    return Outcome(problems=[f["problem"] for f in report["findings"]],
                   severities=[f["severity"] for f in report["findings"]],
                   articles=[m["slug"] for m in report["matches"]],
                   confidences=[m["confidence"] for m in report["matches"]])


class Command(BaseCommand):
    help = ("Measure the kubectl analysis on real uploads: the share that produce a finding, "
            "and the share whose report ranks the right article first, per half.")

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--uploads", default=str(DEFAULT_UPLOADS), help="folder with manifest.yaml")
        parser.add_argument("--misses", action="store_true", help="print every upload that missed")
        parser.add_argument("--min", type=float, default=None,
                            help="exit non-zero when findings or right-article-first falls below this share")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        root = Path(options["uploads"])
        if not (root / "manifest.yaml").is_file():
            raise CommandError(f"{root} has no manifest.yaml")
        figures = evaluate(load_uploads(root), analyse_with_kb)
        if options["misses"]:
            for result, why in figures.misses():
                self.stdout.write(f"  {result.upload.half:8} {result.upload.path.name}: {why} "
                                  f"[{', '.join(result.outcome.problems) or 'no findings'}]")
        self.stdout.write(summary(figures))
        floor = options["min"]
        if floor is not None and min(ratio(figures.findings()), ratio(figures.right_first())) < floor:
            raise CommandError(f"below {floor:.0%}")
