"""The one place Markdown becomes HTML: rendered with Python-Markdown, code
highlighted by Pygments, and the result sanitised by nh3 so no script, event
handler, iframe or ``javascript:`` URL from any article field reaches a page.
"""

from __future__ import annotations

import functools
import re

import markdown
import nh3
from django.utils.safestring import SafeString as Markup

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "kbd", "li", "mark", "ol", "p", "pre", "s", "span", "strong", "sub",
    "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "span": {"class"},
    "div": {"class"},
    "code": {"class"},
    "pre": {"class"},
    "mark": {"class", "title"},
    "b": {"class"},
    "th": {"align"},
    "td": {"align"},
    "abbr": {"title"},
}
URL_SCHEMES = {"http", "https", "mailto"}
_CLASS_RE = re.compile(r"^[A-Za-z0-9_ -]{0,200}$")


def _keep_safe_classes(element: str, attribute: str, value: str) -> str | None:
    if attribute == "class":
        return value if _CLASS_RE.match(value) else None
    return value


def sanitize(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        attribute_filter=_keep_safe_classes,
        strip_comments=True,
    )


def _md() -> markdown.Markdown:
    return markdown.Markdown(
        extensions=["fenced_code", "codehilite", "tables", "sane_lists"],
        extension_configs={"codehilite": {"guess_lang": False, "css_class": "highlight"}},
        output_format="html",
    )


@functools.lru_cache(maxsize=4096)
def _render_cached(text: str) -> str:
    return sanitize(_md().convert(text))


def render_markdown(text: str | None) -> Markup:
    """Markdown → safe HTML (cached by content)."""
    if not text:
        return Markup("")
    return Markup(_render_cached(text))


def render_inline(text: str | None) -> Markup:
    """Sanitise an HTML fragment produced elsewhere (e.g. search snippets)."""
    return Markup(sanitize(text or ""))


# Values filled into a fix from the user's paste are wrapped in these private-use
# characters before rendering and turned into <mark class="filled"> afterwards,
# so they stay visible inside highlighted code blocks too.
FILL_START, FILL_END = "\ue000", "\ue001"
_PRIVATE_USE = re.compile("[\ue000\ue001]")


def mark_fill_value(value: str) -> str:
    return f"{FILL_START}{_PRIVATE_USE.sub('', value)}{FILL_END}"


def render_filled_markdown(text: str) -> Markup:
    html = sanitize(_md().convert(text))
    html = html.replace(FILL_START, '<mark class="filled" title="filled in from your paste">')
    html = html.replace(FILL_END, "</mark>")
    return Markup(sanitize(html))
