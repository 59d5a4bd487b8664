from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from troubleshoot.engine.matcher import Matcher
from troubleshoot.evaluation import (
    Ranked,
    evaluate,
    evaluate_audit,
    evaluate_leave_out,
    evaluate_wrapped,
    load_audit,
    load_cases,
    threshold_sweep,
)
from troubleshoot.management.schema import SchemaCommand
from troubleshoot.matching import (
    build_signatures,
    build_topics,
    match_payload,
    match_text,
    published_articles,
    recall_query,
)
from troubleshoot.rewrap import WRAPPERS
from troubleshoot.search import articles_search

DEFAULT_CASES = Path(settings.BASE_DIR) / "tests" / "matcher_cases"
DEFAULT_AUDIT = Path(settings.BASE_DIR) / "tests" / "audit"
PLAIN_TERMS = 64


def rank_with_kb(text: str) -> Ranked:
    payload = match_payload(match_text(text=text, limit=5))
    return Ranked(slugs=[m["slug"] for m in payload["matches"]],
                  best=payload["best"]["slug"] if payload["best"] else None,
                  top_score=payload["matches"][0]["score"] if payload["matches"] else 0.0)


def rank_with_plain_search(text: str) -> list[str]:
    """Plain full-text search (the portal's Whoosh BM25F) over the same articles, queried with the
    paste's first distinct words: what an engineer gets from the search box."""
    slugs: list[str] = []
    for hit in articles_search(query=recall_query(text, terms=PLAIN_TERMS), limit=10).hits:
        if hit.slug not in slugs:
            slugs.append(hit.slug)
    return slugs


