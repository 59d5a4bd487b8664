"""The article file format: parsing, validation messages, and the dump/parse round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from troubleshoot import kbformat
from troubleshoot.kbformat import FormatError, dump_article, load_folder, parse_article

FIXTURE_KB = Path(__file__).parent / "fixtures" / "kb"

MINIMAL = """---
slug: a-topic
title: A topic
language: en
symptoms:
  - text: something broke
---
Body.
"""


def test_it_parses_the_minimal_file():
    article = parse_article(MINIMAL)
    assert (article.slug, article.title, article.language, article.status) == ("a-topic", "A topic", "en",
                                                                             "published")
    assert article.symptoms[0].text == "something broke"
    assert article.problem == "Body."


def test_it_splits_best_practices_from_the_problem():
    article = parse_article((FIXTURE_KB / "en" / "taint-demo.md").read_text())
    assert "Pending" in article.problem
    assert "Best practices" not in article.problem
    assert article.best_practices.startswith("- Give system add-ons")


def test_it_resolves_cause_references_by_number_and_title():
    text = MINIMAL.replace("symptoms:", """causes:
  - title: First
  - title: Second
fixes:
  - title: by number
    cause: 2
  - title: by title
    cause: First
symptoms:""")
    article = parse_article(text)
    assert [f.cause for f in article.fixes] == [1, 0]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        (MINIMAL.replace("slug: a-topic\n", ""), "slug", "is required"),
        (MINIMAL.replace("slug: a-topic", "slug: Not A Slug"), "slug", "not a valid slug"),
        (MINIMAL.replace("language: en", "language: fr"), "language", "not supported"),
        (MINIMAL.replace("title: A topic", "title: [a, b]"), "title", "must be text"),
        (MINIMAL.replace("  - text: something broke", "  - weight: 2"), "symptoms[0].text", "is required"),
        (MINIMAL.replace("symptoms:\n  - text: something broke\n", "symptoms: []\n"), "symptoms",
         "at least one symptom"),
        (MINIMAL.replace("symptoms:", "components: Karpenter\nsymptoms:"), "components", "must be a list"),
        (MINIMAL.replace("  - text: something broke", "  - text: x\n    weight: heavy"), "symptoms[0].weight",
         "must be a number"),
        (MINIMAL.replace("symptoms:", "fixes:\n  - title: f\n    cause: 3\nsymptoms:"), "fixes[0].cause",
         "does not exist"),
        (MINIMAL.replace("symptoms:", "references:\n  - title: r\n    url: javascript:alert(1)\nsymptoms:"),
         "references[0].url", "not an http(s) URL"),
        (MINIMAL.replace("symptoms:", "colour: blue\nsymptoms:"), "colour", "unknown front-matter key"),
        (MINIMAL.replace("status", "status").replace("language: en", "language: en\nstatus: live"), "status",
         "not one of"),
        # the database's column lengths: SQLite would store more, PostgreSQL refuses (a 400, never a 500)
        (MINIMAL.replace("  - text: something broke", "  - text: x\n    source: " + "s" * 201), "symptoms[0].source",
         "longer than 200 characters"),
        (MINIMAL.replace("  - text: something broke", "  - text: x\n    kind: " + "k" * 41), "symptoms[0].kind",
         "longer than 40 characters"),
        (MINIMAL.replace("symptoms:", "causes:\n  - title: " + "t" * 301 + "\nsymptoms:"), "causes[0].title",
         "longer than 300 characters"),
    ],
)
def test_it_names_the_field_of_a_bad_file(text, field, words):
    with pytest.raises(FormatError) as info:
        parse_article(text, path="kb/bad.md")
    assert info.value.field == field
    assert words in str(info.value)
    assert "kb/bad.md" in str(info.value)


def test_it_reports_bad_yaml_with_a_line_number():
    with pytest.raises(FormatError, match=r"invalid YAML front matter at line \d+"):
        parse_article("---\nslug: [unclosed\ntitle: x\n---\nbody\n")


def test_it_requires_front_matter():
    with pytest.raises(FormatError, match="no YAML front matter"):
        parse_article("# Just markdown\n")


def test_dump_then_parse_gives_the_same_article():
    for path in sorted(FIXTURE_KB.rglob("*.md")):
        article = parse_article(path.read_text())
        assert parse_article(dump_article(article)) == article


def test_a_folder_with_a_duplicate_slug_and_language_is_refused(tmp_path):
    (tmp_path / "one.md").write_text(MINIMAL)
    (tmp_path / "two.md").write_text(MINIMAL.replace("title: A topic", "title: Again"))
    with pytest.raises(FormatError, match="duplicate slug\\+language a-topic/en"):
        load_folder(tmp_path)


def test_a_file_that_is_not_utf8_is_refused_by_name(tmp_path):
    (tmp_path / "latin1.md").write_bytes(MINIMAL.replace("Body.", "Caf\xe9").encode("latin-1"))
    with pytest.raises(FormatError, match="latin1.md: is not valid UTF-8"):
        load_folder(tmp_path)


def test_languages_are_the_supported_ones():
    assert kbformat.LANGUAGES == ("en", "zh-hans")


WHEN_ARTICLE = """---
slug: w
title: W
language: en
symptoms:
  - text: 'User: arn:aws:sts::1:assumed-role/r/s is not authorized to perform: ec2:RunInstances'
    when: {aws.action: 'ec2:RunInstances', component: 'Karpenter'}
---
body
"""


def test_it_reads_structured_conditions():
    article = parse_article(WHEN_ARTICLE)
    assert article.symptoms[0].when == {"aws.action": "ec2:RunInstances", "component": "Karpenter"}
    assert "when:" in dump_article(article)
    assert parse_article(dump_article(article)).symptoms[0].when == article.symptoms[0].when


@pytest.mark.parametrize("when, words", [
    ("{aws.nothing: 'x'}", "unknown field 'aws.nothing'"),
    ("{aws.action: '(a+)+$'}", "backtrack"),
    ("['aws.action']", "must be a mapping"),
])
def test_it_refuses_bad_conditions(when, words):
    text = WHEN_ARTICLE.replace("{aws.action: 'ec2:RunInstances', component: 'Karpenter'}", when)
    with pytest.raises(FormatError) as exc:
        parse_article(text)
    assert exc.value.field.startswith("symptoms[0].when")
    assert words in str(exc.value)
