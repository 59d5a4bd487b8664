from __future__ import annotations

import time

from troubleshoot.management.schema import SchemaCommand
from troubleshoot.search import index_rebuild


class Command(SchemaCommand):
    help = "Rebuild the search index from the database (the index is derived data)."

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        count = index_rebuild()
        self.stdout.write(self.style.SUCCESS(f"Indexed {count} published article(s) in "
                                             f"{time.perf_counter() - started:.2f}s"))
