"""Mask the variable parts of a log line so equal messages compare equal.

``normalize(line)`` lowercases, folds Unicode punctuation variants to
ASCII, collapses whitespace and replaces values that change from one
cluster (or one minute) to the next with placeholders:

=====================  =============================================
``<ts>``               RFC3339 / ISO / klog / syslog timestamps, clock times
``<dur>``              ages and durations (``3m24s``, ``39s``), ``(x239 over 19h)``
``<qty>``              resource quantities (``4336mi``, ``2gi``)
``<uuid>``             UUIDs
``<hex>``              long hex ids, short commit hashes, ``sha256:`` digests
``<ip>``               IPv4 (with port / CIDR) and IPv6 addresses
``<node>``             EC2 node names (``ip-10-0-1-2.ec2.internal`` ...)
``i-<id>`` ...         AWS resource ids, keeping the resource prefix
``<account>``          12-digit AWS account ids
``arn:aws:svc:...``    ARNs keep partition, service and resource type
``name-<hash>``        Deployment / DaemonSet / NodeClaim hash suffixes
``<id>``               request ids
``<ver>``              dotted versions with three or more parts
``<num>``              other free-standing numbers (node counts, ...)
=====================  =============================================

What carries meaning is kept: taint / label keys and values, reasons,
kinds, API groups, URL paths, AWS error codes and action names, and the
numbers that follow ``exit code`` / ``status code`` / ``status`` / ``http``
or precede an HTTP reason phrase (``403 forbidden``).

The function is idempotent: ``normalize(normalize(x)) == normalize(x)``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["normalize", "normalize_cached", "clear_cache", "PLACEHOLDER_RE"]

PLACEHOLDER_RE = re.compile(r"<[a-z]+>")

_LEFT = r"(?<![\w>])"  # placeholders count as word characters at boundaries,
_RIGHT = r"(?![\w<])"  # so masking a neighbour never changes what matches next time


def _rx(pattern: str) -> re.Pattern[str]:
    """Compile with every ``\\b`` turned into a placeholder-aware boundary."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("\\b", i):
            nxt = pattern[i + 2 : i + 3]
            out.append(_RIGHT if nxt in ("", ")", "|", "?") else _LEFT)
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return re.compile("".join(out))


_PUNCT = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u200b": "",
        "\u200c": "",
        "\u200d": "",
        "\ufeff": "",
        "\u3000": " ",
        "`": "'",
    }
)

_WS = re.compile(r"\s+")
_HAS_DIGIT = re.compile(r"\d").search

_ARN = _rx(
    r"\barn:(aws[a-z-]*):([a-z0-9-]+):([a-z0-9-]*|<region>):(\d{12}|<account>)?:"
    r"([^\s\"',;)}\]]+)"
)
_TS = [
    _rx(
        r"\b\d{4}-\d{2}-\d{2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
        r"(?:z\b|[+-]\d{2}:?\d{2}\b)?)?(?:\s?utc\b)?"
    ),
    _rx(r"\b[iwef]\d{4} \d{1,2}:\d{2}:\d{2}(?:\.\d+)?"),
    _rx(
        r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2},? "
        r"(?:\d{4} )?\d{1,2}:\d{2}:\d{2}(?:\.\d+)?"
    ),
    _rx(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:z\b)?"),
]
_SHA = _rx(r"\bsha(256|512|1):[0-9a-f]{32,}\b")
_UUID = _rx(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_NODE = _rx(
    r"\b(?:ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}|i-[0-9a-f]{8,17})"
    r"(?:\.[a-z0-9-]+)*?\.(?:compute\.internal|ec2\.internal|compute\.amazonaws\.com)\b"
    r"|\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}\b"
)
_AWS_ID = _rx(
    r"\b(i|ami|eni|subnet|sg|vol|lt|snap|vpc|igw|nat|rtb|acl|eipalloc|vpce|tgw|fleet|sir|"
    r"cr|lc|eni-attach|dopt|pcx)-(?=[0-9a-f]*\d)[0-9a-f]{8,17}\b"
)
_IPV4 = _rx(r"\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?(?::\d{1,5})?\b")
_IPV6 = _rx(
    r"\[?(?<![\w:.>])(?=[0-9a-f:]*\d)(?:"
    r"(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}"
    r"|(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?"
    r"|::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6})"
    r")(?![\w:<])(?:\]:\d{1,5}\b|\])?"
)
_POD_HASH = _rx(
    r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*?)-[bcdfghjklmnpqrstvwxz2456789]{6,10}"
    r"-[bcdfghjklmnpqrstvwxz2456789]{5}(?![a-z0-9<])"
)
_POD_SUFFIX = _rx(
    r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*?)-(?=[bcdfghjklmnpqrstvwxz]{0,4}[2456789])"
    r"[bcdfghjklmnpqrstvwxz2456789]{5}(?![a-z0-9.<])"
)
_HEX0X = _rx(r"\b0x[0-9a-f]+\b")
_HEX = _rx(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}\b")
_ACCOUNT = _rx(r"(?<![\w.>])\d{12}(?![\w<])")
_COUNT = _rx(r"\(x\d+ over [^)]*\)")
_DUR = _rx(r"(?<![\w.>])\d+(?:\.\d+)?(?:ns|us|\u00b5s|ms|s|m|h|d)(?:\d+(?:\.\d+)?(?:ns|us|\u00b5s|ms|s|m|h))*\b")
_QTY = _rx(r"(?<![\w.>])\d+(?:\.\d+)?(?:ki|mi|gi|ti|pi|k|g|t)\b")
_REQ_ID = _rx(r"\b(request[ _-]?id\s*[:=]?\s*)\"?(?!<)[\w-]{6,}\"?")
_VERSION = _rx(r"(?<![\w.>])v?\d+(?:\.\d+){2,}(?:-[a-z0-9.]+)*(?![\w.<])")
_NUM = _rx(r"(?<![a-z0-9_>])(?<![a-z]-)(?<!http/)[+-]?\d+(?:\.\d+)?(?![a-z0-9_<])")
_KEEP_BEFORE = re.compile(
    r"(?<![a-z])(?:exit code|exit status|exitcode|exit_code|status code|statuscode|status|code|"
    r"http|errno|signal|returned)[\s:=(\"']*$"
)
_HTTP_REASON = re.compile(
    r" (?:forbidden|unauthorized|not found|bad request|conflict|too many requests|"
    r"internal server error|bad gateway|service unavailable|gateway timeout|"
    r"precondition failed|unprocessable entity|request timeout|method not allowed)\b"
)


