from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from troubleshoot.analysis import Upload, UploadError, analysis_compute, uploads_combine
from troubleshoot.redact import redact
from troubleshoot.versions import describe as describe_version


class Command(BaseCommand):
    help = "Analyse files of kubectl output (or - for standard input) and print the findings and articles."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("files", nargs="+", help="files, or - for standard input")
        parser.add_argument("--json", action="store_true", help="print the API's JSON report")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        import sys

        uploads = []
        for name in options["files"]:
            try:
                data = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()
            except OSError as exc:
                raise CommandError(f"cannot read {name}: {exc.strerror}") from None
            uploads.append(Upload(name="stdin" if name == "-" else name, data=data))
        try:
            text, _sources = uploads_combine(uploads, None)
        except UploadError as exc:
            raise CommandError(exc.message) from None
        text, redactions = redact(text)
        report = analysis_compute(text)
        report["redactions"] = [{"kind": r.kind, "line": r.line, "preview": r.preview} for r in redactions]
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        s = report["summary"]
        self.stdout.write(f"{s['findings']} finding(s) from {s['sections']} section(s) in {s['seconds']} s")
        if report["versions"]:
            self.stdout.write("Versions: " + ", ".join(f"{c} {v}" for c, v in report["versions"].items()))
        for f in report["findings"]:
            name = f["name"] or "(object not in the upload)"
            where = f"{f['namespace']}/{name}" if f["namespace"] else name
            self.stdout.write(f"\n[{f['severity']}] {f['kind']} {where}: {f['problem']}\n  {f['detail']}")
            for a in f["articles"][:2]:
                self.stdout.write(f"  -> {a['title']} ({a['slug']}, {a['confidence']}) {a['url']}")
                for row in a.get("version_check") or []:
                    self.stdout.write(f"     {describe_version(row)}")
        if report["matches"]:
            self.stdout.write("\nArticles, ranked across all findings:")
            for i, m in enumerate(report["matches"][:10], 1):
                self.stdout.write(f"  {i}. {m['title']} [{m['slug']}, {m['confidence']}, {m['findings']} finding(s)]")
        if redactions:
            self.stdout.write(f"\n{len(redactions)} secret(s) redacted before analysis.")
