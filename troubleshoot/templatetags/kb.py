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
