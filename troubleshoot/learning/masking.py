"""A paste's error lines as masked templates, and a template back to a symptom.

Plain Python (no Django). The order matters for privacy: secrets are redacted
first (``troubleshoot.redact``), then the engine reads, normalises and condenses
the text (``troubleshoot.engine``), so nothing below ever sees a secret.

Three forms of one line:

* the **example**: the line as printed, with the engine's masks in place
  (``<ip>``, ``<ts>``, ``api-<hash>``, ``<num>``, ``arn:aws:iam::<account>:role/<name>``)
  and its own letter case: what editors read;
* the **template**: the example lowercased, plus a few masks of this module for
  names that differ between clusters without changing the failure (whole
  names with a generated suffix such as ``api-7d9f8b6c4-x2x7q`` or a ReplicaSet's
  ``api-7d9f8b6c4``, quoted object
  names such as ``"app-config"``, ordinal names such as ``web-0`` or
  ``us-east-1``, long base64-like blobs). It is the grouping key: two pastes
  of the same failure with different pods, addresses, times, ids and names
  give one template, hence one queue entry (``fingerprint``);
* the **symptom**: a readable instance of the template (the example with
  sample values in place of the masks) and a regex ``pattern`` that matches
  every variant of the template: literal parts escaped, masked parts as
  bounded character classes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from troubleshoot.engine.condense import ERROR, NEUTRAL, WARNING, condense
from troubleshoot.engine.normalize import normalize_cached
from troubleshoot.engine.patterns import validate_pattern
from troubleshoot.engine.reader import read
from troubleshoot.redact import redact

__all__ = ["Learned", "paste_templates", "template_of", "fingerprint", "symptom_for", "MAX_TEMPLATES"]

MAX_CHARS = 100_000  # of a paste read for learning (a 5 MB paste is mostly repeats of its first lines)
MAX_LINE = 400  # characters of one template
MAX_TEMPLATES = 3  # recorded per paste: its worst lines

# Masked part -> (regex for the pattern, sample value for the symptom text). The names are the
# engine normaliser's placeholders (troubleshoot.engine.normalize) plus this module's name and blob.
PLACEHOLDERS: dict[str, tuple[str, str]] = {
    "ts": (r"[\w:.,+/ -]{1,40}?", "2024-05-01T10:00:00Z"),
    "dur": (r"[\w.\u00b5]+", "42s"),
    "qty": (r"[\w.]+", "512Mi"),
    "uuid": (r"[0-9a-f-]{36}", "0f8fad5b-d9cb-469f-a165-70867728950e"),
    "hex": (r"[0-9a-fx]+", "3f9a2c7e1b4d"),
    "ip": (r"[0-9a-f:.\[\]/]+", "10.0.3.17"),
    "node": (r"[\w.-]+", "ip-10-0-1-23.ec2.internal"),
    "id": (r"[\w\"-]+", "0a1b2c3d4e5f67890"),
    "account": (r"\d{12}", "123456789012"),
    "region": (r"[\w-]+", "us-east-1"),
    "name": (r"[^\s\"',;)}\]]+", "example-1"),
    "hash": (r"[a-z0-9]{5,10}(?:-[a-z0-9]{5})?", "7d9f8b6c4-x2x7q"),
    "pod": (r"[a-z0-9][\w.-]*", "example-7d9f8b6c4-x2x7q"),
    "ver": (r"v?\d[\w.+-]*", "1.2.3"),
    "num": (r"[+-]?\d+(?:\.\d+)?", "3"),
    "blob": (r"\S+", "c2FtcGxl0123LXNhbXBsZS1zYW1wbGUt4567"),
}
SECRET_CLASS = r"\S+"  # where a secret was redacted: any value
_TOKEN = re.compile(r"<(" + "|".join(PLACEHOLDERS) + r")>|\[redacted:[a-z0-9-]+\]", re.IGNORECASE)

_BLOB = re.compile(r"(?<![a-z0-9+/=_<-])[a-z0-9+/=_-]{32,}(?![a-z0-9+/=_>-])")
_QUOTED_NAME = re.compile(r"([\"'])([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)\1")
_HASHED_NAME = re.compile(r"(?<![\w<>.-])[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?-(?:<hash>|<hex>(?:-[a-z0-9]{5})?)"
                          r"(?![\w<>.-])")
_ORDINAL_NAME = re.compile(r"(?<![\w<>.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d+(?![\w.<>-])")
_WORD = re.compile(r"[a-z]{2,}")
_TABLE_ROW = re.compile(r"\S {2,}\S+ {2,}\S+ {2,}\S")


@dataclass(frozen=True)
class Learned:
    """One error line of a paste, masked."""

    template: str  # the grouping key (lowercase)
    fingerprint: str  # sha256 of the template
    example: str  # the readable masked line
    severity: int  # the engine's grade: ERROR, WARNING or NEUTRAL


def _blob(m: re.Match[str]) -> str:
    value = m.group(0)
    return "<blob>" if sum(c.isdigit() for c in value) >= 4 and any(c.isalpha() for c in value) else value


def _quoted(m: re.Match[str]) -> str:
    quote, name = m.group(1), m.group(2)
    if "-" in name or any(c.isdigit() for c in name):
        return f"{quote}<name>{quote}"
    return m.group(0)


def coarsen(norm: str) -> str:
    """This module's masks on top of the engine's normalised form (idempotent)."""
    norm = _BLOB.sub(_blob, norm)
    norm = _QUOTED_NAME.sub(_quoted, norm)
    norm = _HASHED_NAME.sub("<pod>", norm)
    return _ORDINAL_NAME.sub("<name>", norm)


def _collapse(text: str) -> str:
    """The line as the normaliser sees it before masking: one space between words, at most MAX_LINE
    characters (cut at a space, so no value is cut in half)."""
    base = " ".join(text.replace("`", "'").split())
    if len(base) > MAX_LINE:
        base = base[:MAX_LINE].rsplit(" ", 1)[0]
    return base


def template_of(text: str) -> str:
    """The grouping key of one line."""
    return coarsen(normalize_cached(_collapse(text)))


def fingerprint(template: str) -> str:
    return hashlib.sha256(template.encode("utf-8")).hexdigest()


def _lower_placeholders(text: str) -> str:
    return _TOKEN.sub(lambda m: m.group(0).lower(), text)


def readable(base: str, target: str) -> str:
    """``base`` with the parts that ``target`` (``base`` masked and lowercased) masks replaced by
    target's placeholders, keeping base's letter case elsewhere. The result always lowercases to
    ``target``; when the characters cannot be aligned (Unicode folding), it is ``target`` itself."""
    low = base.lower()
    if low == target:
        return base
    if not base.isascii() or len(low) != len(base):
        return target
    opcodes = SequenceMatcher(None, low, target, autojunk=False).get_opcodes()
    result = _lower_placeholders("".join(base[i1:i2] if tag == "equal" else target[j1:j2]
                                         for tag, i1, i2, j1, j2 in opcodes))
    return result if result.lower() == target else target


def useful(template: str) -> bool:
    """A line worth an editor's time: a few words besides the masks."""
    words = _WORD.findall(_TOKEN.sub(" ", template))
    return len(template) >= 15 and len(words) >= 3


