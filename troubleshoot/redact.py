"""Find and mask secrets in pasted logs, kubectl output and config files.

Plain Python on purpose (no Django): the upload path, the paste form and
batch jobs all call :func:`redact` before anything is stored.

Design notes
------------
* Every detector reports *spans* (offsets into the original text) instead of
  rewriting the text itself.  Overlapping spans are merged, the most specific
  kind wins, and the output is rebuilt in one pass.  Line numbers therefore
  always refer to the text the user pasted.
* Every pattern is written so that the regex engine does a bounded amount of
  work per input position (possessive quantifiers, anchored look-behinds, no
  nested repetition), so the whole thing stays roughly linear on large files.
* A marker looks like ``[REDACTED:kind]``.  No detector accepts a value that
  starts with ``[REDACTED:``, which makes ``redact`` idempotent.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

__all__ = ["Redaction", "redact", "MARKER_RE"]

MARKER_PREFIX = "[REDACTED:"
MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


@dataclass(frozen=True)
class Redaction:
    """One masked secret: what it was, where (1-based line) and a safe hint."""

    kind: str
    line: int
    preview: str


def _marker(kind: str) -> str:
    return f"{MARKER_PREFIX}{kind}]"


# Priorities: lower wins when spans overlap.
P_BLOCK = 0  # PEM blocks
P_K8S = 1  # data of a kind: Secret
P_FORMAT = 2  # self-identifying token formats (AKIA…, ghp_…, eyJ…)
P_CONTEXT = 3  # values found by a specific context (Authorization: Bearer …)
P_GENERIC = 4  # generic KEY=value / --flag value guesses


class _Span:
    __slots__ = ("start", "end", "prio", "kind", "silent")

    def __init__(self, start: int, end: int, prio: int, kind: str, silent: bool = False):
        self.start = start
        self.end = end
        self.prio = prio
        self.kind = kind
        self.silent = silent


# ---------------------------------------------------------------------------
# Shared pieces of patterns
# ---------------------------------------------------------------------------

# A value after "key=" or "key: ".  Quoted values keep their quotes outside
# the span; unquoted values stop at whitespace, common delimiters and at the
# "&" that starts the next query-string parameter.  Values
# that are obviously not secrets (placeholders, references, lists, markers)
# are refused up front.
_QUOTED_VALUE = r""""(?P<dq>(?:[^"\\\n]|\\.)*+)"|'(?P<sq>[^'\n]*+)'"""
_NOT_A_VALUE = r"""(?![\[{<(`]|\$[{(]|\*+(?:\s|$))"""
_VALUE = (
    rf"""(?:{_QUOTED_VALUE}"""
    # A backslash escape such as the "\n" inside a JSON log line ends it too.
    rf"""|(?P<uq>{_NOT_A_VALUE}(?:[^\s"'`,;&}}\\]|&(?![\w.-]*+=)|\\(?![nrt"\\]))++))"""
)
# After "key: " the value runs to the end of the line (see _AFTER_PLAIN_COLON).
_LINE_END = r"""(?=[,}\]]?[ \t]*(?:[ \t]#[^\n]*)?(?:\r?\n|\Z)|["'](?:\s|\Z))"""
_VALUE_TO_EOL = (
    rf"""(?:(?:{_QUOTED_VALUE})(?=[ \t]*(?:[,}}\]][ \t]*)?(?:[ \t]#[^\n]*)?(?:\r?\n|\Z))"""
    rf"""|(?P<uq>{_NOT_A_VALUE}(?!["'])\S+?){_LINE_END})"""
)

# Endings of key names whose value is a secret (matched case-insensitively
# with fixed-width look-behinds right after the whole key was consumed).
_SECRET_KEY_SUFFIXES = (
    "password",
    "passwd",
    "passphrase",
    "_pass",
    "-pass",
    ".pass",
    "_pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "secretkey",
    "secret_key",
    "secret-key",
    "privatekey",
    "private_key",
    "private-key",
    "accesskey",
    "access_key",
    "access-key",
    "key_base",
    "credentials",
    "credential",
    "client-key-data",
    "client-certificate-data",
    "auth",
)


