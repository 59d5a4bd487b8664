from __future__ import annotations

import json
import sys

from django.core.management.base import CommandError

from troubleshoot.management.schema import SchemaCommand
from troubleshoot.matching import InputTooLarge, match_payload, match_text


def readable(payload: dict) -> str:
    lines: list[str] = []
    if not payload["matches"]:
        return "No match: nothing in the knowledge base resembles this text.\n"
    if payload["best"] is None:
        lines.append("No confident match. Closest suggestions (treat with care):")
    for i, m in enumerate(payload["matches"], 1):
        lines.append(f"{i}. {m['title']}  [{m['slug']}, {m['confidence']}, score {m['score']:.2f}]")
        lines.append(f"   {m['url']}")
        for e in m["evidence"][:3]:
            start, end = e["span"]
            text = e["text"]
            lines.append(f"   line {e['line']}: {text[:start]}»{text[start:end]}«{text[end:]}"[:300])
        if m["captures"]:
            lines.append("   captured: " + ", ".join(f"{k}={v}" for k, v in m["captures"].items()))
        if m.get("cause"):
            lines.append(f"   likely cause: {m['cause']['title']}")
        if m.get("fix") and i == 1:
            lines.append(f"   fix: {m['fix']['title']}")
            lines.extend("     " + line for line in m["fix"]["body"].strip().splitlines())
    stats = payload["stats"]
    lines.append(f"({stats.get('lines')} lines, {stats.get('templates')} templates, {stats.get('ms')} ms)")
    return "\n".join(lines) + "\n"


class Command(SchemaCommand):
    help = "Match error text from FILE or standard input (-) against the knowledge base."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("file", nargs="?", default="-", help="a file, or - for standard input (default)")
        parser.add_argument("--json", action="store_true", help="print the API's JSON")
        parser.add_argument("--limit", type=int, default=5)
        parser.add_argument("--language", default="en", choices=["en", "zh-hans"])

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        path = options["file"]
        if options["limit"] < 1 or options["limit"] > 20:
            raise CommandError("--limit must be between 1 and 20")
        try:
            data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        if not data.strip():
            raise CommandError("the input is empty: pipe or name a file holding the error text")
        try:
            outcome = match_text(text=data, limit=options["limit"], language=options["language"])
        except InputTooLarge as exc:
            raise CommandError(str(exc)) from None
        payload = match_payload(outcome)
        if options["json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(readable(payload), ending="")
