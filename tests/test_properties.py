"""Property tests for the plain-Python engines that every paste and upload goes through.

What is checked here, and not already in tests/engine or tests/kubectl:

* the reader on arbitrary text *and bytes* (random encodings, BOMs, control characters,
  JSON log records, Terraform boxes) never raises and numbers its lines 1, 2, ... in order,
  never past the last physical line;
* the normaliser never raises and is idempotent on unrestricted Unicode (lone surrogates,
  controls), on long lines and on mutated lines of the real matcher cases;
* the kubectl analyser and splitter survive random character- and line-level mutations of
  every real fixture in tests/fixtures/kubectl;
* redaction never raises on any text and is idempotent on it; tests/test_redact.py plants one
  secret at a time on a line of its own in random text, so here several secrets go into real
  kubectl output and matcher pastes at once, flush against quotes, brackets and shell
  punctuation, and not even half of one may survive.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from troubleshoot.engine.normalize import normalize
from troubleshoot.engine.reader import decode, read
from troubleshoot.kubectl import analyze_text, split_sections
from troubleshoot.redact import MARKER_RE, redact

TESTS = Path(__file__).resolve().parent
KUBECTL_FIXTURES = sorted((TESTS / "fixtures" / "kubectl").iterdir())
FIXTURE_TEXTS = [p.read_text(encoding="utf-8") for p in KUBECTL_FIXTURES]
CASE_LINES = [line for p in sorted((TESTS / "matcher_cases").glob("*/*.txt"))
              for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]

# Generous budgets: the engines are fast, but a CI runner can be slow and noisy.
PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(max_examples=60, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------- inputs

# Anything Python can hold in a str, lone surrogates included (they arrive via
# surrogateescape, JSON "\udXXX" escapes and broken clipboard tools).
any_text = st.text(alphabet=st.characters(), max_size=400)

# Pieces real pastes are made of; shuffled together they exercise the reader's
# JSON unwrapping, klog stripping, box joining and wrap heuristics.
_PIECES = [
    '{"level":"ERROR","msg":"could not launch nodeclaim","error":"InsufficientInstanceCapacity"}',
    '{"msg": "x", "errorCauses": [{"error": "a\\nb"}, {"message": 3}]}',
    '{"log": "{\\"msg\\": \\"nested\\"}"}',
    "{", "}", "[1,2]", '{"msg": ', '"message": "quoted \\"value\\"",',
    "I0521 10:00:00.123456       1 controller.go:42] reconcile failed",
    "E0521 10:00:00.1 1 x.go:1]",
    "\u2577", "\u2502 Error: Unauthorized", "\u2502", "\u2502   with provider", "\u2575",
    "\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b", "\x9b1m",
    "user@host:~$ kubectl get pods", "$ ", "PS C:\\> kubectl logs x", ">>> ", "(venv) a@b $ ls",
    "Warning  FailedScheduling  2m  default-scheduler  0/3 nodes are available,",
    "x" * 80, "y" * 120, "a" * 79 + ",", "continued lowercase text", "Events:", "---",
    "\t", "", " ", "\r", "\r\n", "\x00", "\ufeff",
]
log_like_text = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=30)), max_size=40).flatmap(
    lambda parts: st.sampled_from(["\n", "\r\n", "\r", ""]).map(lambda sep: sep.join(parts)))

_ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "latin-1", "cp1252"]


@st.composite
def encoded_pastes(draw) -> bytes:
    """Text encoded one way or another, sometimes with a wrong or truncated BOM."""
    text = draw(st.one_of(log_like_text, st.text(max_size=200)))
    encoding = draw(st.sampled_from(_ENCODINGS))
    data = text.encode(encoding, errors="replace")
    prefix = draw(st.sampled_from([b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, b"\xff", b"\xfe"]))
    cut = draw(st.integers(0, len(data)))
    return prefix + (data[:cut] if draw(st.booleans()) else data)


def _physical_line_count(data: str | bytes) -> int:
    text = decode(data)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return len(lines)


@st.composite
def mutated(draw, texts: list[str]) -> str:
    """A real document hit by a handful of random edits: characters inserted, deleted
    or replaced, lines dropped, duplicated, swapped, re-indented or cut short."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "drop_line", "dup_line", "swap_lines",
                                   "indent", "truncate_line", "tabs"]))
        if op in ("insert", "delete", "replace"):
            pos = draw(st.integers(0, len(text)))
            if op == "insert":
                text = text[:pos] + draw(st.text(min_size=1, max_size=12)) + text[pos:]
            elif op == "delete":
                text = text[:pos] + text[pos + draw(st.integers(1, 40)):]
            else:
                junk = draw(st.sampled_from([":", " ", "  ", "\t", "-", "{", "}", "[", "]", '"', "'", "|", "\n",
                                             "0", "<none>", "Name:", "---", "\u00a0", "\x00", "\ud800"]))
                text = text[:pos] + junk + text[pos + 1:]
            continue
        lines = text.split("\n")
        if not lines:
            continue
        i = draw(st.integers(0, len(lines) - 1))
        if op == "drop_line":
            del lines[i]
        elif op == "dup_line":
            lines.insert(i, lines[i])
        elif op == "swap_lines":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "    ", "\t"])) + lines[i].lstrip()
        elif op == "truncate_line":
            lines[i] = lines[i][: draw(st.integers(0, max(0, len(lines[i]))))]
        else:
            lines[i] = lines[i].replace("   ", "\t")
        text = "\n".join(lines)
    return text