def _ends_with_any(suffixes) -> str:
    return "(?:" + "|".join(f"(?<={re.escape(s)})" for s in suffixes) + ")"


_SECRET_KEY_END = _ends_with_any(_SECRET_KEY_SUFFIXES)

# Values that mean "no secret here".
_HARMLESS_VALUES = frozenset(
    {"", "true", "false", "yes", "no", "null", "none", "nil", "~", "undefined",
     "redacted", "<redacted>", "hidden", "<hidden>", "masked", "%s", "-"}
)
_PLACEHOLDER_RE = re.compile(
    r"""^(?:\$[A-Z_][A-Z0-9_]*|\$\{.*|\$\(.*|\{\{.*|<[^>]*>|\*+|%\([a-z_]+\)s|\[REDACTED:.*"""
    # Terraform/HCL references such as data.aws_eks_cluster_auth.this.token
    r"""|(?:var|data|local|module|each|self|path|random_[a-z]+|aws_[a-z0-9_]+)\.[\w.\[\]"*-]+)$""",
    re.S,
)
# Key names that end like a secret but only ever hold a name or a switch.
_HARMLESS_KEY_RE = re.compile(
    r"(?i)(?:existing|imagepull|use|create|enable|enabled|skip|ignore|mount|generate|auto)"
    r"[_.-]?(?:secret|token|auth|password|credentials?)$"
)


def _harmless(value: str) -> bool:
    v = value.strip()
    return v.lower() in _HARMLESS_VALUES or bool(_PLACEHOLDER_RE.match(v))


def _value_span(m: re.Match, text: str) -> tuple[int, int] | None:
    """The secret part of a match of ``_VALUE``, or None when it is harmless."""
    for g in ("dq", "sq", "uq"):
        if m.group(g) is not None:
            start, end = m.start(g), m.end(g)
            break
    else:
        return None
    if g == "uq" and text[end - 1] == ")":
        # "(using password: YES)": a closing bracket that was never opened
        # inside the value belongs to the surrounding text.
        surplus = text.count(")", start, end) - text.count("(", start, end)
        while surplus > 0 and end > start and text[end - 1] == ")":
            end -= 1
            surplus -= 1
    if start >= end or _harmless(text[start:end]):
        return None
    return start, end


def _kind_for_key(key: str) -> str | None:
    """Classify a key name that ended like a secret; None when it is harmless."""
    k = key.strip("\"'").lower().replace("-", "_").replace(".", "_")
    if _HARMLESS_KEY_RE.search(k):
        return None
    if k.endswith("auth"):
        # Only the docker config.json field called exactly "auth".
        return "docker-auth" if k == "auth" else None
    if "secret_access_key" in k or "secretaccesskey" in k:
        return "aws-secret-key"
    if "session_token" in k or "sessiontoken" in k or "security_token" in k:
        return "aws-session-token"
    if k.endswith("client_key_data"):
        return "kubeconfig-client-key"
    if k.endswith("client_certificate_data"):
        return "kubeconfig-client-cert"
    if k in ("token", "id_token", "refresh_token", "access_token"):
        return "kubeconfig-token" if k == "token" else "token"
    if "pass" in k or k.endswith("pwd"):
        return "password"
    if k.endswith("token"):
        return "token"
    return "secret"


# ---------------------------------------------------------------------------
# Pattern rules
# ---------------------------------------------------------------------------

_B64 = r"A-Za-z0-9+/"


def _decode_b64url(part: str) -> bytes:
    part = part + "=" * (-len(part) % 4)
    try:
        return base64.urlsafe_b64decode(part)
    except (binascii.Error, ValueError):
        return b""


def _decode_b64(part: str) -> bytes:
    part = part[: len(part) - len(part) % 4]
    try:
        return base64.b64decode(part)
    except (binascii.Error, ValueError):
        return b""


def _jwt_kind(token: str) -> str:
    pieces = token.split(".")
    payload = _decode_b64url(pieces[1]) if len(pieces) > 1 else b""
    if (
        b"kubernetes.io" in payload
        or b"kubernetes/serviceaccount" in payload
        or b"system:serviceaccount:" in payload
    ):
        return "k8s-service-account-token"
    return "jwt"


