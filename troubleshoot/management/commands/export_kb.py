from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from troubleshoot.services import kb_export


class Command(BaseCommand):
    help = "Write every article to PATH/<language>/<slug>.md in the import format."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("path")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        root = Path(options["path"])
        count = kb_export(root=root)
        self.stdout.write(self.style.SUCCESS(f"Exported {count} article(s) to {root}"))
