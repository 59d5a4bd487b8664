"""Undo what issue trackers, chat and wikis do to a pasted terminal session.

People paste kubectl output through Markdown: code fences, ``<pre>`` tags,
``> `` quote prefixes, ``**bold**`` around the line they want to show,
``&nbsp;`` instead of spaces, backticks around ``<none>``. Left in place, these
hide a table's header or a describe block's first key. Every line is kept (a
fence becomes an empty line), so line numbers still point into the upload.
Each rule is one regular expression over the whole text, so a 10 MB upload
that needs none of them costs a few scans.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[\w+-]*[ \t]*$", re.M)
_PRE = re.compile(r"</?(?:pre|code)>", re.I)
_ENTITIES = {"&nbsp;": " ", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&amp;": "&"}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))
_BOLD_LINE = re.compile(r"^([ \t]*)\*\*([^\n]+?)\*\*([ \t]*)$", re.M)
_INLINE_CODE = re.compile(r"`([^`\s\n][^`\n]*)`")
# Runs of at least two Markdown quote lines. A single line starting with ">" may be a
# PowerShell or cmd prompt, so it is left alone; a run loses one level (``> > kubectl``
# keeps one ``>``, which the splitter reads as a prompt).
_QUOTE_RUN = re.compile(r"(?:^ {0,3}>[^\n]*(?:\n|$)){2,}", re.M)
_QUOTE = re.compile(r"^ {0,3}> ?", re.M)


def clean_paste(text: str) -> str:
    """``text`` without Markdown/HTML wrapping, line for line."""
    if "`" in text:
        if "```" in text:
            text = _FENCE.sub("", text)
        text = _INLINE_CODE.sub(r"\1", text)
    if "~~~" in text:
        text = _FENCE.sub("", text)
    if "pre>" in text or "code>" in text or "PRE>" in text:
        text = _PRE.sub("", text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: _ENTITIES[m.group()], text)
    if "**" in text:
        text = _BOLD_LINE.sub(r"\1\2\3", text)
    if _has_quote_line(text):
        text = _QUOTE_RUN.sub(lambda m: _QUOTE.sub("", m.group()), text)
    return text


def _has_quote_line(text: str) -> bool:
    # Markdown quotes start at column 0 (or one space in); plain "in" scans beat a regex here.
    return text.lstrip(" ")[:1] == ">" or "\n>" in text or "\n >" in text