class _Rule:
    """A pattern plus how to turn one of its matches into a span.

    ``anchor`` (optional) is a case-sensitive pattern searched in the
    ASCII-lower-cased text; the full ``pattern`` is then only tried at the
    anchor's position.  That keeps case-insensitive rules fast: the regex
    engine can use a literal prefix instead of testing every position.
    """

    def __init__(self, pattern: str, kind, prio: int, group=0, anchor: str | None = None,
                 check=None):
        self.regex = re.compile(pattern)
        self.anchor = re.compile(anchor) if anchor else None
        self.kind = kind  # str, or callable(match) -> str | None
        self.prio = prio
        self.group = group  # group name/number, or "value" for the _VALUE groups
        self.check = check  # optional callable(match, text) -> bool

    def _matches(self, text: str, lowered: str):
        if self.anchor is None:
            yield from self.regex.finditer(text)
            return
        resume = 0
        for a in self.anchor.finditer(lowered):
            if a.start() < resume:
                continue
            m = self.regex.match(text, a.start())
            if m is not None:
                resume = m.end()
                yield m

    def scan(self, text: str, lowered: str, out: list) -> None:
        for m in self._matches(text, lowered):
            if self.group == "value":
                span = _value_span(m, text)
                if span is None:
                    continue
                start, end = span
            else:
                start, end = m.span(self.group)
            if start >= end:
                continue
            if self.check is not None and not self.check(m, text):
                continue
            kind = self.kind(m) if callable(self.kind) else self.kind
            if kind is None:
                continue
            out.append(_Span(start, end, self.prio, kind))


def _pem_b64_is_private(m: re.Match, text: str) -> bool:
    return b"PRIVATE KEY" in _decode_b64(m.group(0)[:64])


# The look-behinds placed *after* a literal make sure the literal starts a
# token (e.g. "(?<![A-Za-z0-9]....)" right after the 4 letters of "AKIA").
# Putting the literal first lets the regex engine skip ahead quickly.
def _n(width: int) -> str:
    return "." * width


