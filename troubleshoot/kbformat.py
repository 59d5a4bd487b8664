"""The docs-as-code article format: one Markdown file per article per language.

A file is YAML front matter (the structured fields) followed by a Markdown body
(the problem description, optionally ending in a ``## Best practices`` section).
This module parses, validates and writes that format. It is plain Python (no
Django) so the importer, the exporter and the ``check_kb`` lint share one
definition of what a valid file is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

LANGUAGES = ("en", "zh-hans")
STATUSES = ("draft", "published", "archived")
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
BEST_PRACTICES_RE = re.compile(r"^##[ \t]+(best practices|最佳实践)[ \t]*$", re.IGNORECASE | re.MULTILINE)
FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)

TOP_LEVEL_KEYS = {
    "slug", "title", "language", "summary", "status", "components", "environment",
    "symptoms", "causes", "fixes", "versions", "references",
}
SYMPTOM_KEYS = {"text", "kind", "source", "pattern", "weight", "cause", "when"}
CAUSE_KEYS = {"title", "body"}
FIX_KEYS = {"title", "body", "verify", "cause"}
VERSION_KEYS = {"component", "affected", "fixed_in", "note"}
REFERENCE_KEYS = {"title", "url"}


# libyaml's C loader when PyYAML was built with it (10x faster on a large KB).
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class FormatError(ValueError):
    """A file that does not follow the format; ``field`` names the offending key."""

    def __init__(self, message: str, *, path: str = "", field: str = "") -> None:
        self.path = path
        self.field = field
        self.message = message
        where = path or "<text>"
        if field:
            where += f": field '{field}'"
        super().__init__(f"{where}: {message}")


@dataclass
class SymptomData:
    text: str
    kind: str = ""
    source: str = ""
    pattern: str = ""
    weight: float = 1.0
    cause: int | None = None  # 0-based index into causes
    when: dict[str, str] = field(default_factory=dict)  # structured field -> regex (see engine.fields)


@dataclass
class CauseData:
    title: str
    body: str = ""


@dataclass
class FixData:
    title: str
    body: str = ""
    verify: str = ""
    cause: int | None = None  # 0-based index into causes; None = general fix


@dataclass
class VersionData:
    component: str
    affected: str = ""
    fixed_in: str = ""
    note: str = ""


@dataclass
class ReferenceData:
    title: str
    url: str


@dataclass
class ArticleData:
    slug: str
    title: str
    language: str
    summary: str = ""
    status: str = "published"
    components: list[str] = field(default_factory=list)
    environment: str = ""
    problem: str = ""
    best_practices: str = ""
    symptoms: list[SymptomData] = field(default_factory=list)
    causes: list[CauseData] = field(default_factory=list)
    fixes: list[FixData] = field(default_factory=list)
    versions: list[VersionData] = field(default_factory=list)
    references: list[ReferenceData] = field(default_factory=list)


def _str(value: Any, *, path: str, name: str, required: bool = False, limit: int | None = None) -> str:
    """Text of a field; ``limit`` is the database column's length (SQLite would store more, PostgreSQL refuses)."""
    if value is None:
        if required:
            raise FormatError("is required", path=path, field=name)
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise FormatError(f"must be text, got {type(value).__name__}", path=path, field=name)
    text = str(value).strip() if not isinstance(value, str) else value
    if required and not text.strip():
        raise FormatError("must not be empty", path=path, field=name)
    if limit is not None and len(text.strip()) > limit:
        raise FormatError(f"is longer than {limit} characters", path=path, field=name)
    return text


