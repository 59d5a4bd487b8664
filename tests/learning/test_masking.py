"""troubleshoot.learning.masking without Django: a paste's error lines become masked templates that group
the same failure, carry no secret, and turn back into a symptom whose pattern matches every variant.

Credentials are fabricated and assembled at run time so that secret scanners do not flag this file."""

from __future__ import annotations

import regex

from troubleshoot.engine.condense import ERROR, WARNING
from troubleshoot.engine.patterns import validate_pattern
from troubleshoot.learning.masking import (
    MAX_TEMPLATES,
    fingerprint,
    paste_templates,
    pattern_of,
    readable,
    sample_text,
    symptom_for,
    template_of,
)

AWS_KEY = "AKIA" + "Z7Q4" + "MX2P" + "LW9R" + "B3TD"
BEARER = "eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiJrYi10ZXN0In0" + "." + "c2lnbmF0dXJlLXN0dWZm"
PASSWORD = "Tr0ub4dor" + "-and-3"

EVENT = ("{ts}  Warning  FailedFrobnicate  pod/{pod}  frobnicator at {ip}:8443 refused the widget lease {n} "
         "after {dur} on {node}")
VARIANTS = [
    dict(ts="2024-05-01T10:00:00Z", pod="api-7d9f8b6c4-x2x7q", ip="10.0.3.17", n="3", dur="12s",
         node="ip-10-0-1-23.ec2.internal"),
    dict(ts="2025-11-30T23:59:59Z", pod="api-5c8d7f6b9-k4m2p", ip="192.168.7.4", n="17", dur="3m2s",
         node="ip-192-168-7-4.us-west-2.compute.internal"),
    dict(ts="2023-01-02T03:04:05Z", pod="worker-6f7c9d8b5-zq4wx", ip="172.16.0.9", n="250", dur="900ms",
         node="i-0abc1234def567890.eu-west-1.compute.internal"),
]


def only(text: str):
    found = paste_templates(text)
    assert len(found) == 1, found
    return found[0]


def test_the_same_error_with_other_pods_addresses_numbers_and_times_is_one_template():
    learned = [only(EVENT.format(**v)) for v in VARIANTS]
    assert len({item.fingerprint for item in learned}) == 1
    template = learned[0].template
    assert template == ("<ts> warning failedfrobnicate pod/<pod> frobnicator at <ip> refused the widget lease "
                        "<num> after <dur> on <node>")
    assert learned[0].fingerprint == fingerprint(template)


def test_quoted_object_names_ordinal_names_and_regions_group_too():
    a = only('Error from server (NotFound): configmaps "app-config" not found in us-east-1 for web-0')
    b = only('Error from server (NotFound): configmaps "db-config-2" not found in eu-west-3 for db-12')
    assert a.fingerprint == b.fingerprint
    assert a.template == 'error from server (notfound): configmaps "<name>" not found in <name> for <name>'
    # the examples keep those names (they are not secrets) and the case of the line
    assert a.example == 'Error from server (NotFound): configmaps "app-config" not found in us-east-1 for web-0'


def test_names_with_generated_suffixes_that_are_not_pod_hashes_group_too():
    a = only("error: replicaset api-7d9f8b6c4 failed to create pod api-7d9f8b6c4-x2x71 on the widget node")
    b = only("error: replicaset web-5f6e7d8c9 failed to create pod web-5f6e7d8c9-k4m23 on the widget node")
    assert a.fingerprint == b.fingerprint
    assert a.template == "error: replicaset <pod> failed to create pod <pod> on the widget node"


def test_different_failures_stay_apart():
    a = only("failed to reconcile gizmo web: lease refused by frobnicator")
    b = only("failed to reconcile gizmo web: lease expired at frobnicator")
    assert a.fingerprint != b.fingerprint


def test_secrets_are_redacted_before_anything_is_masked():
    paste = (f"E0501 10:00:00.123456 1 widget.go:42] failed to sync widget for 10.0.0.8: "
             f"AWS_ACCESS_KEY_ID={AWS_KEY} Authorization: Bearer {BEARER} password={PASSWORD}\n")
    item = only(paste)
    for secret in (AWS_KEY, BEARER, PASSWORD, AWS_KEY.lower(), BEARER.lower(), PASSWORD.lower()):
        assert secret not in item.template and secret not in item.example
    assert "[redacted:aws-access-key-id]" in item.template
    symptom = symptom_for(template=item.template, example=item.example)
    assert AWS_KEY not in symptom.text and PASSWORD not in symptom.pattern
    # the pattern keeps the error, not the words around a secret: it matches with or without them
    assert regex.search(symptom.pattern, paste.replace(AWS_KEY, "AKIA" + "X" * 16), regex.I)
    assert regex.search(symptom.pattern, "failed to sync widget for 10.1.2.3: (no credentials)", regex.I)
    assert "password" not in symptom.pattern.lower() and "bearer" not in symptom.pattern.lower()