_RULES: list[_Rule] = [
    # --- self-identifying formats ------------------------------------------
    _Rule(r"A[KS]IA(?<![A-Za-z0-9]....)[A-Z0-9]{16}(?![A-Za-z0-9])",
          "aws-access-key-id", P_FORMAT),
    # A 40-character secret printed on the same line right after a key id
    # (credentials CSV, `aws configure` transcripts, ...).
    _Rule(r"A[KS]IA(?<![A-Za-z0-9]....)[A-Z0-9]{16}[\s,:;|\"']{1,10}"
          rf"(?P<s>[{_B64}]{{40}})(?![{_B64}=])",
          "aws-secret-key", P_CONTEXT, group="s"),
    # STS session tokens have recognisable base64 prefixes.
    _Rule(rf"(?:IQoJb3JpZ2luX2Vj(?<![{_B64}]{_n(16)})|F[wQ]oGZXIvYXdz(?<![{_B64}]{_n(12)}))"
          rf"[{_B64}=%]{{40,}}+",
          "aws-session-token", P_FORMAT),
    _Rule(r"(?i)X-Amz-Security-Token=(?P<s>[^&\s\"'<>]++)",
          "aws-session-token", P_CONTEXT, group="s", anchor=r"x-amz-security-token="),
    _Rule(r"(?i)X-Amz-Signature=(?P<s>[0-9a-f]{64})(?![0-9a-f])",
          "aws-signature", P_CONTEXT, group="s", anchor=r"x-amz-signature="),
    _Rule(r"gh[pousr]_(?<![A-Za-z0-9_]....)[A-Za-z0-9]{30,}+", "github-token", P_FORMAT),
    _Rule(rf"github_pat_(?<![A-Za-z0-9_]{_n(11)})[A-Za-z0-9_]{{30,}}+",
          "github-token", P_FORMAT),
    _Rule(r"glpat-(?<![A-Za-z0-9_-]......)[A-Za-z0-9_-]{20,}+", "gitlab-token", P_FORMAT),
    _Rule(r"x(?:ox[abposre]-(?<![A-Za-z0-9-].....)[A-Za-z0-9-]{10,}+"
          r"|app-(?<![A-Za-z0-9-].....)\d-[A-Za-z0-9-]{10,}+)",
          "slack-token", P_FORMAT),
    _Rule(r"(?i)hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/-]++)",
          "slack-webhook", P_FORMAT, group="s", anchor=r"hooks\.slack\.com/"),
    # JSON Web Tokens, including Kubernetes service-account tokens.
    _Rule(r"eyJ(?<![A-Za-z0-9_-]...)[A-Za-z0-9_-]{10,}+\."
          r"(?:eyJ[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]*+|[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+)",
          lambda m: _jwt_kind(m.group(0)), P_FORMAT),
    # A JWT that was base64-encoded once more (Secret data, dumps).
    _Rule(rf"ZXlKaGJHY2lPaU(?<![{_B64}]{_n(14)})[{_B64}]{{40,}}+=*", "jwt", P_FORMAT),
    # `aws ecr get-login-password` output.
    _Rule(rf"eyJwYXlsb2FkIjoi(?<![{_B64}]{_n(16)})[{_B64}]{{40,}}+=*",
          "ecr-token", P_FORMAT),
    # `aws eks get-token` output.
    _Rule(rf"k8s-aws-v1\.(?<![A-Za-z0-9_.-]{_n(11)})[A-Za-z0-9_-]{{20,}}+", "eks-token", P_FORMAT),
    # base64 of "-----BEGIN ... PRIVATE KEY-----" (Secrets, kubeconfig, helm values).
    _Rule(rf"LS0tLS1CRUdJTi(?<![{_B64}]{_n(14)})[{_B64}]{{20,}}+=*", "private-key",
          P_FORMAT, check=_pem_b64_is_private),
    # --- context-dependent values -------------------------------------------
    _Rule(r"(?i)(?<![A-Za-z0-9_-])authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
          r"(?:bearer|token|bot)[ \t]++(?P<s>(?!\[REDACTED:|\$)[^\s\"',;]++)",
          "bearer-token", P_CONTEXT, group="s", anchor="authorization"),
    _Rule(r"(?i)(?<![A-Za-z0-9_-])authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
          r"basic[ \t]++(?P<s>[A-Za-z0-9+/]{8,}+=*)",
          "basic-auth", P_CONTEXT, group="s", anchor="authorization"),
    _Rule(r"(?i)(?<![A-Za-z0-9_-])bearer[ \t]++(?P<s>[A-Za-z0-9._~+/-]{16,}+=*)",
          "bearer-token", P_CONTEXT, group="s", anchor="bearer"),
    # scheme://user:password@host
    _Rule(r"://(?<=[A-Za-z0-9+.-]...)[^\s:/@\"'<>\[\]]*+:"
          r"(?P<s>(?!\[REDACTED:)[^\s/\"'<>]+)@(?=[^\s@/\"'<>])",
          "url-credentials", P_CONTEXT, group="s"),
    # docker login -u AWS -p <password>, mysql -p<password>, curl -u user:password
    _Rule(r"docker(?<![\w-]......)[ \t]+login\b[^\n]{0,300}?[ \t]-p[ \t]++"
          r"(?P<s>(?!\[REDACTED:|\$)[^\s\"']++)",
          "password", P_CONTEXT, group="s"),
    _Rule(r"mysql(?<![\w-].....)(?:dump|admin|sh)?\b[^\n]{0,300}?[ \t]-p"
          r"(?P<s>(?!\[REDACTED:|\$)[^\s\"']++)",
          "password", P_CONTEXT, group="s"),
    _Rule(r"curl(?<![\w-]....)\b[^\n]{0,300}?[ \t](?:-u|--user)[ \t]++[\"']?[^\s:\"']++:"
          r"(?P<s>(?!\[REDACTED:|\$)[^\s\"']++)",
          "password", P_CONTEXT, group="s"),
]


