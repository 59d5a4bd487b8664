"""Turn whatever was pasted into clean logical lines.

``read(text_or_bytes)`` decodes (UTF-8 with replacement, UTF-16 with a
BOM), normalises line ends, strips ANSI escapes and shell prompts,
unwraps JSON log records (zap / logr / logrus / Karpenter) into their
message, error and nested causes, strips klog headers, joins Terraform's
box-drawn diagnostics into paragraphs and rejoins lines that a terminal or
chat client hard-wrapped.  Every :class:`Line` keeps the 1-based number of
the first physical line it came from, so evidence can point at it.

Rejoining here is deliberately conservative; the matcher additionally
scans windows of consecutive lines (see ``matcher``), so a phrase split
over a wrap is still found when the heuristics below do not fire.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any

from .types import Line
from .wraps import WRAP_WIDTHS, glue, rejoin_records, soft_break, terminal_width

__all__ = ["read", "decode", "clean", "is_record_start", "is_table_row", "WRAP_WIDTHS"]


_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS / SOS / PM / APC
    r"|\x1b[@-Z\\-_]"  # other two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
_MD_LINK = re.compile(r"\[(https?://[^\]\s]{1,2000})\]\(https?://[^)\s]{1,2000}\)")
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PROMPT = re.compile(
    r"^\s*(?:"
    r"PS [A-Za-z]:[^>]*> "  # PowerShell
    r"|\([\w.-]+\) ?(?=[\w.-]+@)"  # (venv) before user@host
    r"|[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s?[$#%] "  # user@host:~$
    r"|\[[\w.-]+@[\w.-]+[^\]]*\][$#] "  # [user@host dir]$
    r"|(?:\$|#|%|>>>|\.\.\.|>) (?=\S)"  # bare prompts
    r")+"
)
_KLOG = re.compile(r"^[IWEF]\d{4} \d{1,2}:\d{2}:\d{2}\.\d+\s+\d+ (?P<file>[\w./-]+):\d+\] ?")
# What printed a line, when the paste keeps the wrapper: a journal/syslog line ("Nov 12 10:00:01 host
# kubelet[2345]: ..." or journalctl -o short-iso), `kubectl logs --prefix` ("[pod/x/container] ...") and
# stern ("pod-abc12 container {...}"). The wrapper is cut off and its unit / container kept as the source.
_JOURNAL = re.compile(
    r"^(?:[A-Z][a-z]{2} [ \d]?\d \d{2}:\d{2}:\d{2}(?:\.\d+)?"
    r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)"
    r" (?P<host>[\w.-]+) (?P<unit>[A-Za-z][\w@.-]*)(?:\[\d+\])?: "
)
# ... and its bare syslog tag, when the reporter cut the date and host ("kubelet[4744]: I0421 ...")
_TAG = r"(?P<unit>[A-Za-z][\w@.-]*)\[\d+\]: "
_SYSLOG_TAG = re.compile("^" + _TAG + r"(?=\S)")
_KUBECTL_PREFIX = re.compile(r"^\[pod/(?P<pod>[^/\]\s]+)/(?P<container>[^\]\s]+)\] ")
_STERN = re.compile(
    r"^(?P<pod>[a-z0-9][a-z0-9.-]*-[a-z0-9]{5}) (?P<container>[a-z0-9][a-z0-9-]*) (?=\{|[IWEF]\d{4} |\d{4}-)"
)
_POD_BASE = re.compile(r"(?:-[a-z0-9]{6,10})?-[a-z0-9]{5}$")
_SOURCE_KEYS = ("logger", "caller", "controller", "controllerGroup", "controllerKind", "component",
                "container", "container_name", "app", "source", "name")
_PRETTY_JSON_FIELD = re.compile(
    r'^\s*"(message|msg|error|err|reason|errorVerbose|note)"\s*:\s*("(?:[^"\\]|\\.)*")\s*,?\s*$'
)
_RECORD_START = re.compile(
    r"^\s*(?:\d{4}[-/]\d{2}[-/]\d{2}[T ]|\d{2}:\d{2}:\d{2}\b|[IWEF]\d{4} |\{|\[\d|(?:Warning|Normal)\s{2,}\S"
    r"|level=|time=|ts=|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d"
    r"|(?:ERROR|WARN|WARNING|INFO|DEBUG|FATAL|TRACE)\b|Error:|Events:|Name:|Type\s{2,}Reason"
    r"|[A-Z][\w ]{0,30}:\s|-{3,}|={3,}|\$ |# |" + _TAG.replace("?P<unit>", "?:") + ")"
)
_BOX_CHARS = "\u2502\u2575\u2577"  # │ ╵ ╷

_MSG_KEYS = ("message", "msg", "Message", "MESSAGE", "log")
_ERR_KEYS = ("error", "err", "Error", "errorMessage", "reason", "cause", "stacktraceMessage")
_CAUSE_KEYS = ("errorCauses", "causes", "errors", "error_causes")


def decode(data: str | bytes | bytearray) -> str:
    """Bytes to text: UTF-16 when a BOM says so, else UTF-8 with replacement."""
    if isinstance(data, str):
        return data[1:] if data.startswith("\ufeff") else data
    raw = bytes(data)
    if raw.startswith(codecs.BOM_UTF8):
        return raw[3:].decode("utf-8", errors="replace")
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16", errors="replace")
    return raw.decode("utf-8", errors="replace")


# quotes a web page, a chat client or a word processor curled: messages print straight ones
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                         "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'"})


def clean(physical: str) -> str:
    """Strip escapes, control characters and a leading shell prompt; straighten curled quotes."""
    s = physical.translate(_QUOTES)
    if "\x1b" in s or "\x9b" in s:
        s = _ANSI.sub("", s)
    s = _CTRL.sub("", s.replace("\t", "    "))
    if s[:1] in "$#%>.P([" or "@" in s[:64]:
        s = _PROMPT.sub("", s, count=1)
    if "](http" in s:  # copied from rendered Markdown: "[https://x](https://x)" back to the bare address
        s = _MD_LINK.sub(r"\1", s)
    if s[:1] == "`" and s[:3] != "```":  # the opening quote of Markdown inline code around a pasted log line
        s = s[1:]
    return s.rstrip()


_FIELD = re.compile(r"^\s{2,}[A-Z][\w ]{0,30}:(?:\s|$)")


def is_indented_field(text: str) -> bool:
    """An indented ``Key:   value`` line of ``kubectl describe`` (e.g. ``  Reason:  OOMKilled``)."""
    return bool(_FIELD.match(text))


def is_record_start(text: str) -> bool:
    """Does this line look like the start of a new log record / table row?"""
    return bool(_RECORD_START.match(text))


# --------------------------------------------------------------------- JSON


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    """Message-like strings inside a (nested) cause structure."""
    if depth > 4:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in _MSG_KEYS + _ERR_KEYS:
            if key in value:
                yield from _strings(value[key], depth + 1)
        for key in _CAUSE_KEYS:
            if key in value:
                yield from _strings(value[key], depth + 1)
    elif isinstance(value, list):
        for item in value[:50]:
            yield from _strings(item, depth + 1)


def _record_source(obj: dict[str, Any]) -> str:
    """The logger / caller / controller names of a JSON record, as one short string."""
    out = []
    for key in _SOURCE_KEYS:
        value = obj.get(key)
        if isinstance(value, str) and 0 < len(value) <= 80:
            # a controller-runtime reconciler's name is kept as controller=<name>: alone it says little
            out.append(value.rsplit(":", 1)[0] if key == "caller" else f"controller={value}" if key == "controller"
                       else value)
    kube = obj.get("kubernetes")
    if isinstance(kube, dict):  # fluent-bit / CloudWatch Container Insights records
        for key in ("container_name", "pod_name"):
            value = kube.get(key)
            if isinstance(value, str) and len(value) <= 80:
                out.append(_POD_BASE.sub("", value))
    return " ".join(out)


def unwrap_json(text: str) -> list[str] | None:
    """Message / error / causes of a one-line JSON log record, else None."""
    found = _unwrap_record(text)
    return found[0] if found else None


def _unwrap_record(text: str) -> tuple[list[str], str] | None:
    """(message parts, source) of a one-line JSON log record, else None."""
    start = text.find("{")
    if start < 0 or not text.endswith("}") or start > 200:
        return None
    try:
        obj = json.loads(text[start:])
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    parts: list[str] = []
    for s in _strings(obj):
        for piece in s.replace("\r\n", "\n").split("\n"):
            piece = piece.strip()
            if piece and piece not in parts:
                parts.append(piece)
    if not parts:
        return None
    prefix = text[:start].strip()
    if prefix and not prefix.startswith("[") and len(prefix) < 40:
        parts[0] = f"{prefix} {parts[0]}"
    return parts, _record_source(obj)


# A log viewer's own time stamp in front of each line (Rancher's UI, Windows tools): "11/20/2017 10:43:30 PM",
# often glued to the message ("PMpanic: ..."), which hides the message's first word.
_VIEWER_TIME = re.compile(
    r"\d{1,2}/\d{1,2}/\d{4},? \d{1,2}:\d{2}:\d{2}(?: ?[AP]M)?(?=\S)"  # glued to the message
    r"|\d{1,2}/\d{1,2}/\d{4},? \d{1,2}:\d{2}:\d{2} [AP]M "  # or set off by a space after AM/PM
)


# `kubectl logs --timestamps` and the CRI log files (/var/log/containers: "... stderr F ") put an RFC 3339 time
# in front of what the container printed; cut only when a klog header or a JSON record follows, since a
# component's own leading time stamp is part of its line format.
_LOG_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}) (?:(?:stdout|stderr) [FP] )?"
    r"(?=[IWEF]\d{4} \d|\{)"
)


_ESCAPED_BREAK = re.compile(r"\\n\S.*\\n")


def unescape(text: str) -> list[str]:
    """Undo JSON / Go ``%q`` string escaping that survived in a pasted line.

    A message copied out of a JSON field, CloudWatch or a kubelet ``err="..."`` value keeps
    ``\\"`` (one level or several) and literal ``\\n``; the matcher must see the quotes and the
    line breaks the component printed. Lines without an escaped quote are left alone, so a
    Windows path's ``\\n`` is not taken for a line break (two literal ``\\n`` are needed then)."""
    if "\\" not in text or ('\\"' not in text and not _ESCAPED_BREAK.search(text)):
        return [text]
    for _ in range(4):
        if '\\"' not in text and "\\n" not in text and "\\t" not in text:
            break
        text = (text.replace("\\\\", "\x00").replace('\\"', '"').replace("\\n", "\n")
                .replace("\\t", " ").replace("\x00", "\\"))
    return [piece.rstrip() for piece in text.split("\n") if piece.strip()]


