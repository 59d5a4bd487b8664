"""Fill ``{{name}}`` / ``{{name|default}}`` placeholders in article fix bodies.

Article bodies may contain placeholders such as ``kubectl taint nodes
{{ node | <node-name> }} {{key}}-``.  After a match, the captures of the
signature patterns (``{"key": "karpenter.sh/controller", ...}``) are put
in; otherwise the default is used, else ``<name>``.

Marking filled values: with ``mark=True`` every value that came from the
captures is wrapped as ``\\x00F<value>\\x00`` (``FILL_START`` + value +
``FILL_END``), so the caller can highlight it after rendering Markdown and
escaping HTML (the sentinels survive both; replace them last).  Defaults
are never marked.  Values are inserted as plain text: the caller escapes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["fill_placeholders", "render_defaults", "placeholders", "FILL_START", "FILL_END", "PLACEHOLDER"]

FILL_START = "\x00F"
FILL_END = "\x00"
MAX_VALUE = 256
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w.-]*)\s*(?:\|\s*((?:(?!\}\}).)*?)\s*)?\}\}")
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\r\n]+")


def _clean(value: str) -> str:
    return _UNSAFE.sub(" ", str(value)).strip()[:MAX_VALUE]


def fill_placeholders(markdown: str, captures: Mapping[str, str], *, mark: bool = False) -> tuple[str, list[str]]:
    """Replace placeholders; return (text, names filled from ``captures``).

    A capture that is missing or empty falls back to the default, else to
    ``<name>``.  Names are matched exactly (case-sensitive); each filled
    name is listed once, in order of first appearance.
    """
    filled: list[str] = []

    def repl(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        value = captures.get(name)
        if value is not None and _clean(value):
            if name not in filled:
                filled.append(name)
            v = _clean(value)
            return f"{FILL_START}{v}{FILL_END}" if mark else v
        if default is not None and default != "":
            return default
        return f"<{name}>"

    return PLACEHOLDER.sub(repl, markdown), filled


def render_defaults(markdown: str) -> str:
    """The article as shown without a match: defaults, else ``<name>``."""
    return fill_placeholders(markdown, {})[0]


def placeholders(markdown: str) -> list[str]:
    """Names of the placeholders used in ``markdown`` (for editors / lint)."""
    seen: list[str] = []
    for m in PLACEHOLDER.finditer(markdown):
        if m.group(1) not in seen:
            seen.append(m.group(1))
    return seen