# ---------------------------------------------------------------------------
# key = value pairs whose key name looks secret
# ---------------------------------------------------------------------------

# Suffix anchors, searched in the lower-cased text; each hit is the end of a
# key candidate, which is then grown backwards to the start of the word.
_KEY_ANCHOR = re.compile(
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|key_base|credentials?|-data|auth)"
    r"(?![\w.-])"
)
_KEY_SUFFIXES = tuple(_SECRET_KEY_SUFFIXES)
_ARG_SUFFIXES = ("password", "passwd", "passphrase", "secret", "token", "api-key", "apikey",
                 "secret-key", "access-key", "private-key")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_AFTER_QUOTED_KEY = re.compile(r"[ \t]*[:=][ \t]*" + _VALUE)
_AFTER_PLAIN_EQUALS = re.compile(r"[ \t]*=[ \t]*" + _VALUE)
# "key: value" is also how prose reads ("get credentials: failed to refresh
# ..."), so without quotes around the key the value has to end the line (or
# a quoted string, as in -H 'X-Api-Key: ...').
_AFTER_PLAIN_COLON = re.compile(
    r"[ \t]*:[ \t]+" + _VALUE_TO_EOL
)
_AFTER_PLAIN_COLON_MIDLINE = re.compile(r"[ \t]*:[ \t]+" + _VALUE)
# Words that follow "password:" or "--password" in messages, not secrets.
_PROSE_WORDS = frozenset({
    "a", "an", "the", "is", "was", "not", "must", "should", "can", "cannot", "for", "of", "to", "via",
    "incorrect", "invalid", "expired", "required", "missing", "empty", "wrong", "mismatch", "changed",
    "reset", "authentication", "failed", "denied", "rejected", "too", "prompt", "option", "flag",
    "argument", "file", "from", "and", "or", "none", "unset", "set",
})
_AFTER_FLAG = re.compile(r"[ \t]++(?!-)" + _VALUE)
# - name: DB_PASSWORD            {"name": "DB_PASSWORD", "value": "..."}
#   value: ...
_BEFORE_ENV_NAME = re.compile(r"(?:^|[^\w-])\"?name\"?[ \t]*:[ \t]*[\"']?\Z")
_AFTER_ENV_NAME = re.compile(
    r"[\"']?(?:[ \t]*\r?\n[ \t]*+(?:-[ \t]+)?value:[ \t]*+|[ \t]*,[ \t]*\"value\"[ \t]*:[ \t]*)"
    + _VALUE
)
# terraform output -json: "db_password": {"sensitive": true, ..., "value": "..."}
_AFTER_TF_OUTPUT = re.compile(r"\"[ \t]*:[ \t]*\{[^{}]{0,300}?\"value\"[ \t]*:[ \t]*" + _VALUE)


