from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from troubleshoot.learning.selectors import KINDS, STATUSES, unanswered_list
from troubleshoot.learning.services import unanswered_recheck


class Command(BaseCommand):
    help = "List the errors the KB could not answer (the editors' queue), most widespread first."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--kind", choices=KINDS, help="only unanswered or answered-wrong templates")
        parser.add_argument("--status", choices=[*STATUSES, "all"], default="open",
                            help="default open (the queue); all: every row")
        parser.add_argument("--limit", type=int, default=20, help="rows to show (default 20)")
        parser.add_argument("--json", action="store_true", help="print the API's JSON rows")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        from troubleshoot.api.unanswered import UnansweredOut

        if options["limit"] < 1:
            raise CommandError("--limit must be at least 1")
        unanswered_recheck()
        status = None if options["status"] == "all" else options["status"]
        rows = list(unanswered_list(kind=options["kind"], status=status)[: options["limit"]])
        if options["json"]:
            self.stdout.write(json.dumps(UnansweredOut(rows, many=True).data, ensure_ascii=False, indent=2))
            return
        if not rows:
            self.stdout.write("Nothing in the queue.")
            return
        for row in rows:
            about = f" (answered with {row.article})" if row.article else ""
            self.stdout.write(f"#{row.pk}  {row.kind}{about}  {row.clients} clients, {row.count}×  "
                              f"last {row.last_seen:%Y-%m-%d %H:%M}  [{row.status}]")
            self.stdout.write(f"    {row.template}")
            for example in row.examples[1:]:
                self.stdout.write(f"    e.g. {example}")
