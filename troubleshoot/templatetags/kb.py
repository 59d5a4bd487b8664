from __future__ import annotations

from django import template
from django.utils.safestring import SafeString as Markup

from troubleshoot.rendering import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> Markup:
    return render_markdown(text)


@register.filter(name="fixbody")
def fixbody(text: str) -> Markup:
    """A fix body with its placeholders shown as their defaults (no paste to fill them from)."""
    from troubleshoot.engine.fill import render_defaults

    return render_markdown(render_defaults(text or ""))


@register.filter(name="version_note")
def version_note(row: dict) -> str:
    """One ``version_check`` row as a sentence: "You run Karpenter 1.1.1: affected, fixed in 1.1.2."."""
    from django.utils.translation import gettext as _

    values = {"component": row.get("component", ""), "version": row.get("version", ""),
              "affected": row.get("affected", ""), "fixed": row.get("fixed_in", "")}
    state = row.get("status")
    if state == "fixed":
        return _("You run %(component)s %(version)s: fixed in %(fixed)s.") % values
    if state == "affected":
        if values["fixed"]:
            return _("You run %(component)s %(version)s: affected, fixed in %(fixed)s.") % values
        return _("You run %(component)s %(version)s: affected (%(affected)s).") % values
    if state == "unaffected":
        return _("You run %(component)s %(version)s: not affected (%(affected)s).") % values
    return _("You run %(component)s %(version)s: cannot tell from the range (%(affected)s).") % values
