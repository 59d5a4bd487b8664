from __future__ import annotations

from typing import Any

from rest_framework import serializers

from troubleshoot.models import Analysis, Article, Component
from troubleshoot.version_ranking import component_names
from troubleshoot.versions import reading_span

MAX_VERSIONS = 40


def absolute(request: Any, url: str) -> str:
    return request.build_absolute_uri(url) if request is not None else url


class ComponentSerializer(serializers.ModelSerializer):
    articles = serializers.IntegerField(source="n", read_only=True)

    class Meta:
        model = Component
        fields = ["name", "slug", "description", "articles"]


class ArticleListSerializer(serializers.ModelSerializer):
    components = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Article
        fields = ["slug", "title", "language", "summary", "status", "components", "url", "updated"]

    def get_components(self, obj: Article) -> list[str]:
        return [c.name for c in obj.components.all()]

    def get_url(self, obj: Article) -> str:
        return absolute(self.context.get("request"), obj.get_absolute_url())


class SymptomOut(serializers.Serializer):
    text = serializers.CharField()
    kind = serializers.CharField()
    source = serializers.CharField()
    pattern = serializers.CharField()
    weight = serializers.FloatField()
    cause = serializers.IntegerField(allow_null=True, help_text="1-based number of the cause it points to")
    when = serializers.DictField(child=serializers.CharField(), help_text=(
        "structured conditions {field: regex} read from the message, e.g. {\"aws.action\": \"ec2:RunInstances\"}"))


class CauseOut(serializers.Serializer):
    title = serializers.CharField()
    body = serializers.CharField()


class FixOut(serializers.Serializer):
    title = serializers.CharField()
    body = serializers.CharField()
    verify = serializers.CharField()
    cause = serializers.IntegerField(allow_null=True, help_text="1-based number of the cause it fixes")


class VersionOut(serializers.Serializer):
    component = serializers.CharField()
    affected = serializers.CharField()
    fixed_in = serializers.CharField()
    note = serializers.CharField()


class ReferenceOut(serializers.Serializer):
    title = serializers.CharField()
    url = serializers.URLField()


class TranslationOut(serializers.Serializer):
    language = serializers.CharField()
    title = serializers.CharField()
    url = serializers.CharField()


class ArticleDetailSerializer(serializers.ModelSerializer):
    components = serializers.SerializerMethodField()
    symptoms = serializers.SerializerMethodField()
    causes = CauseOut(many=True, read_only=True)
    fixes = serializers.SerializerMethodField()
    versions = VersionOut(many=True, read_only=True)
    references = ReferenceOut(many=True, read_only=True)
    translations = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Article
        fields = ["slug", "title", "language", "summary", "status", "components", "environment", "problem",
                  "best_practices", "symptoms", "causes", "fixes", "versions", "references", "translations",
                  "url", "created", "updated"]

    def _cause_numbers(self, obj: Article) -> dict[int, int]:
        return {c.pk: i + 1 for i, c in enumerate(obj.causes.all())}

    def get_components(self, obj: Article) -> list[str]:
        return [c.name for c in obj.components.all()]

    def get_symptoms(self, obj: Article) -> list[dict[str, Any]]:
        numbers = self._cause_numbers(obj)
        return [{"text": s.text, "kind": s.kind, "source": s.source, "pattern": s.pattern, "weight": s.weight,
                 "cause": numbers.get(s.cause_id) if s.cause_id else None, "when": dict(s.when or {})}
                for s in obj.symptoms.all()]

    def get_fixes(self, obj: Article) -> list[dict[str, Any]]:
        numbers = self._cause_numbers(obj)
        return [{"title": f.title, "body": f.body, "verify": f.verify,
                 "cause": numbers.get(f.cause_id) if f.cause_id else None} for f in obj.fixes.all()]

    def get_translations(self, obj: Article) -> list[dict[str, str]]:
        request = self.context.get("request")
        return [{"language": t.language, "title": t.title, "url": absolute(request, t.get_absolute_url())}
                for t in Article.objects.published().filter(slug=obj.slug).exclude(pk=obj.pk)]

    def get_url(self, obj: Article) -> str:
        return absolute(self.context.get("request"), obj.get_absolute_url())


