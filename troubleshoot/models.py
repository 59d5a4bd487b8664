"""Structured troubleshooting records: articles with their symptoms, causes, fixes,
affected versions and references, plus the revision history of every save.

The database is the source of truth; the Whoosh index and the in-memory matcher
are derived from it and follow the KB revision counter in ``KBState``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _


class Component(models.Model):
    name = models.CharField(max_length=80, unique=True)
    slug = models.SlugField(max_length=90, unique=True)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not self.slug:
            self.slug = slugify(self.name) or "component"
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("component", args=[self.slug])


class ArticleQuerySet(models.QuerySet["Article"]):
    def published(self) -> ArticleQuerySet:
        return self.filter(status=Article.Status.PUBLISHED)


class Article(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        PUBLISHED = "published", _("Published")
        ARCHIVED = "archived", _("Archived")

    class Language(models.TextChoices):
        EN = "en", "English"
        ZH_HANS = "zh-hans", "简体中文"

    slug = models.SlugField(max_length=100, help_text=_("Stable id shared by every language of one topic."))
    language = models.CharField(max_length=10, choices=Language.choices, default=Language.EN)
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PUBLISHED, db_index=True)
    components = models.ManyToManyField(Component, blank=True, related_name="articles")
    environment = models.TextField(blank=True, help_text=_("Where it happens, e.g. Fargate vs EC2 nodes."))
    problem = models.TextField(blank=True, help_text=_("Markdown."))
    best_practices = models.TextField(blank=True, help_text=_("Markdown."))
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    # Value of the KB revision counter at this article's last change: lets every
    # process refresh its index incrementally (see troubleshoot.search).
    kb_version = models.BigIntegerField(default=0, db_index=True, editable=False)

    objects = ArticleQuerySet.as_manager()

    class Meta:
        ordering = ["slug", "language"]
        constraints = [models.UniqueConstraint(fields=["slug", "language"], name="article_slug_language_unique")]
        indexes = [models.Index(fields=["status", "-updated"])]

    def __str__(self) -> str:
        return f"{self.title} [{self.language}]"

    def get_absolute_url(self) -> str:
        url = reverse("article", args=[self.slug])
        return url if self.language == "en" else f"{url}?language={self.language}"

    def translations(self) -> models.QuerySet[Article]:
        return Article.objects.filter(slug=self.slug).exclude(pk=self.pk)


class Cause(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="causes")
    position = models.PositiveIntegerField(default=0)
    title = models.CharField(max_length=300)
    body = models.TextField(blank=True, help_text=_("Markdown."))

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.title


class Symptom(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="symptoms")
    position = models.PositiveIntegerField(default=0)
    text = models.TextField(help_text=_("The message exactly as the system prints it."))
    kind = models.CharField(max_length=40, blank=True)
    source = models.CharField(max_length=200, blank=True)
    pattern = models.TextField(blank=True, help_text=_("Regex with named groups for the variable parts."))
    weight = models.FloatField(default=1.0)
    cause = models.ForeignKey(Cause, null=True, blank=True, on_delete=models.SET_NULL, related_name="symptoms")
    when = models.JSONField(default=dict, blank=True, help_text=_(
        "Structured conditions {field: regex} read from the message (e.g. aws.action, k8s.verb, component)."))

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.text[:80]

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        from troubleshoot.engine.patterns import validate_pattern

        if self.pattern:
            problem = validate_pattern(self.pattern)
            if problem:
                raise ValidationError({"pattern": problem})
        if self.when:
            from troubleshoot.kbformat import FormatError, _when

            try:
                self.when = _when(self.when, path="", name="when")
            except FormatError as exc:
                raise ValidationError({"when": exc.message}) from exc
        if not (0 < self.weight <= 10):
            raise ValidationError({"weight": _("Weight must be greater than 0 and at most 10.")})


class Fix(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="fixes")
    cause = models.ForeignKey(Cause, null=True, blank=True, on_delete=models.SET_NULL, related_name="fixes")
    position = models.PositiveIntegerField(default=0)
    title = models.CharField(max_length=300)
    body = models.TextField(blank=True, help_text=_("Markdown with code blocks."))
    verify = models.TextField(blank=True, help_text=_("How to confirm it worked (Markdown)."))

    class Meta:
        ordering = ["position", "id"]
        verbose_name_plural = "fixes"

    def __str__(self) -> str:
        return self.title


class VersionRange(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="versions")
    position = models.PositiveIntegerField(default=0)
    component = models.CharField(max_length=80)
    affected = models.CharField(max_length=120, blank=True)
    fixed_in = models.CharField(max_length=60, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return f"{self.component} {self.affected}".strip()


class Reference(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="references")
    position = models.PositiveIntegerField(default=0)
    title = models.CharField(max_length=300)
    url = models.URLField(max_length=500)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.title


class Revision(models.Model):
    """A full copy of an article as it was after one save (admin, API, import, restore)."""

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    created = models.DateTimeField(auto_now_add=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+")
    source = models.CharField(max_length=20)
    message = models.CharField(max_length=300, blank=True)
    content = models.JSONField()

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["article", "number"], name="revision_number_unique")]

    def __str__(self) -> str:
        return f"{self.article} r{self.number}"


class KBState(models.Model):
    """One row: the KB revision counter, bumped by every change to any article."""

    version = models.BigIntegerField(default=0)

    @classmethod
    def current(cls) -> int:
        row = cls.objects.filter(pk=1).values_list("version", flat=True).first()
        return int(row or 0)


class Tombstone(models.Model):
    """Remembers deleted articles so other processes drop them from their index."""

    slug = models.SlugField(max_length=100)
    language = models.CharField(max_length=10)
    kb_version = models.BigIntegerField(db_index=True)
    deleted = models.DateTimeField(auto_now_add=True)


def _new_id() -> str:
    import secrets

    return secrets.token_urlsafe(18)


class Analysis(models.Model):
    """An uploaded batch of kubectl output and the report made from it.

    Only the redacted text is stored. Visible to its owner (user, or the browser
    session that created it) and to staff; removed after ANALYSIS_RETENTION_DAYS.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    id = models.CharField(primary_key=True, max_length=40, default=_new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="analyses")
    session_key = models.CharField(max_length=64, blank=True, db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.FloatField(default=0.0)
    progress_message = models.CharField(max_length=200, blank=True)
    sources = models.JSONField(default=list)  # [{"name", "bytes", "start_line"}]
    text = models.TextField()  # redacted
    redactions = models.JSONField(default=list)
    findings = models.JSONField(default=list)
    matches = models.JSONField(default=list)
    summary = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"analysis {self.id} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("analysis", args=[self.id])


class Feedback(models.Model):
    """A "did this fix it?" vote. One vote per voter and article: voting again replaces it."""

    slug = models.SlugField(max_length=100, db_index=True)
    language = models.CharField(max_length=10, default="en")
    helpful = models.BooleanField()
    voter = models.CharField(max_length=80, help_text="user:<id>, session:<key> or ip:<hash>")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    query = models.TextField(blank=True)
    symptoms = models.JSONField(default=list, blank=True)
    created = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["slug", "voter"], name="feedback_one_vote_per_voter")]
        verbose_name_plural = "feedback"

    def __str__(self) -> str:
        return f"{self.slug}: {'helpful' if self.helpful else 'not helpful'}"