def unwrap_prefix(text: str) -> tuple[str, str]:
    """(text without a journal / kubectl-logs / stern wrapper, the source it named)."""
    sources = []
    for _ in range(2):
        if m := _JOURNAL.match(text) or _SYSLOG_TAG.match(text):
            sources.append(m.group("unit"))
        elif text[:5] == "[pod/" and (m := _KUBECTL_PREFIX.match(text)):
            sources.append(f"{m.group('container')} {_POD_BASE.sub('', m.group('pod'))}")
        elif m := _STERN.match(text):
            sources.append(f"{m.group('container')} {_POD_BASE.sub('', m.group('pod'))}")
        elif text[:1].isdigit() and (m := _VIEWER_TIME.match(text) or _LOG_TIME.match(text)):
            pass  # cut below; a viewer's or kubectl's time stamp names no source
        else:
            break
        text = text[m.end():]
    if len(text) > 2 and text[0] == '"' and text[-1] == '"' and ('\\"' in text or _KLOG.match(text[1:])):
        try:  # CloudWatch and friends show the whole message as one quoted JSON string
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, str):
            text = value.replace("\r\n", "\n").replace("\n", " ").strip()
    return text, " ".join(sources)


# ----------------------------------------------------------------- assembly


def _cut_klog(text: str, source: str) -> tuple[str, str]:
    """(text without a leading klog header, source with the klog file added); ``text`` itself when none."""
    body = text.lstrip()
    if body[:1] in "IWEF" and (m := _KLOG.match(body)):
        return body[m.end() :], f"{source} {m.group('file')}".strip()
    return text, source