def _scan_keys(text: str, lowered: str, out: list) -> None:
    word_end = -1  # end of the previous key candidate
    resume = 0  # end of the previous value that was taken
    for a in _KEY_ANCHOR.finditer(lowered):
        end = a.end()
        if end <= word_end or a.start() < resume:
            continue
        # Grow backwards to the start of the key, never past the previous key.
        start = a.start()
        floor = max(word_end, 0)
        while start > floor and text[start - 1] in _WORD_CHARS:
            start -= 1
        word_end = end
        key = text[start:end]
        low = lowered[start:end]
        if not low.endswith(_KEY_SUFFIXES):
            continue
        kind = _kind_for_key(key.lstrip("-"))
        if kind is None:
            continue
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""

        m = None
        prio = P_GENERIC
        window = text[max(0, start - 24):start]
        if _BEFORE_ENV_NAME.search(window):
            m = _AFTER_ENV_NAME.match(text, end)
            prio = P_CONTEXT
        if m is None and before == '"' and after == '"':
            m = _AFTER_TF_OUTPUT.match(text, end)
            prio = P_CONTEXT
        if m is None:
            prio = P_GENERIC
            if before in "\"'" and before and after == before:
                m = _AFTER_QUOTED_KEY.match(text, end + 1)
            else:
                m = _AFTER_PLAIN_EQUALS.match(text, end)
                if m is None and kind == "password":
                    # Passwords are masked mid-line too ("password: x user: y"),
                    # unless the next word reads like prose.
                    m = _AFTER_PLAIN_COLON_MIDLINE.match(text, end)
                    if m is not None and (m.group("uq") or "").lower() in _PROSE_WORDS:
                        continue
                elif m is None and not low.endswith(("credentials", "credential")):
                    m = _AFTER_PLAIN_COLON.match(text, end)
                    if m is not None:
                        # A lone word or short number after "token:" is prose
                        # ("validating token: expired"), not a credential.
                        word = m.group("uq")
                        if word is not None and (word.isalpha() or (word.isdigit() and len(word) < 6)):
                            continue
                if m is None and key.startswith("--") and low.endswith(_ARG_SUFFIXES):
                    m = _AFTER_FLAG.match(text, end)
                    # "Using --password via the CLI is insecure": prose again.
                    if m is not None and (m.group("uq") or "").lower() in _PROSE_WORDS:
                        continue
        if m is None:
            continue
        resume = m.end()
        span = _value_span(m, text)
        if span is None:
            continue
        vstart, vend = span
        if m.group("uq") is not None and text.startswith(" bytes", vend):
            continue  # `kubectl describe secret`: "password:  16 bytes"
        out.append(_Span(vstart, vend, prio, kind))


# ---------------------------------------------------------------------------
# PEM blocks
# ---------------------------------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN (?P<label>[A-Z0-9][A-Z0-9 ]{0,60})-----")
_PEM_END = re.compile(r"-----END [A-Z0-9][A-Z0-9 ]{0,60}-----")
_PEM_BASE64_RUN = re.compile(rf"[{_B64}]{{16}}")
_PEM_BODY_LINE = re.compile(rf"[ \t]*(?:[{_B64}]{{16,}}+=*|[A-Za-z-]+: .*)[ \t\r]*")


def _pem_kind(label: str) -> str:
    if "PRIVATE KEY" in label:
        return "private-key"
    if "CERTIFICATE" in label:
        return "certificate"
    return "pem-block"


def _scan_pem(text: str, out: list) -> None:
    if "-----BEGIN " not in text:
        return
    covered_until = 0
    cached_end = None  # the first END marker at or after the last search point
    for m in _PEM_BEGIN.finditer(text):
        if m.start() < covered_until:
            continue
        if cached_end is None or (cached_end is not False and cached_end.start() < m.end()):
            cached_end = _PEM_END.search(text, m.end()) or False
        next_begin = _PEM_BEGIN.search(text, m.end())
        if cached_end is not False and (next_begin is None or next_begin.start() > cached_end.start()):
            end = cached_end.end()
            if not _PEM_BASE64_RUN.search(text, m.end(), cached_end.start()):
                # "...your CA here..." placeholders in docs: nothing to hide.
                covered_until = end
                continue
        else:
            # Truncated block: mask the rest of the BEGIN line and any
            # following lines that look like base64 body or PEM headers.
            nl = text.find("\n", m.end())
            end = len(text) if nl < 0 else nl
            while end < len(text):
                nl = text.find("\n", end + 1)
                line_end = len(text) if nl < 0 else nl
                if not _PEM_BODY_LINE.fullmatch(text, end + 1, line_end):
                    break
                end = line_end
        out.append(_Span(m.start(), end, P_BLOCK, _pem_kind(m.group("label"))))
        covered_until = end


# ---------------------------------------------------------------------------
# data / stringData of `kind: Secret` objects (YAML or pretty-printed JSON)
# ---------------------------------------------------------------------------