def learn_line(text: str, *, severity: int = ERROR, skip: set[str] | frozenset[str] = frozenset()
               ) -> Learned | None:
    """One line, masked; None when it is not worth keeping or its fingerprint is in ``skip``
    (the readable example, the costly part, is then not computed)."""
    base = _collapse(text)
    norm = normalize_cached(base)
    template = coarsen(norm)
    key = fingerprint(template)
    if key in skip or not useful(template):
        return None
    return Learned(template=template, fingerprint=key, example=readable(base, norm), severity=severity)


def paste_templates(text: str, *, limit: int = MAX_TEMPLATES) -> list[Learned]:
    """The masked templates of a paste's worst lines (errors, then warnings), at most ``limit``.

    A paste without an error or a warning gives its first plain line that is not a table row,
    if any. Only the first MAX_CHARS characters are read (cut at a line end)."""
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
        cut = text.rfind("\n")
        text = text[:cut] if cut > 0 else text
    lines = read(redact(text)[0])
    templates = condense(lines, [normalize_cached(line.text) for line in lines])
    worst = sorted((t for t in templates if t.severity >= WARNING), key=lambda t: (-t.severity, t.first))
    fallback = False
    if not worst:
        worst = [t for t in templates if t.severity == NEUTRAL and not _TABLE_ROW.search(lines[t.first].raw)]
        fallback = True
    found: dict[str, Learned] = {}
    for t in worst:
        learned = learn_line(lines[t.first].text, severity=t.severity, skip=found.keys())
        if learned is not None:
            found[learned.fingerprint] = learned
            if len(found) >= (1 if fallback else limit):
                break
    return list(found.values())