def _expand(number: int, text: str, raw: str) -> Iterator[Line]:
    """Physical line -> logical line(s): JSON records and escaped strings may yield several."""
    text, source = unwrap_prefix(text)
    if "{" in text and text.endswith("}"):
        found = _unwrap_record(text)
        if found:
            parts, rec_source = found
            source = f"{source} {rec_source}".strip()
            for part in parts:
                for piece in unescape(part):  # a shipper keeps the klog header inside the record's "log"
                    body, piece_source = _cut_klog(piece, source)
                    yield Line(number, body, raw, piece_source)
            return
    cut, source = _cut_klog(text, source)
    if cut is not text:  # a klog line (never also a pretty-printed JSON field)
        text = cut
    elif '"' in text and (m := _PRETTY_JSON_FIELD.match(text)):
        try:
            value = json.loads(m.group(2))
        except ValueError:
            value = None
        if isinstance(value, str):
            for piece in value.split("\n"):
                if piece.strip():
                    yield Line(number, f"{m.group(1)}: {piece.strip()}", raw, source)
            return
    for piece in unescape(text):
        yield Line(number, piece, raw, source)


# A line laid out in columns (two gaps of 2+ spaces) is a table row, and a line of capitalised
# column names is a table header: neither is ever a wrapped continuation, nor continued
# (kubectl get output must keep one row per line).
_COLUMNS = re.compile(r"\S {2,}\S.*\S {2,}\S")
_HEADER = re.compile(r"^\s*[A-Z][A-Z0-9_()/.-]*(?: {2,}[A-Z][A-Z0-9_()/. -]*){2,}\s*$")