def test_long_base64_blobs_are_masked_even_without_a_known_secret_shape():
    blob = "dGhpcyBpcyBub3QgYSBzZWNyZXQ" + "0123456789" + "YWJj"
    item = only(f"error: unexpected token {blob} in the webhook answer")
    assert blob.lower() not in item.template and "<blob>" in item.template


def test_the_worst_lines_come_first_and_at_most_three_per_paste():
    paste = "\n".join([
        "I0501 10:00:00.000000 1 main.go:1] starting widget controller version 1.2.3",
        "W0501 10:00:01.000000 1 main.go:2] widget cache is cold, retrying lease in 5s",
        *[f"E0501 10:00:0{i}.000000 1 main.go:3] failed to sync widget kind{i} for lease holder" for i in range(5)],
    ])
    found = paste_templates(paste)
    assert len(found) == MAX_TEMPLATES
    assert [item.severity for item in found] == [ERROR, ERROR, ERROR]
    assert all("starting widget" not in item.template for item in found)
    warning_only = paste_templates(paste.split("\n")[1])
    assert [item.severity for item in warning_only] == [WARNING]


def test_a_paste_without_errors_gives_one_plain_line_and_never_a_table():
    table = ("NAME                    READY   STATUS    RESTARTS   AGE\n"
             "api-7d9f8b6c4-x2x7q     1/1     Running   0          5m\n")
    assert paste_templates(table) == []
    plain = paste_templates("the gizmo reconciler keeps rebuilding the lease\nand another plain remark here")
    assert len(plain) == 1
    assert paste_templates("") == [] and paste_templates("ok") == []


def test_a_huge_paste_is_read_only_up_to_its_first_hundred_thousand_characters():
    line = "failed to sync widget gizmo for lease holder number 1\n"
    found = paste_templates(line * 50_000 + "error: the very last line is a different gizmo failure\n")
    assert [item.template for item in found] == [template_of(line)]


def test_the_pattern_matches_every_variant_and_not_other_failures():
    item = only(EVENT.format(**VARIANTS[0]))
    symptom = symptom_for(template=item.template, example=item.example)
    assert validate_pattern(symptom.pattern) is None
    for variant in VARIANTS:
        assert regex.search(symptom.pattern, EVENT.format(**variant), regex.I), variant
    assert regex.search(symptom.pattern, " ".join(EVENT.format(**VARIANTS[1]).split()).upper(), regex.I)
    assert not regex.search(symptom.pattern, EVENT.format(**VARIANTS[0]).replace("refused", "granted"), regex.I)
    assert "(?P<pod>" in symptom.pattern and "(?P<ip>" in symptom.pattern


def test_the_symptom_text_is_a_readable_instance_of_its_template():
    item = only(EVENT.format(**VARIANTS[2]))
    symptom = symptom_for(template=item.template, example=item.example)
    assert "<" not in symptom.text and "FailedFrobnicate" in symptom.text
    assert template_of(symptom.text) == item.template
    assert regex.search(symptom.pattern, symptom.text, regex.I)  # the editorial lint's rule


def test_a_line_without_masks_still_gets_a_valid_pattern():
    item = only("could not reconcile the gizmo controller lease")
    pattern = symptom_for(template=item.template, example=item.example).pattern
    assert pattern.startswith("(?P<line>") and validate_pattern(pattern) is None


def test_masks_are_idempotent_and_examples_mask_back_to_their_template():
    for variant in VARIANTS:
        item = only(EVENT.format(**variant))
        assert template_of(item.example) == item.template
        assert template_of(item.template) == item.template


def test_readable_keeps_the_case_of_what_is_not_masked():
    assert readable("Pod API-1 at 10.0.0.1", "pod api-1 at <ip>") == "Pod API-1 at <ip>"
    assert readable("naïve 10.0.0.1", "naive <ip>") == "naive <ip>"  # unicode folding: the masked form


def test_sample_text_falls_back_to_the_example_when_it_would_not_mask_back():
    assert sample_text("exit code <num> from gizmo", "something else") == "exit code <num> from gizmo"


def test_patterns_never_hang_on_hostile_lines():
    item = only("failed " + "a" * 300 + " lease 10.0.0.1 " + "{" * 50 + " refused")
    pattern = pattern_of(readable(item.example, item.template))
    assert pattern == "" or validate_pattern(pattern) is None