def _pieces(text: str) -> list[tuple[str, str]]:
    """("text", literal) and ("mask", name) pieces; a redacted secret is the mask "secret"."""
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() > pos:
            out.append(("text", text[pos:m.start()]))
        out.append(("mask", (m.group(1) or "secret").lower()))
        pos = m.end()
    if pos < len(text):
        out.append(("text", text[pos:]))
    return out


_SECRET = re.compile(r"\[redacted:[a-z0-9-]+\]", re.IGNORECASE)
_SECRET_KEY = re.compile(r"\s*(?:\S*[=:]|bearer|basic|token)\s*$", re.IGNORECASE)


def _without_secrets(masked: str) -> str:
    """Where a secret was redacted, the words around it are incidental (``password=``, ``Bearer``): the
    pattern keeps the stretch between secrets with the most words, without the key before a secret."""
    parts = _SECRET.split(masked)
    if len(parts) == 1:
        return masked
    stretches = [_SECRET_KEY.sub("", part) if i < len(parts) - 1 else part for i, part in enumerate(parts)]
    return max(stretches, key=lambda part: len(_WORD.findall(_TOKEN.sub(" ", part.lower()))))


def pattern_of(masked: str) -> str:
    """A safe regex matching every line ``masked`` stands for: literal text escaped (any run of
    spaces matches any whitespace), each masked part a named group with a bounded class. Masks at
    either end are left out (a search needs no anchor), and so is what surrounds a redacted secret.
    "" when the result fails validation."""
    pieces = _pieces(_without_secrets(masked).strip())
    while pieces and (pieces[0][0] == "mask" or not pieces[0][1].strip()):
        pieces.pop(0)
    while pieces and (pieces[-1][0] == "mask" or not pieces[-1][1].strip()):
        pieces.pop()
    if not pieces:
        return ""
    pieces[0] = ("text", pieces[0][1].lstrip())
    pieces[-1] = ("text", pieces[-1][1].rstrip())
    out: list[str] = []
    used: dict[str, int] = {}
    for kind, value in pieces:
        if kind == "text":
            out.extend(r"\s+" if part.isspace() else re.escape(part) for part in re.split(r"(\s+)", value) if part)
            continue
        used[value] = used.get(value, 0) + 1
        group = value if used[value] == 1 else f"{value}_{used[value]}"
        out.append(f"(?P<{group}>{PLACEHOLDERS[value][0] if value in PLACEHOLDERS else SECRET_CLASS})")
    pattern = "".join(out)
    if not used:
        pattern = f"(?P<line>{pattern})"
    return "" if validate_pattern(pattern) else pattern


def sample_text(example: str, template: str) -> str:
    """``example`` with sample values in place of the engine's masks, when it still masks back to
    ``template``; otherwise ``example`` as it is."""
    filled = _TOKEN.sub(lambda m: PLACEHOLDERS[m.group(1).lower()][1] if m.group(1) else m.group(0), example)
    return filled if template_of(filled) == template else example


@dataclass(frozen=True)
class SymptomDraft:
    text: str
    pattern: str


def symptom_for(*, template: str, example: str) -> SymptomDraft:
    """A symptom standing for ``template``: readable text and a pattern for all its variants."""
    masked = readable(example, template) if example.lower() != template else example
    if masked.lower() != template:  # an example from an older masking: fall back to the template
        masked = template
    return SymptomDraft(text=sample_text(example, template), pattern=pattern_of(masked))