def _list(value: Any, *, path: str, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FormatError(f"must be a list, got {type(value).__name__}", path=path, field=name)
    return value


def _mapping(value: Any, allowed: set[str], *, path: str, name: str) -> dict[str, Any]:
    if isinstance(value, str) and name.startswith(("symptoms", "causes", "references")):
        # A bare string is accepted as the item's main text/title for brevity.
        return {"text" if name.startswith("symptoms") else "title": value}
    if not isinstance(value, dict):
        raise FormatError(f"must be a mapping, got {type(value).__name__}", path=path, field=name)
    unknown = sorted(set(map(str, value)) - allowed)
    if unknown:
        raise FormatError(
            f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
            path=path, field=name,
        )
    return value


def _when(value: Any, *, path: str, name: str) -> dict[str, str]:
    """A symptom's structured conditions: ``{field: regex}``, every regex fully matching a value."""
    from troubleshoot.engine.fields import FIELD_NAMES
    from troubleshoot.engine.patterns import validate_pattern

    if value is None or value == {}:
        return {}
    if not isinstance(value, dict):
        raise FormatError("must be a mapping of field name to regex", path=path, field=name)
    out: dict[str, str] = {}
    for key, rx in value.items():
        if str(key) not in FIELD_NAMES:
            raise FormatError(f"unknown field {key!r}; known: {', '.join(sorted(FIELD_NAMES))}",
                              path=path, field=name)
        rx = _str(rx, path=path, name=f"{name}.{key}", required=True).strip()
        problem = validate_pattern(rx, require_groups=False)
        if problem:
            raise FormatError(problem, path=path, field=f"{name}.{key}")
        out[str(key)] = rx
    return out


def _cause_ref(value: Any, causes: list[CauseData], *, path: str, name: str) -> int | None:
    """Resolve a cause reference: a 1-based index or the exact title of a cause."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise FormatError("must be a cause number or title", path=path, field=name)
    if isinstance(value, int):
        if not 1 <= value <= len(causes):
            raise FormatError(f"cause {value} does not exist (there are {len(causes)} causes, numbered from 1)",
                              path=path, field=name)
        return value - 1
    if isinstance(value, str):
        if value.strip().isdigit():
            return _cause_ref(int(value.strip()), causes, path=path, name=name)
        for index, cause in enumerate(causes):
            if cause.title.strip() == value.strip():
                return index
        raise FormatError(f"no cause titled {value!r}", path=path, field=name)
    raise FormatError("must be a cause number or title", path=path, field=name)


def split_front_matter(text: str, *, path: str = "") -> tuple[dict[str, Any], str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    match = FRONT_MATTER_RE.match(text)
    if not match:
        raise FormatError("no YAML front matter (the file must start with a '---' line and close it with another)",
                          path=path)
    try:
        meta = yaml.load(match.group(1), Loader=_Loader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise FormatError(f"invalid YAML front matter{where}: {problem}", path=path) from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FormatError("front matter must be a YAML mapping of keys to values", path=path)
    return meta, text[match.end():]


def parse_article(text: str, *, path: str = "") -> ArticleData:
    """Parse and validate one article file. Raises FormatError naming the field."""
    meta, body = split_front_matter(text, path=path)
    problem, best_practices = split_body(body)
    return article_from_mapping(meta, problem=problem, best_practices=best_practices, path=path)


def article_from_dict(data: dict[str, Any]) -> ArticleData:
    """Validate a record sent as JSON (the API): the front-matter keys plus ``problem`` and
    ``best_practices``. The same rules and messages as a file."""
    if not isinstance(data, dict):
        raise FormatError("the article must be a JSON object")
    meta = {k: v for k, v in data.items() if k not in ("problem", "best_practices")}
    problem = _str(data.get("problem"), path="", name="problem")
    best = _str(data.get("best_practices"), path="", name="best_practices")
    return article_from_mapping(meta, problem=problem.strip(), best_practices=best.strip())


def article_from_mapping(meta: dict[str, Any], *, problem: str, best_practices: str, path: str = "") -> ArticleData:
    unknown = sorted(set(map(str, meta)) - TOP_LEVEL_KEYS)
    if unknown:
        raise FormatError(f"unknown front-matter key(s): {', '.join(unknown)}", path=path, field=unknown[0])

    slug = _str(meta.get("slug"), path=path, name="slug", required=True).strip()
    if not SLUG_RE.match(slug) or len(slug) > 100:
        raise FormatError(f"{slug!r} is not a valid slug (lowercase letters, digits and single hyphens, "
                          "at most 100 characters)", path=path, field="slug")
    title = _str(meta.get("title"), path=path, name="title", required=True).strip()
    if len(title) > 200:
        raise FormatError("is longer than 200 characters", path=path, field="title")
    language = _str(meta.get("language"), path=path, name="language", required=True).strip().lower()
    if language == "zh":
        language = "zh-hans"
    if language not in LANGUAGES:
        raise FormatError(f"{language!r} is not supported; use one of {', '.join(LANGUAGES)}",
                          path=path, field="language")
    status = _str(meta.get("status"), path=path, name="status").strip().lower() or "published"
    if status not in STATUSES:
        raise FormatError(f"{status!r} is not one of {', '.join(STATUSES)}", path=path, field="status")

    components = []
    for i, item in enumerate(_list(meta.get("components"), path=path, name="components")):
        name = _str(item, path=path, name=f"components[{i}]", required=True).strip()
        if len(name) > 80:
            raise FormatError("component names are at most 80 characters", path=path, field=f"components[{i}]")
        if name not in components:
            components.append(name)

    causes = []
    for i, item in enumerate(_list(meta.get("causes"), path=path, name="causes")):
        where = f"causes[{i}]"
        item = _mapping(item, CAUSE_KEYS, path=path, name=where)
        causes.append(CauseData(
            title=_str(item.get("title"), path=path, name=f"{where}.title", required=True, limit=300).strip(),
            body=_str(item.get("body"), path=path, name=f"{where}.body").strip(),
        ))

    symptoms = []
    for i, item in enumerate(_list(meta.get("symptoms"), path=path, name="symptoms")):
        where = f"symptoms[{i}]"
        item = _mapping(item, SYMPTOM_KEYS, path=path, name=where)
        weight = item.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight <= 10:
            raise FormatError("must be a number greater than 0 and at most 10", path=path, field=f"{where}.weight")
        symptoms.append(SymptomData(
            text=_str(item.get("text"), path=path, name=f"{where}.text", required=True).strip(),
            kind=_str(item.get("kind"), path=path, name=f"{where}.kind", limit=40).strip(),
            source=_str(item.get("source"), path=path, name=f"{where}.source", limit=200).strip(),
            pattern=_str(item.get("pattern"), path=path, name=f"{where}.pattern").strip(),
            weight=float(weight),
            cause=_cause_ref(item.get("cause"), causes, path=path, name=f"{where}.cause"),
            when=_when(item.get("when"), path=path, name=f"{where}.when"),
        ))
    if not symptoms:
        raise FormatError("at least one symptom is required", path=path, field="symptoms")

    fixes = []
    for i, item in enumerate(_list(meta.get("fixes"), path=path, name="fixes")):
        where = f"fixes[{i}]"
        item = _mapping(item, FIX_KEYS, path=path, name=where)
        fixes.append(FixData(
            title=_str(item.get("title"), path=path, name=f"{where}.title", required=True, limit=300).strip(),
            body=_str(item.get("body"), path=path, name=f"{where}.body").strip(),
            verify=_str(item.get("verify"), path=path, name=f"{where}.verify").strip(),
            cause=_cause_ref(item.get("cause"), causes, path=path, name=f"{where}.cause"),
        ))

    versions = []
    for i, item in enumerate(_list(meta.get("versions"), path=path, name="versions")):
        where = f"versions[{i}]"
        item = _mapping(item, VERSION_KEYS, path=path, name=where)
        versions.append(VersionData(
            component=_str(item.get("component"), path=path, name=f"{where}.component", required=True,
                           limit=80).strip(),
            affected=_str(item.get("affected"), path=path, name=f"{where}.affected", limit=120).strip(),
            fixed_in=_str(item.get("fixed_in"), path=path, name=f"{where}.fixed_in", limit=60).strip(),
            note=_str(item.get("note"), path=path, name=f"{where}.note").strip(),
        ))

    references = []
    for i, item in enumerate(_list(meta.get("references"), path=path, name="references")):
        where = f"references[{i}]"
        item = _mapping(item, REFERENCE_KEYS, path=path, name=where)
        url = _str(item.get("url"), path=path, name=f"{where}.url", required=True, limit=500).strip()
        if not re.match(r"^https?://[^\s]+$", url):
            raise FormatError(f"{url!r} is not an http(s) URL", path=path, field=f"{where}.url")
        references.append(ReferenceData(
            title=_str(item.get("title"), path=path, name=f"{where}.title", limit=300).strip() or url, url=url))

    return ArticleData(
        slug=slug, title=title, language=language,
        summary=_str(meta.get("summary"), path=path, name="summary").strip(),
        status=status, components=sorted(components, key=str.lower),
        environment=_str(meta.get("environment"), path=path, name="environment").strip(),
        problem=problem, best_practices=best_practices,
        symptoms=symptoms, causes=causes, fixes=fixes, versions=versions, references=references,
    )


def split_body(body: str) -> tuple[str, str]:
    """Split the Markdown body into the problem text and the best-practices section."""
    match = BEST_PRACTICES_RE.search(body)
    if not match:
        return body.strip(), ""
    return body[: match.start()].strip(), body[match.end():].strip()


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_representer)


def dump_article(article: ArticleData) -> str:
    """Write an article back to the file format; ``parse_article(dump_article(a)) == a``."""

    def cause_title(index: int | None) -> str | None:
        return article.causes[index].title if index is not None and index < len(article.causes) else None

    def prune(mapping: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in mapping.items() if v not in (None, "", [])}

    meta: dict[str, Any] = prune({
        "slug": article.slug,
        "title": article.title,
        "language": article.language,
        "summary": article.summary,
        "status": article.status,
        "components": list(article.components),
        "environment": article.environment,
    })
    meta["symptoms"] = [
        prune({"text": s.text, "kind": s.kind, "source": s.source, "pattern": s.pattern,
               "weight": s.weight if s.weight != 1.0 else None, "cause": cause_title(s.cause),
               "when": dict(s.when) or None})
        for s in article.symptoms
    ]
    meta["causes"] = [prune({"title": c.title, "body": c.body}) for c in article.causes]
    meta["fixes"] = [
        prune({"title": f.title, "cause": cause_title(f.cause), "body": f.body, "verify": f.verify})
        for f in article.fixes
    ]
    meta["versions"] = [prune(vars(v).copy()) for v in article.versions]
    meta["references"] = [{"title": r.title, "url": r.url} for r in article.references]
    meta = prune(meta)
    front = yaml.dump(meta, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    body = article.problem.strip() + "\n"
    if article.best_practices.strip():
        heading = "最佳实践" if article.language == "zh-hans" else "Best practices"
        body += f"\n## {heading}\n\n{article.best_practices.strip()}\n"
    return f"---\n{front}---\n\n{body}"


def iter_article_files(root: Path) -> list[Path]:
    """All article files under ``root``, in a stable order."""
    return sorted(p for p in root.rglob("*.md") if p.is_file() and not p.name.startswith(("_", ".")))


def load_folder(root: Path) -> list[tuple[Path, ArticleData]]:
    """Parse every file under ``root``; the first bad file raises FormatError naming it."""
    if not root.is_dir():
        raise FormatError("is not a folder", path=str(root))
    items: list[tuple[Path, ArticleData]] = []
    seen: dict[tuple[str, str], Path] = {}
    for path in iter_article_files(root):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(f"is not valid UTF-8 (byte {exc.start})", path=str(path)) from None
        article = parse_article(text, path=str(path))
        key = (article.slug, article.language)
        if key in seen:
            raise FormatError(f"duplicate slug+language {article.slug}/{article.language}, also in {seen[key]}",
                              path=str(path), field="slug")
        seen[key] = path
        items.append((path, article))
    return items
