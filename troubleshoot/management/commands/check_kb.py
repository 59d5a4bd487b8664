from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from troubleshoot.kblint import lint_folder


class Command(BaseCommand):
    help = "Lint the shipped knowledge base (or PATH): required fields, symptoms, fixes, patterns, duplicates."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("path", nargs="?")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        root = Path(options["path"]) if options["path"] else settings.KB_SHIPPED_DIR
        articles, problems = lint_folder(root)
        for problem in problems:
            self.stdout.write(f"  {problem}")
        summary = f"{len(articles)} article file(s) checked, {len(problems)} problem(s)"
        if problems:
            raise CommandError(summary)
        self.stdout.write(self.style.SUCCESS(summary))
