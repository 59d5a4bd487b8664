from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from troubleshoot.kbformat import FormatError
from troubleshoot.management.schema import SchemaCommand
from troubleshoot.services import kb_import


class Command(SchemaCommand):
    help = ("Import article files (Markdown with YAML front matter) from PATH, or the shipped knowledge base. "
            "Idempotent and all-or-nothing: one bad file aborts the import and changes nothing.")

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("path", nargs="?", help="folder to import (default: the shipped troubleshoot/kb)")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        root = Path(options["path"]) if options["path"] else settings.KB_SHIPPED_DIR
        try:
            result = kb_import(root=root)
        except FormatError as exc:
            raise CommandError(f"Import aborted, nothing was changed. {exc}") from None
        self.stdout.write(self.style.SUCCESS(f"Imported {root}: {result}"))