_SECRET_KIND_HINT = re.compile(r"""(?:kind|"kind")[ \t]*:[ \t]*["']?Secret\b""")
_YAML_KEY_LINE = re.compile(
    r"""(?P<ind>[ \t]*)(?P<dash>-[ \t]+)?"""
    r"""(?:"(?P<dk>[^"\n]*)"|'(?P<sk>[^'\n]*)'|(?P<pk>[\w./-]++))"""
    r"""[ \t]*:(?:[ \t]+(?P<val>.*)|[ \t\r]*)"""
)
_BLOCK_INDICATOR = re.compile(r"[|>][+-]?[0-9]?")
# last-applied-configuration and friends: the whole object on one JSON line.
_INLINE_SECRET_DATA = re.compile(r"\"(?:data|stringData)\"[ \t]*:[ \t]*\{(?P<body>[^{}\n]*+)\}")
_INLINE_PAIR = re.compile(r"\"[^\"\n]*\"[ \t]*:[ \t]*\"(?P<v>(?:[^\"\\\n]|\\.)*+)\"")
_INLINE_SECRET_KIND = re.compile(r"\"kind\"[ \t]*:[ \t]*\"Secret\"")


class _Mapping:
    __slots__ = ("indent", "is_secret", "regions", "open_region")

    def __init__(self, indent: int):
        self.indent = indent
        self.is_secret = False
        self.regions: list[tuple[int, int]] = []
        self.open_region: int | None = None

    def end_region(self, line_no: int) -> None:
        if self.open_region is not None:
            self.regions.append((self.open_region, line_no))
            self.open_region = None


def _clean_scalar(value: str) -> str:
    v = value.strip().rstrip(",").strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = v[1:-1]
    return v


def _scan_secret_objects(text: str, out: list) -> None:
    if not _SECRET_KIND_HINT.search(text):
        return

    # One-line JSON copies (e.g. the last-applied-configuration annotation).
    done_until = -1
    for kind_m in _INLINE_SECRET_KIND.finditer(text):
        if kind_m.start() < done_until:
            continue
        line_start = text.rfind("\n", 0, kind_m.start()) + 1
        line_end = text.find("\n", kind_m.end())
        if line_end < 0:
            line_end = len(text)
        done_until = line_end
        for dm in _INLINE_SECRET_DATA.finditer(text, line_start, line_end):
            for pm in _INLINE_PAIR.finditer(text, dm.start("body"), dm.end("body")):
                if pm.start("v") < pm.end("v") and not _harmless(pm.group("v")):
                    out.append(_Span(pm.start("v"), pm.end("v"), P_K8S, "k8s-secret-data"))

    lines = text.split("\n")
    offsets = []
    pos = 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1

    stack: list[_Mapping] = []

    def close(mapping: _Mapping, line_no: int) -> None:
        mapping.end_region(line_no)
        if mapping.is_secret:
            for start, end in mapping.regions:
                _mask_data_region(lines, offsets, start, end, out)

    def close_while(pred, line_no: int) -> None:
        while stack and pred(stack[-1]):
            close(stack.pop(), line_no)

    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("---") or stripped == "...":
            close_while(lambda _m: True, i)
            continue
        m = _YAML_KEY_LINE.fullmatch(line)
        if m is None:
            indent = len(line) - len(line.lstrip())
            if indent == 0 and stripped[0] not in "{}[]-":
                close_while(lambda _m: True, i)
            else:
                close_while(lambda mp, ind=indent: mp.indent > ind, i)
            continue
        key = m.group("dk") if m.group("dk") is not None else (
            m.group("sk") if m.group("sk") is not None else m.group("pk"))
        value = (m.group("val") or "").strip()
        key_indent = len(m.group("ind")) + len(m.group("dash") or "")
        if m.group("dash"):
            close_while(lambda mp, ind=key_indent: mp.indent >= ind, i)
        else:
            close_while(lambda mp, ind=key_indent: mp.indent > ind, i)
        if stack and stack[-1].indent == key_indent:
            cur = stack[-1]
        else:
            cur = _Mapping(key_indent)
            stack.append(cur)
        cur.end_region(i)
        if key == "kind" and _clean_scalar(value) == "Secret":
            cur.is_secret = True
        elif key in ("data", "stringData") and value.strip() in ("", "{"):
            cur.open_region = i + 1
    close_while(lambda _m: True, len(lines))