# ---------------------------------------------------------------------------- reader


def _check_reader(data: str | bytes) -> None:
    lines = read(data)
    last = _physical_line_count(data)
    previous = 1
    for line in lines:
        assert isinstance(line.text, str) and isinstance(line.raw, str)
        assert 1 <= line.number <= last, (line.number, last)
        assert line.number >= previous, "line numbers went backwards"
        previous = line.number


@PROPERTY
@given(any_text)
def test_reader_never_raises_on_any_text(text: str) -> None:
    _check_reader(text)


@PROPERTY
@given(st.binary(max_size=600))
@example(b"\xff\xfe\x00")  # a UTF-16 BOM followed by an odd number of bytes
@example(b"\xef\xbb\xbf\xff\xfe")
def test_reader_never_raises_on_any_bytes(data: bytes) -> None:
    _check_reader(data)


@PROPERTY
@given(st.one_of(log_like_text, encoded_pastes()))
def test_reader_numbers_log_like_pastes_in_order(data: str | bytes) -> None:
    _check_reader(data)


# ---------------------------------------------------------------------------- normaliser


def _check_normalize(s: str) -> None:
    once = normalize(s)
    assert isinstance(once, str)
    assert normalize(once) == once


@PROPERTY
@given(any_text)
def test_normalize_is_total_and_idempotent_on_any_unicode(s: str) -> None:
    _check_normalize(s)


@PROPERTY
@given(mutated(CASE_LINES))
def test_normalize_is_idempotent_on_mutated_real_lines(s: str) -> None:
    _check_normalize(s)


@FEW
@given(st.lists(st.sampled_from(CASE_LINES), min_size=1, max_size=8).map(" ".join))
def test_normalize_is_idempotent_on_long_joined_lines(s: str) -> None:
    _check_normalize(s)


# ---------------------------------------------------------------------------- kubectl engine


def _check_kubectl(text: str) -> None:
    report = analyze_text(text)
    report.to_dict()
    line_count = text.count("\n") + text.count("\r") + 1
    for section in report.sections:
        assert 1 <= section.start_line <= line_count
    for section in split_sections(text):
        assert 1 <= section.start_line <= line_count


@PROPERTY
@given(any_text)
def test_kubectl_engine_survives_any_unicode(text: str) -> None:
    _check_kubectl(text)


@PROPERTY
@given(mutated(FIXTURE_TEXTS))
def test_kubectl_engine_survives_mutated_fixtures(text: str) -> None:
    _check_kubectl(text)


@FEW
@given(st.lists(mutated(FIXTURE_TEXTS), min_size=2, max_size=4).map("\n".join))
def test_kubectl_engine_survives_concatenated_mutated_fixtures(text: str) -> None:
    _check_kubectl(text)


# ---------------------------------------------------------------------------- redaction

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _s(alphabet: str, size: int, max_size: int | None = None) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size if max_size is None else max_size)


