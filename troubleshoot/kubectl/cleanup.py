"""Undo what issue trackers, chat and wikis do to a pasted terminal session.

People paste kubectl output through Markdown: code fences, ``<pre>`` tags,
``> `` quote prefixes, ``**bold**`` around the line they want to show,
``&nbsp;`` instead of spaces. Left in place, these hide a table's header or
a describe block's first key. Every line is kept (a fence becomes an empty
line), so line numbers still point into the upload.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+-]*\s*$")
_PRE = re.compile(r"</?(?:pre|code)>", re.I)
_ENTITIES = {"&nbsp;": " ", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&amp;": "&"}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))
_BOLD_LINE = re.compile(r"^(\s*)\*\*(.+?)\*\*(\s*)$")
_QUOTE = re.compile(r"^ {0,3}> ?")
_CHEAP_TRIGGERS = ("```", "~~~", "<", "&", "**", ">")


def clean_paste(text: str) -> str:
    """``text`` without Markdown/HTML wrapping, line for line."""
    if not any(t in text for t in _CHEAP_TRIGGERS):
        return text
    lines = text.split("\n")
    quoted = _quoted_blocks(lines)
    out = []
    for i, line in enumerate(lines):
        if i in quoted:
            line = _QUOTE.sub("", line, count=1)
        if "`" in line or "~" in line:
            if _FENCE.match(line):
                out.append("")
                continue
            line = _strip_inline_code(line)
        if "<" in line:
            line = _PRE.sub("", line)
        if "&" in line:
            line = _ENTITY.sub(lambda m: _ENTITIES[m.group()], line)
        if "**" in line:
            m = _BOLD_LINE.match(line)
            if m:
                line = m.group(1) + m.group(2) + m.group(3)
        out.append(line)
    return "\n".join(out)


def _strip_inline_code(line: str) -> str:
    # `<none>` in a table cell: keep the value, drop the backticks.
    return re.sub(r"`([^`\s][^`]*)`", r"\1", line) if line.count("`") >= 2 else line


def _quoted_blocks(lines: list[str]) -> set[int]:
    """Indexes of lines in runs of at least two Markdown quote lines.

    A single line starting with ``>`` may be a PowerShell or cmd prompt, so
    only runs are unquoted; a run is unquoted once (``> > kubectl`` keeps one
    ``>``, which the splitter reads as a prompt).
    """
    found: set[int] = set()
    run: list[int] = []
    for i, line in enumerate(lines + [""]):
        if _QUOTE.match(line):
            run.append(i)
            continue
        if len(run) >= 2:
            found.update(run)
        run = []
    return found