class MatchInput(serializers.Serializer):
    text = serializers.CharField(allow_blank=False, trim_whitespace=False,
                                 help_text="The pasted error text, logs or kubectl output.")
    limit = serializers.IntegerField(required=False, default=5, min_value=1, max_value=20)
    language = serializers.ChoiceField(choices=Article.Language.choices, required=False, default="en")
    versions = serializers.DictField(
        child=serializers.CharField(max_length=60), required=False, default=dict,
        help_text="The versions you run, keyed by the KB's component names: {\"Karpenter\": \"1.1.1\", "
                  "\"Kubernetes\": \"1.29\"}. They add to (and override) the versions read from the text.")

    def validate_text(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("The text is empty: paste the error message or logs to match.")
        return value

    def validate_versions(self, value: dict[str, str]) -> dict[str, str]:
        if len(value) > MAX_VERSIONS:
            raise serializers.ValidationError(f"At most {MAX_VERSIONS} components, got {len(value)}.")
        known = {name.lower(): name for name in component_names()}
        checked = {}
        for key, version in value.items():
            name = known.get(str(key).strip().lower())
            if name is None:
                raise serializers.ValidationError(
                    f"'{key}' is not a component the knowledge base knows; use one of: "
                    f"{', '.join(sorted(known.values()))}.")
            if reading_span(version) is None:
                raise serializers.ValidationError(
                    f"'{version}' (for {name}) is not a version or a version range, e.g. 1.1.1, 1.29 or >=1.0 <1.2.")
            checked[name] = version.strip()
        return checked


class EvidenceOut(serializers.Serializer):
    line = serializers.IntegerField(help_text="1-based line number in the paste")
    text = serializers.CharField(help_text="The line as pasted (cleaned of colour codes)")
    symptom = serializers.CharField(help_text="Id of the symptom it matched")
    span = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2,
                                 help_text="[start, end) character offsets of the matched part of `text`")
    how = serializers.CharField(help_text="phrase, pattern, fields (structured conditions) or fuzzy")


class MatchCauseOut(serializers.Serializer):
    number = serializers.IntegerField()
    title = serializers.CharField()
    body = serializers.CharField()


class MatchFixOut(serializers.Serializer):
    title = serializers.CharField()
    body = serializers.CharField(help_text="Markdown; placeholders filled with values captured from the paste")
    verify = serializers.CharField()
    filled = serializers.ListField(child=serializers.CharField(), help_text="Names of the values filled in")


class VersionCheckOut(serializers.Serializer):
    component = serializers.CharField()
    version = serializers.CharField(help_text="The version you run (read from the text or given)")
    status = serializers.ChoiceField(choices=["affected", "fixed", "unaffected", "unknown"])
    affected = serializers.CharField(help_text="The article's affected range, as written")
    fixed_in = serializers.CharField()
    note = serializers.CharField()