@st.composite
def planted_secrets(draw) -> tuple[str, list[str]]:
    """(snippet, secret values that must not survive redaction)."""
    kind = draw(st.sampled_from(["aws-secret", "akia", "bearer", "pem", "password", "github", "slack"]))
    if kind == "aws-secret":
        value = draw(_s(_B64, 40))
        spacing = draw(st.sampled_from(["=", " = ", "="]))
        key = draw(st.sampled_from(["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"]))
        return f"{key}{spacing}{value}", [value]
    if kind == "akia":
        value = "AKIA" + draw(_s(_UPPER_DIGITS, 16))
        return value, [value]
    if kind == "bearer":
        value = draw(_s(_ALNUM + "._~+/-", 20, 80).filter(lambda v: v[0].isalnum()))
        head = draw(st.sampled_from(["Authorization: Bearer ", "authorization: bearer ", "-H 'Authorization: Bearer ",
                                     '"Authorization": "Bearer ']))
        return head + value, [value]
    if kind == "pem":
        label = draw(st.sampled_from(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"]))
        body = draw(st.lists(_s(_B64, 64), min_size=1, max_size=6))
        tail = draw(_s(_B64, 4, 60))
        block = "\n".join([f"-----BEGIN {label}-----", *body, tail + "==", f"-----END {label}-----"])
        return block, [line for line in body]
    if kind == "password":
        value = draw(st.text(alphabet=_ALNUM, min_size=1, max_size=1)) + draw(
            _s(_ALNUM + "!@#%^&_-+.:/~", 7, 30))
        key = draw(st.sampled_from(["password", "PASSWORD", "db_password", "Password", "MYSQL_ROOT_PASSWORD"]))
        shape = draw(st.sampled_from(["{k}={v}", "{k}: {v}", '"{k}": "{v}"', "--{k} {v}", "{k}='{v}'"]))
        return shape.format(k=key, v=value), [value]
    if kind == "github":
        value = "ghp_" + draw(_s(_ALNUM, 36))
        return value, [value]
    value = "xoxb-" + draw(_s("0123456789", 10, 13)) + "-" + draw(_s("0123456789", 10, 13)) + "-" + draw(
        _s(_ALNUM, 24))
    return value, [value]


_SURROUNDINGS = st.one_of(
    st.text(max_size=120),
    st.lists(st.sampled_from(CASE_LINES), max_size=5).map("\n".join),
    st.sampled_from(FIXTURE_TEXTS).map(lambda t: t[:600]),
)
# What separates the secret from the random text: a secret is a token of its own.
_SEPARATORS = st.sampled_from(["\n", " ", "\t", "\n\n", "\r\n"])
# What may stand right next to it: quotes, brackets, list dashes, shell separators.
_WRAPPERS = st.sampled_from([("", ""), ('"', '"'), ("'", "'"), ("- ", ""), ("(", ")"), ("", ","), ("", ";"),
                             ("export ", ""), ("[", "]"), ("{", "}"), ("", " # comment")])


@st.composite
def texts_with_secrets(draw) -> tuple[str, list[str], str]:
    """(text, planted secret values, the random text around them joined by NULs)."""
    noise: list[str] = [draw(_SURROUNDINGS)]
    parts: list[str] = [noise[0]]
    secrets: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        snippet, values = draw(planted_secrets())
        before, after = draw(_WRAPPERS)
        snippet = before + snippet + after
        noise.append(draw(_SURROUNDINGS))
        parts += [draw(_SEPARATORS), snippet, draw(_SEPARATORS), noise[-1]]
        secrets += values
    return "".join(parts), secrets, "\0".join(noise)


def _leaks(out: str, noise: str, secret: str) -> bool:
    """Does ``secret``, or either half of it, survive in ``out`` (ignoring pieces that
    the random surrounding text happens to contain as well)?"""
    n = len(secret)
    pieces = [secret] + ([secret[: n // 2], secret[n // 2:]] if n >= 16 else [])
    return any(piece in out and piece not in noise for piece in pieces)


@PROPERTY
@given(any_text)
def test_redact_never_raises_and_reports_real_lines(text: str) -> None:
    out, found = redact(text)
    assert isinstance(out, str)
    last = text.count("\n") + 1
    for r in found:
        assert 1 <= r.line <= last
        assert MARKER_RE.fullmatch(f"[REDACTED:{r.kind}]")


@PROPERTY
@given(st.one_of(any_text, texts_with_secrets().map(lambda case: case[0]), mutated(FIXTURE_TEXTS)))
def test_redact_is_idempotent(text: str) -> None:
    once, _ = redact(text)
    twice, found_again = redact(once)
    assert twice == once
    assert not found_again, found_again


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts_with_secrets())
def test_several_planted_secrets_in_real_output_never_leak_even_in_part(case: tuple[str, list[str], str]) -> None:
    text, secrets, noise = case
    out, found = redact(text)
    assert found, "nothing was reported as redacted"
    for secret in secrets:
        assert not _leaks(out, noise, secret), f"secret {secret!r} leaked:\n{out}"
    # Every secret is replaced by a marker, not just removed.
    assert len(MARKER_RE.findall(out)) >= 1
    assert not re.search(r"\[REDACTED:[^\]]*$", out)