def is_table_row(row: str) -> bool:
    """A row laid out in columns (two gaps of 2+ spaces): ``kubectl get`` output, an events table."""
    return bool(_COLUMNS.search(row))


def _own_line(row: str) -> bool:
    """A blank row, a new record or a table row: never the continuation of the row before."""
    return not row.strip() or is_record_start(row) or is_table_row(row)


def _may_continue(row: str) -> bool:
    return not row[:1].isspace() and not _own_line(row)


def _continues(prev: Line, prev_row: str, nxt: str, *, hard: bool) -> bool:
    """Heuristic: is ``nxt`` the wrapped continuation of ``prev``? ``prev_row`` is the last physical
    row of ``prev`` (cleaned), ``hard`` says a terminal cut it (see :mod:`wraps`)."""
    if not prev.text or _own_line(nxt) or _HEADER.match(prev.raw):
        return False
    if hard:
        return True
    tail = prev.text.rstrip()
    # a filler broke the row before the next word; a prompt or comment line, and a prefixed next
    # row, are lines of their own
    if (soft_break(prev_row, nxt) and not _PROMPT.match(prev.raw.rsplit("\n", 1)[-1])
            and unwrap_prefix(nxt)[0] == nxt):
        return True
    if tail.endswith((".", "!", "?", ":", ";", "}", ")", "]")) and not nxt[:1].islower():
        return False
    if tail.endswith((",", "(", "{", "[", "=", "&", "|", "\\")):
        return True
    if prev.text.count('"') % 2 == 1 and len(tail) >= 40:
        return True
    stripped = nxt.lstrip()
    if is_record_start(prev.raw):  # a log record continues only through a cut
        return False
    return len(tail) >= 60 and tail[-1:] not in ".!?" and stripped[:1].islower()


def read(data: str | bytes | bytearray) -> list[Line]:
    """Decode and clean a paste into logical :class:`Line` objects."""
    text = decode(data)
    if not text:
        return []
    physical = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if physical and physical[-1] == "":
        physical.pop()
    rows = [clean(raw) for raw in physical]
    records = {first: (last, text) for first, last, text in rejoin_records(rows)}
    terminal = terminal_width(rows, _may_continue)
    out: list[Line] = []
    box: list[tuple[int, str, str]] = []  # current Terraform paragraph
    prev_row = ""  # the last physical row (cleaned) of out[-1]
    prev_joinable = False
    hard_run = 0  # width of the terminal that cut out[-1], when it was cut by one

    def flush_box() -> None:
        if box:
            out.append(Line(box[0][0], " ".join(t for _, t, _ in box), "\n".join(r for _, _, r in box)))
            box.clear()

    index = 0
    while index < len(rows):
        number, text, raw = index + 1, rows[index], physical[index]
        if index in records:  # a JSON record a terminal cut: one row again
            last, text = records[index]
            raw = "\n".join(physical[index : last + 1])
            index = last
        index += 1
        first = text.lstrip()[:1]
        if first and first in _BOX_CHARS:
            body = text.lstrip()[1:].strip()
            if not body or first != "\u2502":
                flush_box()
            else:
                box.append((number, body, raw))
            prev_joinable = False
            continue
        flush_box()
        # A terminal cut shows itself by its width recurring: the paste's terminal width, a row as
        # wide as the one before (one less: the copy dropped a trailing space), or an earlier cut of
        # this line. A lone row at a usual width is far more often filled text or a line of its own.
        width = len(prev_row)
        hard = width in WRAP_WIDTHS and (
            width in (terminal, terminal - 1) or hard_run == width or len(text) in (width, width - 1))
        if prev_joinable and out and out[-1].raw.count("\n") < 20 and _continues(out[-1], prev_row, text, hard=hard):
            last_line = out[-1]
            hard_run = width if hard else 0
            seam = glue(last_line.raw, raw, hard=hard)
            out[-1] = Line(last_line.number, last_line.text + seam + text.strip(), last_line.raw + "\n" + raw,
                           last_line.source)
            prev_row = text
            continue
        before = len(out)
        out.extend(_expand(number, text, raw))
        # only a line that stayed one line may be continued by the next (not a JSON record's parts)
        prev_joinable = len(out) == before + 1 and not out[-1].text.startswith("{") and (
            out[-1].text == text or text.endswith(out[-1].text))
        prev_row = text
        hard_run = 0
    flush_box()
    return out