def _arn(m: re.Match[str]) -> str:
    part, service, region, account, resource = m.groups()
    for sep in ("/", ":"):
        if sep in resource:
            rtype = resource.split(sep, 1)[0]
            resource = f"{rtype}{sep}<name>"
            break
    else:
        resource = "<name>"
    return f"arn:{part}:{service}:{'<region>' if region else ''}:{'<account>' if account else ''}:{resource}"


def _num(m: re.Match[str]) -> str:
    s = m.string
    start = m.start()
    token = m.group(0)
    if token.isdigit() and len(token) == 3 and token[0] in "12345":
        if _HTTP_REASON.match(s, m.end()):
            return token
    if _KEEP_BEFORE.search(s[max(0, start - 20) : start]):
        return token
    return "<num>"


def _unicode(s: str) -> str:
    for _ in range(4):
        t = unicodedata.normalize("NFKC", s.translate(_PUNCT)).lower()
        if t == s:
            break
        s = t
    return s


def normalize(line: str) -> str:
    """Return the masked, lowercased, whitespace-collapsed form of ``line``."""
    s = line if line.isascii() else _unicode(line)
    s = s.replace("`", "'").lower()
    if "  " in s or "\t" in s or "\n" in s or "\r" in s or "\x0b" in s or "\x0c" in s or not s.isascii():
        s = _WS.sub(" ", s)
    s = s.strip()
    if not _HAS_DIGIT(s):
        return s
    # each mask runs only when the characters it needs are present (cheap tests)
    dash, colon, dot = "-" in s, ":" in s, "." in s
    if "arn:" in s:
        s = _ARN.sub(_arn, s)
    if dash:
        s = _TS[0].sub("<ts>", s)
    if colon:
        for rx in _TS[1:]:
            s = rx.sub("<ts>", s)
    if "sha" in s:
        s = _SHA.sub(r"sha\1:<hex>", s)
    if dash:
        s = _UUID.sub("<uuid>", s)
        s = _NODE.sub("<node>", s)
        s = _AWS_ID.sub(r"\1-<id>", s)
    if dot:
        s = _IPV4.sub("<ip>", s)
    if colon:
        s = _IPV6.sub("<ip>", s)
    if dash:
        s = _POD_HASH.sub(r"\1-<hash>", s)
        s = _POD_SUFFIX.sub(r"\1-<hash>", s)
    if "request" in s:
        s = _REQ_ID.sub(r"\1<id>", s)
    if dot:
        s = _VERSION.sub("<ver>", s)
    if "0x" in s:
        s = _HEX0X.sub("<hex>", s)
    s = _HEX.sub("<hex>", s)
    s = _ACCOUNT.sub("<account>", s)
    if "(x" in s:
        s = _COUNT.sub("(x<num> over <dur>)", s)
    s = _DUR.sub("<dur>", s)
    s = _QTY.sub("<qty>", s)
    s = _NUM.sub(_num, s)
    return s


@lru_cache(maxsize=32768)
def _cached(line: str) -> str:
    return normalize(line)


def normalize_cached(line: str) -> str:
    """``normalize`` with a process-wide cache for short lines (repeats are common)."""
    return _cached(line) if len(line) <= 1024 else normalize(line)


def clear_cache() -> None:
    _cached.cache_clear()
