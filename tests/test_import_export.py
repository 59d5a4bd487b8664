"""Import is idempotent and all-or-nothing; export then import changes nothing; every save is a revision."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from troubleshoot.models import Article, Component, KBState, Revision
from troubleshoot.services import article_restore, article_save, article_to_data, kb_export, kb_import

FIXTURE_KB = Path(__file__).parent / "fixtures" / "kb"


@pytest.mark.django_db
def test_import_creates_structured_records(fixture_kb):
    assert (fixture_kb.created, fixture_kb.updated) == (4, 0)
    article = Article.objects.get(slug="taint-demo", language="en")
    assert article.symptoms.count() == 2
    assert article.causes.get().title == "The nodes are reserved by a taint"
    fix = article.fixes.get()
    assert fix.cause == article.causes.get()
    assert article.symptoms.first().cause == article.causes.get()
    assert {c.name for c in article.components.all()} == {"Kubernetes", "Karpenter"}
    assert article.references.get().url.startswith("https://kubernetes.io/")
    assert Article.objects.filter(slug="taint-demo").count() == 2  # en + zh-hans, linked by slug
    assert article.translations().get().language == "zh-hans"


@pytest.mark.django_db
def test_import_creates_components_it_has_not_seen(fixture_kb):
    assert Component.objects.filter(name="CoreDNS", slug="coredns").exists()


@pytest.mark.django_db
def test_reimporting_the_same_files_changes_nothing(fixture_kb):
    version = KBState.current()
    revisions = Revision.objects.count()
    again = kb_import(root=FIXTURE_KB)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 4)
    assert Article.objects.count() == 4
    assert Revision.objects.count() == revisions
    assert KBState.current() == version


@pytest.mark.django_db
def test_reimporting_a_changed_file_updates_it_and_keeps_a_revision(fixture_kb, tmp_path):
    folder = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, folder)
    path = folder / "en" / "oom-demo.md"
    path.write_text(path.read_text().replace("Raise the memory limit", "Give the container more memory"))
    result = kb_import(root=folder)
    assert (result.created, result.updated, result.unchanged) == (0, 1, 3)
    article = Article.objects.get(slug="oom-demo")
    assert article.fixes.get().title == "Give the container more memory"
    assert [r.content["fixes"][0]["title"] for r in article.revisions.order_by("number")] == [
        "Raise the memory limit", "Give the container more memory"]


@pytest.mark.django_db
def test_one_bad_file_aborts_the_whole_import(tmp_path):
    folder = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, folder)
    (folder / "en" / "zzz-broken.md").write_text("---\nslug: broken\ntitle: x\nlanguage: en\n---\nno symptoms\n")
    with pytest.raises(CommandError) as info:
        call_command("import_kb", str(folder))
    assert "zzz-broken.md" in str(info.value) and "symptoms" in str(info.value)
    assert "nothing was changed" in str(info.value)
    assert Article.objects.count() == 0


@pytest.mark.django_db
def test_a_failure_while_writing_rolls_back_everything(tmp_path, monkeypatch):
    from troubleshoot import services

    calls = {"n": 0}
    real = services._write_children

    def failing(article, data, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("disk full")
        return real(article, data, **kwargs)

    monkeypatch.setattr(services, "_write_children", failing)
    with pytest.raises(RuntimeError):
        kb_import(root=FIXTURE_KB)
    assert Article.objects.count() == 0
    assert Revision.objects.count() == 0


@pytest.mark.django_db
def test_export_then_import_changes_nothing(fixture_kb, tmp_path):
    out = tmp_path / "export"
    assert kb_export(root=out) == 4
    assert (out / "zh-hans" / "taint-demo.md").exists()
    before = {(a.slug, a.language): article_to_data(a) for a in Article.objects.all()}
    result = kb_import(root=out)
    assert (result.created, result.updated, result.unchanged) == (0, 0, 4)
    after = {(a.slug, a.language): article_to_data(a) for a in Article.objects.all()}
    assert before == after


@pytest.mark.django_db
def test_restoring_a_revision_brings_the_old_content_back_as_a_new_revision(fixture_kb, django_user_model):
    editor = django_user_model.objects.create_user("editor")
    article = Article.objects.get(slug="dns-demo")
    data = article_to_data(article)
    data.title = "DNS is broken"
    data.symptoms = data.symptoms[:1]
    article_save(data=data, author=editor, source="api")
    article.refresh_from_db()
    assert article.title == "DNS is broken" and article.symptoms.count() == 1
    first = article.revisions.get(number=1)
    result = article_restore(revision=first, author=editor)
    assert result.changed
    article.refresh_from_db()
    assert article.title == "DNS lookups time out inside pods"
    assert article.symptoms.count() == 2
    assert [r.source for r in article.revisions.order_by("number")] == ["import", "api", "restore"]
    assert article.revisions.get(number=3).author == editor


@pytest.mark.django_db
def test_the_shipped_knowledge_base_imports(shipped_kb):
    assert shipped_kb.created >= 5
    assert Article.objects.published().count() == shipped_kb.created
