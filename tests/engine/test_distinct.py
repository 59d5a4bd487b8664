"""Translations of an article list the same machine messages: the matcher matches each once and answers
with the symptom key of the reader's language."""

from troubleshoot.engine.matcher import Matcher
from troubleshoot.engine.types import Signature, distinct

MSG = 'failed calling webhook "vingress.elbv2.k8s.aws": context deadline exceeded'


def _sig(lang: str, pos: int = 0, text: str = MSG, weight: float = 1.0) -> Signature:
    return Signature(key=f"alb-webhook:{lang}:{pos}", topic="alb-webhook", language=lang, text=text, weight=weight)


def test_translations_fold_into_one_signature_with_a_key_per_language():
    sigs, keys, langs = distinct([_sig("en"), _sig("zh-hans")])
    assert len(sigs) == 1
    assert keys == [{"en": "alb-webhook:en:0", "zh-hans": "alb-webhook:zh-hans:0"}]
    assert langs == {"alb-webhook": {"en", "zh-hans"}}


def test_a_symptom_that_differs_in_any_matching_field_stays_separate():
    sigs, keys, _ = distinct([_sig("en"), _sig("zh-hans", weight=0.5), _sig("zh-hans", 1, text=MSG + " (v2)")])
    assert len(sigs) == 3
    assert [k for d in keys for k in d.values()] == ["alb-webhook:en:0", "alb-webhook:zh-hans:0",
                                                     "alb-webhook:zh-hans:1"]


def test_the_answer_names_the_symptom_in_the_readers_language():
    m = Matcher([_sig("en"), _sig("zh-hans")])
    paste = f"Error from server (InternalError): error when creating ingress: Internal error occurred: {MSG}"
    en = m.match(paste, language="en").matches[0]
    zh = m.match(paste, language="zh-hans").matches[0]
    assert (en.language, zh.language) == ("en", "zh-hans")
    assert en.symptoms == ["alb-webhook:en:0"] and zh.symptoms == ["alb-webhook:zh-hans:0"]
    assert {e.symptom for e in zh.evidence} == {"alb-webhook:zh-hans:0"}
    assert len(m.signatures) == 1