def _mask_data_region(lines, offsets, start: int, end: int, out: list) -> None:
    entry_indent = None
    block_indent = None  # set while inside a `key: |` block scalar
    first_block_line = False
    for i in range(start, end):
        line = lines[i]
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if block_indent is not None and indent > block_indent:
            content_start = offsets[i] + indent
            content_end = offsets[i] + len(line.rstrip())
            if not line.strip().startswith(MARKER_PREFIX):
                out.append(_Span(content_start, content_end, P_K8S, "k8s-secret-data",
                                 silent=not first_block_line))
            first_block_line = False
            continue
        block_indent = None
        m = _YAML_KEY_LINE.fullmatch(line)
        if m is None or m.group("dash"):
            continue
        key_indent = len(m.group("ind"))
        if entry_indent is None:
            entry_indent = key_indent
        if key_indent != entry_indent or m.group("val") is None:
            continue
        raw = m.group("val").rstrip()
        if not raw:
            continue
        if _BLOCK_INDICATOR.fullmatch(raw):
            block_indent = key_indent
            first_block_line = True
            continue
        vstart = offsets[i] + m.start("val")
        vend = vstart + len(raw)
        # Strip a trailing comma (JSON) and surrounding quotes.
        text_val = raw
        if text_val.endswith(","):
            text_val = text_val[:-1].rstrip()
            vend = vstart + len(text_val)
        if len(text_val) >= 2 and text_val[0] == text_val[-1] and text_val[0] in "\"'":
            vstart += 1
            vend -= 1
            text_val = text_val[1:-1]
        if not text_val or text_val.startswith(MARKER_PREFIX) or text_val in ("{}", "''", '""'):
            continue
        out.append(_Span(vstart, vend, P_K8S, "k8s-secret-data"))


# ---------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------


def _preview(secret: str, kind: str) -> str:
    if kind in ("private-key", "certificate", "pem-block"):
        head = _PEM_BEGIN.match(secret)
        if head:
            return f"BEGIN {head.group('label')}…"
    s = " ".join(secret.split())
    if len(s) >= 16:
        return f"{s[:4]}…{s[-4:]}"
    if len(s) >= 10:
        return f"{s[:2]}…"
    return "…"


def _merge(spans: list[_Span]) -> list[_Span]:
    spans.sort(key=lambda s: (s.start, -s.end))
    merged: list[_Span] = []
    for s in spans:
        if merged and s.start < merged[-1].end:
            cur = merged[-1]
            cur.end = max(cur.end, s.end)
            if s.prio < cur.prio:
                cur.prio, cur.kind = s.prio, s.kind
            cur.silent = cur.silent and s.silent
        else:
            merged.append(_Span(s.start, s.end, s.prio, s.kind, s.silent))
    return merged


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _ascii_lower(text: str) -> str:
    """Lower-case *text* without changing any offset."""
    low = text.lower()
    if len(low) == len(text):
        # str.lower never shortens a string, so equal lengths mean every
        # character kept its position.
        return low
    return text.translate(_ASCII_LOWER)


def find_secrets(text: str) -> list[tuple[int, int, str, bool]]:
    """Return merged ``(start, end, kind, silent)`` spans of secrets in *text*."""
    spans: list[_Span] = []
    lowered = _ascii_lower(text)
    _scan_pem(text, spans)
    _scan_secret_objects(text, spans)
    for rule in _RULES:
        rule.scan(text, lowered, spans)
    _scan_keys(text, lowered, spans)
    return [(s.start, s.end, s.kind, s.silent) for s in _merge(spans)]


def redact(text: str) -> tuple[str, list[Redaction]]:
    """Mask secrets in *text*.

    Returns the masked text and one :class:`Redaction` per masked value, in
    order of appearance, with 1-based line numbers of the input text.
    """
    pieces: list[str] = []
    report: list[Redaction] = []
    pos = 0
    line = 1
    for start, end, kind, silent in find_secrets(text):
        line += text.count("\n", pos, start)
        pieces.append(text[pos:start])
        pieces.append(_marker(kind))
        if not silent:
            report.append(Redaction(kind=kind, line=line, preview=_preview(text[start:end], kind)))
        line += text.count("\n", start, end)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces), report
