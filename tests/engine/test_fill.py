from __future__ import annotations

from troubleshoot.engine.fill import FILL_END, FILL_START, fill_placeholders, placeholders, render_defaults

BODY = (
    "Remove the taint:\n\n```sh\nkubectl taint nodes {{ node | <node-name> }} {{key}}:{{ effect|NoSchedule }}-\n```\n"
    "Value was `{{value}}`; again {{key}}."
)


def test_fill_with_captures_defaults_and_names() -> None:
    out, filled = fill_placeholders(BODY, {"key": "karpenter.sh/controller", "value": "true", "unused": "x"})
    assert "kubectl taint nodes <node-name> karpenter.sh/controller:NoSchedule-" in out
    assert "Value was `true`; again karpenter.sh/controller." in out
    assert filled == ["key", "value"]


def test_missing_without_default_becomes_angle_name_and_empty_capture_uses_default() -> None:
    out, filled = fill_placeholders("a {{x}} b {{ y | dflt }}", {"y": "  "})
    assert out == "a <x> b dflt" and filled == []


def test_mark_wraps_only_filled_values_and_values_are_sanitised() -> None:
    out, filled = fill_placeholders("{{key}} / {{effect|NoSchedule}}", {"key": "a\nb\x07c"}, mark=True)
    assert out == f"{FILL_START}a b c{FILL_END} / NoSchedule"
    assert filled == ["key"]


def test_render_defaults_and_listing() -> None:
    assert render_defaults(BODY).startswith("Remove the taint:")
    assert "kubectl taint nodes <node-name> <key>:NoSchedule-" in render_defaults(BODY)
    assert placeholders(BODY) == ["node", "key", "effect", "value"]
    assert render_defaults("no placeholders {single} {{ }}") == "no placeholders {single} {{ }}"