class SavedPaste(models.Model):
    """A paste the user chose to keep ("save & share"), redacted, under an unguessable id."""

    id = models.CharField(primary_key=True, max_length=40, default=_new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="saved_pastes")
    session_key = models.CharField(max_length=64, blank=True, db_index=True)
    text = models.TextField()
    redactions = models.JSONField(default=list)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def get_absolute_url(self) -> str:
        return reverse("paste", args=[self.id])


class UnansweredTemplate(models.Model):
    """An error line the KB could not answer (or answered wrongly), masked: one row per template.

    Never the raw paste: ``template`` and ``examples`` are redacted, then masked
    (troubleshoot.learning.masking). Pastes of the same failure with other names, addresses,
    ids, numbers and times share the row and add to ``count``; ``clients`` counts distinct
    clients through ``UnansweredClient`` (hashes only). Kept KB_LEARN_RETENTION_DAYS after
    ``last_seen``; a dismissed row stays (without clients) so the template is never recorded again.
    """

    class Kind(models.TextChoices):
        UNANSWERED = "unanswered", _("Unanswered")
        ANSWERED_WRONG = "answered-wrong", _("Answered wrong")

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        ATTACHED = "attached", _("Attached to an article")
        DRAFTED = "drafted", _("Draft article created")
        ANSWERED = "answered", _("Answered by the KB now")
        DISMISSED = "dismissed", _("Dismissed")

    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.UNANSWERED)
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the template")
    template = models.TextField()
    examples = models.JSONField(default=list, blank=True, help_text="up to 3 readable masked lines")
    article = models.SlugField(max_length=100, blank=True, help_text="the article a 'No' vote was about")
    language = models.CharField(max_length=10, blank=True)
    count = models.PositiveIntegerField(default=0)
    clients = models.PositiveIntegerField(default=0)
    near = models.JSONField(default=list, blank=True, help_text="closest articles: [{slug, title, score}]")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    resolved_article = models.SlugField(max_length=100, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    resolved_at = models.DateTimeField(null=True, blank=True)
    # The KB revision this row was last matched against (the queue re-checks rows behind the counter).
    checked_version = models.BigIntegerField(null=True, blank=True)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-clients", "-count", "-last_seen", "id"]
        constraints = [models.UniqueConstraint(fields=["fingerprint", "kind", "article"],
                                               name="unanswered_one_row_per_template")]
        indexes = [models.Index(fields=["status", "kind", "-clients", "-count"])]

    def __str__(self) -> str:
        return self.template[:80]


class UnansweredClient(models.Model):
    """One distinct client of an unanswered template: a keyed hash, never an address or a session key."""

    entry = models.ForeignKey(UnansweredTemplate, on_delete=models.CASCADE, related_name="client_rows")
    client = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entry", "client"], name="unanswered_client_once")]
