from __future__ import annotations

from typing import Any

from rest_framework import serializers

from troubleshoot.models import Article, Component


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
                 "cause": numbers.get(s.cause_id) if s.cause_id else None} for s in obj.symptoms.all()]

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