class MatchOut(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    language = serializers.CharField()
    url = serializers.CharField()
    score = serializers.FloatField(help_text="0..1")
    confidence = serializers.ChoiceField(choices=["high", "medium", "low"])
    cause = MatchCauseOut(allow_null=True)
    fix = MatchFixOut(allow_null=True)
    evidence = EvidenceOut(many=True)
    captures = serializers.DictField(child=serializers.CharField())
    why = serializers.ListField(child=serializers.CharField(), help_text=(
        "Why it was suggested, in words: the evidence line, the words its text shares with the paste, and a "
        "note when it is written for another component than the one the paste is from"))
    version_check = VersionCheckOut(many=True, help_text="The article's version ranges against your versions")


class MatchStatsOut(serializers.Serializer):
    lines = serializers.IntegerField()
    templates = serializers.IntegerField()
    ms = serializers.FloatField()


class MatchResponse(serializers.Serializer):
    matches = MatchOut(many=True)
    best = MatchOut(allow_null=True, help_text="The top match when its confidence is at least medium, else null")
    read = serializers.ListField(child=serializers.CharField(), help_text=(
        "What the matcher read from the paste's structured fields, in words (e.g. \"AWS denied `iam:PassRole` to "
        "role `x`, from Karpenter\")"))
    components = serializers.ListField(child=serializers.CharField(),
                                       help_text="Components the paste is about, most mentioned first")
    versions = serializers.DictField(child=serializers.CharField(),
                                     help_text="The versions read from the text or given: {component: version}")
    stats = MatchStatsOut()


class AnalysisTextInput(serializers.Serializer):
    text = serializers.CharField(trim_whitespace=False, help_text="kubectl output to analyse")


class AnalysisCreated(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.CharField()
    url = serializers.CharField(help_text="The report page; poll the API at /api/v1/analyses/<id>/")


class FindingOut(serializers.Serializer):
    kind = serializers.CharField()
    namespace = serializers.CharField()
    name = serializers.CharField(allow_blank=True,
                                 help_text="Empty when the upload does not show the object (the detail says so)")
    problem = serializers.CharField(help_text="Short stable code, e.g. FailedScheduling.UntoleratedTaint")
    detail = serializers.CharField()
    evidence = serializers.ListField(child=serializers.CharField())
    severity = serializers.ChoiceField(choices=["critical", "warning", "info"])
    members = serializers.ListField(child=serializers.CharField(),
                                    help_text="For a finding about several pods of one owner: their names")
    inferred = serializers.ListField(child=serializers.CharField(),
                                     help_text="Members whose explanation comes from a sibling's event")
    articles = serializers.ListField(child=serializers.DictField(),
                                     help_text="Linked articles, best first, each with its version_check")


class AnalysisOut(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=Analysis.Status.choices)
    progress = serializers.FloatField(help_text="0..1")
    progress_message = serializers.CharField()
    findings = FindingOut(many=True)
    matches = serializers.ListField(child=serializers.DictField(),
                                    help_text="Articles ranked across all findings (match API shape)")
    versions = serializers.DictField(child=serializers.CharField(),
                                     help_text="The versions read from the upload: {component: version}")
    summary = serializers.DictField()
    error = serializers.CharField(allow_null=True)
    sources = serializers.ListField(child=serializers.DictField())
    redactions = serializers.ListField(child=serializers.DictField(),
                                       help_text="What was redacted before storing: kind, line, preview")
    created = serializers.CharField()
    finished = serializers.CharField(allow_null=True)
    url = serializers.CharField()


class ArticleWriteSerializer(serializers.Serializer):
    """Documentation of the write body; validation is the article file format's own."""

    slug = serializers.SlugField()
    title = serializers.CharField(max_length=200)
    language = serializers.ChoiceField(choices=Article.Language.choices)
    summary = serializers.CharField(required=False)
    status = serializers.ChoiceField(choices=Article.Status.choices, required=False)
    components = serializers.ListField(child=serializers.CharField(), required=False)
    environment = serializers.CharField(required=False)
    problem = serializers.CharField(required=False, help_text="Markdown")
    best_practices = serializers.CharField(required=False, help_text="Markdown")
    symptoms = SymptomOut(many=True)
    causes = CauseOut(many=True, required=False)
    fixes = FixOut(many=True, required=False)
    versions = VersionOut(many=True, required=False)
    references = ReferenceOut(many=True, required=False)


class RevisionOut(serializers.Serializer):
    number = serializers.IntegerField()
    created = serializers.DateTimeField()
    author = serializers.CharField(source="author.get_username", default=None)
    source = serializers.CharField(help_text="admin, api, import or restore")
    message = serializers.CharField()
    content = serializers.JSONField(help_text="The full article as saved")


class FeedbackInput(serializers.Serializer):
    article = serializers.SlugField(help_text="Slug of the article the vote is about")
    helpful = serializers.BooleanField(help_text="Did this article fix it?")
    query = serializers.CharField(required=False, allow_blank=True, max_length=20000,
                                  help_text="Optional: the pasted text or a match id")
    language = serializers.ChoiceField(choices=Article.Language.choices, required=False, default="en")
    symptoms = serializers.ListField(child=serializers.CharField(max_length=120), required=False, max_length=20,
                                     help_text="Optional: the symptom ids that matched (from the match evidence)")


class FeedbackOut(serializers.Serializer):
    article = serializers.CharField()
    helpful = serializers.BooleanField()
    counts = serializers.DictField(child=serializers.IntegerField())
