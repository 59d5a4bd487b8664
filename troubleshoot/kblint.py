"""Editorial lint for the shipped knowledge base (``manage.py check_kb``).

Import accepts any well-formed file; this lint holds the shipped articles to the
editorial bar: enough symptoms to match on, a cause, a fix with code, references,
patterns that compile and match their own symptom, and no symptom text that two
topics share (the matcher could not tell them apart). Plain Python, no Django.

Run alone with ``python -m troubleshoot.kblint [FOLDER]``.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import regex

from troubleshoot.engine.fields import FIELD_CAPTURES, paste_fields
from troubleshoot.engine.reader import read
from troubleshoot.kbformat import ArticleData, FormatError, iter_article_files, parse_article

DEFAULT_ROOT = Path(__file__).resolve().parent / "kb"
CODE_BLOCK_RE = re.compile(r"^```[\w+-]*\s*$", re.MULTILINE)
PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|[^}]*)?\}\}")
PATTERN_TIMEOUT = 0.5


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _norm_symptom(text: str) -> str:
    return " ".join(text.lower().split())


def lint_article(article: ArticleData, path: str) -> list[Problem]:
    problems: list[Problem] = []

    def add(message: str) -> None:
        problems.append(Problem(path, message))

    if not article.summary:
        add("summary is empty")
    if not article.components:
        add("no components listed")
    if not article.problem.strip():
        add("the body (problem description) is empty")
    if len(article.symptoms) < 2:
        add(f"has {len(article.symptoms)} symptom(s); at least 2 are required")
    if not article.causes:
        add("has no cause")
    if not article.fixes:
        add("has no fix")
    elif not any(CODE_BLOCK_RE.search(f.body) for f in article.fixes):
        add("no fix has a fenced code block (```yaml, ```bash, ```hcl ...)")
    if not article.references:
        add("has no references")

    named_groups: set[str] = set()
    for i, symptom in enumerate(article.symptoms):
        if not symptom.pattern:
            continue
        where = f"symptoms[{i}].pattern"
        try:
            compiled = regex.compile(symptom.pattern, regex.IGNORECASE)
        except regex.error as exc:
            add(f"{where} does not compile: {exc}")
            continue
        if not compiled.groupindex:
            add(f"{where} has no named group (?P<name>...) to capture the variable part")
        named_groups.update(compiled.groupindex)
        try:
            found = compiled.search(symptom.text, timeout=PATTERN_TIMEOUT)
        except TimeoutError:
            add(f"{where} took over {PATTERN_TIMEOUT}s on its own symptom text (catastrophic backtracking?)")
            continue
        if not found:
            add(f"{where} does not match its own symptom text")
        else:
            empty = [name for name, value in found.groupdict().items() if value in (None, "")]
            if empty and len(empty) == len(compiled.groupindex):
                add(f"{where} matches its symptom text but captures nothing for {', '.join(empty)}")

    for i, symptom in enumerate(article.symptoms):
        if symptom.when:
            fields = _fields_of(symptom.text)
            problem = _when_problem(fields, symptom.when)
            if problem:
                add(f"symptoms[{i}].when {problem}")
            # a condition's match captures every field its line carries (see engine.rules)
            named_groups.update(FIELD_CAPTURES[name] for name in fields if name in FIELD_CAPTURES)

    for i, fix in enumerate(article.fixes):
        for name in PLACEHOLDER_RE.findall(fix.body):
            if name not in named_groups:
                add(f"fixes[{i}] uses placeholder {{{{{name}}}}} but no symptom pattern or condition captures "
                    f"'{name}'")
    return problems


def _fields_of(text: str) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    per_line, components = paste_fields(read(text))
    for f in per_line:
        for name, values in f.items():
            fields.setdefault(name, []).extend(values)
    fields.setdefault("component", []).extend(components)  # paste-wide, as the matcher reads them
    return fields


def _when_problem(fields: dict[str, list[str]], when: dict[str, str]) -> str | None:
    """A symptom's conditions must hold on its own example message, as its pattern must match it."""
    for name, rx in when.items():
        compiled = regex.compile(rx, regex.IGNORECASE)
        values = fields.get(name, [])
        try:
            if not any(compiled.fullmatch(v, timeout=PATTERN_TIMEOUT) for v in values):
                return f"condition {name}: {rx!r} does not hold on its own symptom text (read: {values or 'nothing'})"
        except TimeoutError:
            return f"condition {name} took over {PATTERN_TIMEOUT}s (catastrophic backtracking?)"
    return None


def lint_folder(root: Path) -> tuple[list[ArticleData], list[Problem]]:
    problems: list[Problem] = []
    articles: list[tuple[str, ArticleData]] = []
    for path in iter_article_files(root):
        try:
            article = parse_article(path.read_text(encoding="utf-8"), path=str(path))
        except (FormatError, UnicodeDecodeError) as exc:
            problems.append(Problem(str(path), str(exc)))
            continue
        articles.append((str(path), article))
        problems.extend(lint_article(article, str(path)))

    seen_keys: dict[tuple[str, str], str] = {}
    owners: dict[str, set[str]] = defaultdict(set)
    first_path: dict[str, str] = {}
    for path, article in articles:
        key = (article.slug, article.language)
        if key in seen_keys:
            problems.append(Problem(path, f"duplicate slug+language {key[0]}/{key[1]} (also {seen_keys[key]})"))
        seen_keys[key] = path
        for symptom in article.symptoms:
            text = _norm_symptom(symptom.text)
            owners[text].add(article.slug)
            first_path.setdefault(text, path)
    for text, slugs in owners.items():
        if len(slugs) > 1:
            where = ", ".join(sorted(slugs))
            problems.append(Problem(first_path[text],
                                    f"symptom text appears in several articles ({where}): {text[:90]!r}"))
    return [a for _, a in articles], problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else DEFAULT_ROOT
    articles, problems = lint_folder(root)
    for problem in problems:
        print(problem)
    print(f"{len(articles)} article file(s) checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