class Command(SchemaCommand):
    help = "Measure the matcher on the labelled cases: top-1, top-3, MRR and confident wrong answers."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--cases", default=str(DEFAULT_CASES), help="folder of labelled cases")
        parser.add_argument("--verbose-failures", action="store_true", help="print every miss")
        parser.add_argument("--min-top1", type=float, default=None, help="exit non-zero below this top-1")
        parser.add_argument("--audit", nargs="?", const=str(DEFAULT_AUDIT), default=None, metavar="FOLDER",
                            help="measure on the representative audit (tuning and held-out halves) instead")
        parser.add_argument("--half", choices=["tuning", "heldout", "both"], default="both",
                            help="with --audit: which half to run")
        parser.add_argument("--sweep", action="store_true",
                            help="with --audit: print useful answers and confident-wrong per score threshold "
                                 "(use it on the tuning half to choose the confidence cut)")
        parser.add_argument("--wrappers", nargs="?", const="all", default=None, metavar="NAME,NAME",
                            help="run the labelled cases dressed as pastes arrive (terminal cuts, fills, JSON "
                                 "records, log prefixes...) and print how many keep their answer; "
                                 "names: " + ", ".join(w.name for w in WRAPPERS))
        parser.add_argument("--leave-out", action="store_true",
                            help="match each labelled paste (the cases, or with --audit the covered pastes of the "
                                 "chosen half) with a KB that lacks its own article(s), and print how many still "
                                 "get a confident answer: confident-wrong on failures the KB does not cover")
        parser.add_argument("--rounds", default="", metavar="c6,c7",
                            help="with --audit: only the pastes of these collections (id prefixes), e.g. a "
                                 "new round's first run")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        if options["audit"] is not None:
            return self._audit(Path(options["audit"]), options)
        root = Path(options["cases"])
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder of labelled cases")
        if options["wrappers"] is not None:
            return self._wrapped(root, options)
        if options["leave_out"]:
            cases = [(f"{c.path.parent.name}/{c.path.name}", frozenset([c.expected]), c.text)
                     for c in load_cases(root) if c.expected]
            return self._leave_out("labelled cases", cases, options)
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

    def _wrapped(self, root: Path, options) -> None:  # type: ignore[no-untyped-def]
        wanted = [n.strip() for n in options["wrappers"].split(",") if n.strip()]
        known = {w.name: w for w in WRAPPERS}
        if wanted == ["all"]:
            wrappers = list(WRAPPERS)
        else:
            unknown = [n for n in wanted if n not in known]
            if unknown or not wanted:
                raise CommandError(f"unknown wrapper(s) {', '.join(unknown) or '(none given)'}; "
                                   f"known: {', '.join(known)}")
            wrappers = [known[n] for n in wanted]
        reports = evaluate_wrapped(load_cases(root), rank_with_kb, wrappers)
        self.stdout.write("  wrapper         cases  first kept         confident kept     unrelated made confident")
        for report in reports:
            self.stdout.write(report.line())
            if options["verbose_failures"]:
                for lost in report.lost:
                    self.stdout.write(f"      lost: {lost}")

    def _audit(self, root: Path, options) -> None:  # type: ignore[no-untyped-def]
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder with tuning.yaml / heldout.yaml")
        cases = load_audit(root)
        if options["half"] != "both":
            cases = [c for c in cases if c.half == options["half"]]
        rounds = tuple(f"{r.strip()}-" for r in options["rounds"].split(",") if r.strip())
        if rounds:
            cases = [c for c in cases if c.id.startswith(rounds)]
            if not cases:
                raise CommandError(f"no audit cases of the collections {options['rounds']!r} under {root}")
        if not cases:
            raise CommandError(f"no audit cases under {root}")
        if options["leave_out"]:
            for half in sorted({c.half for c in cases}, reverse=True):
                self._leave_out(f"{half} (covered)", [(c.id, frozenset(c.labels), c.text) for c in cases
                                                      if c.half == half and c.labels], options)
            return
        reports = evaluate_audit(cases, rank_with_kb, rank_with_plain_search)
        for report in reports.values():
            misses = [r for r in report.rows if (r.covered and not r.useful) or r.confident_wrong]
            if options["verbose_failures"] and misses:
                self.stdout.write(f"[{report.half}] misses ({len(misses)}):")
                for r in misses:
                    got = ", ".join(r.ranked.slugs[:3]) or "-"
                    want = ", ".join(r.case.labels) or f"none ({r.case.topic})"
                    self.stdout.write(f"  {r.case.id}: want [{want}] got [{got}] best={r.ranked.best or '-'}")
            self.stdout.write(report.summary())
            if options["sweep"]:
                self.stdout.write("  threshold  useful  confident  wrong")
                for t, useful, confident, wrong in threshold_sweep(report.rows, [x / 100 for x in range(30, 96, 5)]):
                    self.stdout.write(f"  {t:9.2f}  {useful:6.3f}  {confident:9d}  {wrong:5d}")

    def _leave_out(self, name: str, cases: list[tuple[str, frozenset[str], str]], options) -> None:  # type: ignore[no-untyped-def]
        signatures, topics = build_signatures(), build_topics(published_articles())
        if not signatures:
            raise CommandError("no published articles: import the knowledge base first (manage.py import_kb)")

        def ranker_without(labels: frozenset[str]):  # type: ignore[no-untyped-def]
            matcher = Matcher([s for s in signatures if s.topic not in labels],
                              topics={slug: t for slug, t in topics.items() if slug not in labels})

            def rank(text: str) -> Ranked:
                result = matcher.match(text, limit=5)
                return Ranked(slugs=[m.topic for m in result.matches],
                              best=result.best.topic if result.best else None,
                              top_score=result.matches[0].score if result.matches else 0.0)
            return rank

        def progress(done: int, total: int) -> None:
            if done == total or done % 20 == 0:
                self.stderr.write(f"  {name}: {done}/{total} knowledge bases built")

        report = evaluate_leave_out(name, cases, ranker_without, progress)
        if options["verbose_failures"]:
            for r in report.confident:
                self.stdout.write(f"  {r.id}: without [{', '.join(sorted(r.labels))}] got best={r.ranked.best} "
                                  f"({r.ranked.top_score:.3f})")
        self.stdout.write(report.summary())
