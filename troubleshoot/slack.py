"""Slack slash command support: request signing, Block Kit answers and the follow-up task.

How the command behaves (``/kb`` stands for whatever name the Slack app gives it):

* ``/kb <error text>`` answers privately (``response_type: ephemeral``) with the best
  matching articles: title linked to the article, confidence, the line of the paste that
  matched, the likely cause and the first step of its fix.
* ``/kb public <error text>`` posts the same answer to the channel (``in_channel``).
* ``/kb help`` explains this; ``/kb`` with no text explains the usage.
* Long pastes (over ``SYNC_MAX_CHARS`` characters, or several ``kubectl`` commands) are
  answered through ``response_url`` by the ``slack_followup`` Celery task, which runs a
  full kubectl analysis instead of a plain match.

The view lives in ``troubleshoot.api.slack_views``; these helpers have no HTTP layer.
"""

from __future__ import annotations

import json
import logging
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from celery import shared_task
from slack_sdk.signature import Clock, SignatureVerifier

from troubleshoot.versions import describe as describe_version

log = logging.getLogger(__name__)

# Slack refuses requests older than this and so do we (replay protection).
MAX_AGE_SECONDS = 5 * 60
# Text up to this length is matched while Slack waits (it gives up after 3 s).
SYNC_MAX_CHARS = 2000
# What the fallback (no worker reachable) matches synchronously, at most.
FALLBACK_MAX_CHARS = 20_000
# Block Kit limits.
SECTION_MAX = 3000
CONTEXT_MAX = 2000
MAX_BLOCKS = 50
MAX_MATCHES = 3
# Follow-ups only ever go to Slack; a signed request cannot make us POST elsewhere.
RESPONSE_HOSTS = ("slack.com", "slack-gov.com")
POST_TIMEOUT = 10

CONFIDENCE_LABEL = {"high": "High confidence", "medium": "Medium confidence", "low": "Low confidence"}
KUBECTL_COMMAND_RE = re.compile(r"^\s*(?:[$#>%]\s*)?kubectl\s+\S", re.MULTILINE)


class SlackRequestError(Exception):
    """A request that is not a genuine, fresh Slack request. ``status`` is 401 or 403."""

    def __init__(self, message: str, *, status: int, code: str) -> None:
        super().__init__(message)
        self.message, self.status, self.code = message, status, code


class _FixedClock(Clock):
    def __init__(self, now: float) -> None:
        self._now = now

    def now(self) -> float:
        return self._now


def verify_request(body: bytes, headers: Mapping[str, str], secret: str, now: float | None = None) -> None:
    """Check Slack's ``X-Slack-Signature`` over the raw body; raise SlackRequestError if it fails.

    401 when the signature headers are missing, 403 when the timestamp is not a number or is
    more than 5 minutes away from ``now`` or when the signature does not match."""
    lowered = {str(k).lower(): v for k, v in headers.items()}
    timestamp = (lowered.get("x-slack-request-timestamp") or "").strip()
    signature = (lowered.get("x-slack-signature") or "").strip()
    if not timestamp or not signature:
        raise SlackRequestError("The X-Slack-Signature and X-Slack-Request-Timestamp headers are required.",
                                status=401, code="not_authenticated")
    current = time.time() if now is None else now
    try:
        sent = int(timestamp)
    except ValueError:
        raise SlackRequestError("X-Slack-Request-Timestamp is not a Unix time.", status=403,
                                code="invalid_signature") from None
    if abs(current - sent) > MAX_AGE_SECONDS:
        raise SlackRequestError("The request timestamp is more than 5 minutes old (or in the future).",
                                status=403, code="stale_request")
    verifier = SignatureVerifier(secret, clock=_FixedClock(current))
    try:
        valid = verifier.is_valid(body=body, timestamp=timestamp, signature=signature)
    except (UnicodeDecodeError, ValueError):  # the SDK decodes the body as UTF-8
        valid = False
    if not valid:
        raise SlackRequestError("The Slack signature does not match the request.", status=403,
                                code="invalid_signature")


# --- reading what the user typed -------------------------------------------------------

_SLACK_MARKUP_RE = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")
_FENCE_LINE_RE = re.compile(r"^\s*```[\w+-]*\s*$")


def _unmarkup(match: re.Match[str]) -> str:
    target, label = match.group(1), match.group(2)
    if target.startswith(("@", "#")):
        return (target[0] + label) if label else target
    if target.startswith("!"):
        return "@" + (label or target[1:].split("^")[0])
    return label or target


def _unslack(text: str) -> str:
    text = _SLACK_MARKUP_RE.sub(_unmarkup, text or "")
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").strip()


def _strip_fences(text: str) -> str:
    # A paste wrapped in ``` arrives as "```text```" or with the fences on their own lines.
    if text.startswith("```"):
        text = re.sub(r"^```(?:[\w+-]*[ \t]*\n)?", "", text)
    if text.endswith("```"):
        text = re.sub(r"\n?```$", "", text)
    return "\n".join(line for line in text.split("\n") if not _FENCE_LINE_RE.match(line)).strip()


def clean_text(text: str) -> str:
    """Undo Slack's formatting of slash command text: ``&lt;none&gt;`` back to ``<none>``,
    ``<https://x|x>`` links back to plain text, and code fences around a paste dropped."""
    return _strip_fences(_unslack(text))


def parse_command(text: str) -> tuple[str, str, bool]:
    """``(action, text, public)``: action is "usage" (nothing typed), "help" or "match";
    a leading word ``public`` asks for an answer the whole channel sees."""
    text = _unslack(text)
    public = False
    first = re.match(r"(\S+)(?:\s+(.*))?\Z", text, re.S)
    if first and first.group(1).lower() == "public":
        public, text = True, (first.group(2) or "").strip()
    text = _strip_fences(text)
    if not text:
        return "usage", "", public
    if text.lower() in ("help", "-h", "--help", "?"):
        return "help", "", public
    return "match", text, public


def wants_analysis(text: str) -> bool:
    """Long pastes and pastes holding several kubectl commands get a full analysis."""
    return len(text) > SYNC_MAX_CHARS or len(KUBECTL_COMMAND_RE.findall(text)) >= 2


def search_query(text: str) -> str:
    """A short query for the KB search page: the first line that looks like an error."""
    lines = [line.strip() for line in (text or "").split("\n") if line.strip()]
    for line in lines:
        if re.search(r"error|fail|denied|unable|invalid|not found|refused|timeout|warning|backoff", line, re.I):
            return " ".join(line.split())[:150]
    return " ".join(lines[0].split())[:150] if lines else ""


# --- Block Kit -------------------------------------------------------------------------


def escape(text: str) -> str:
    """Slack mrkdwn needs &, < and > escaped; nothing else."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def absolute(url: str, base_url: str) -> str:
    if not url or urllib.parse.urlsplit(url).scheme:
        return url
    return base_url.rstrip("/") + "/" + url.lstrip("/")


def link(url: str, label: str) -> str:
    # "|" and ">" would end the link; the label is already escaped.
    return f"<{url.replace('|', '%7C').replace('>', '%3E')}|{label.replace('|', '¦')}>"


def _inline_markdown(text: str) -> str:
    """Article Markdown (escaped) to Slack mrkdwn: **bold** → *bold*, [a](b) → <b|a>."""
    text = re.sub(r"\*\*(.+?)\*\*", r"*\1*", text)
    text = re.sub(r"(?<![\w*])__(.+?)__(?![\w*])", r"*\1*", text)
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", lambda m: link(m.group(2), m.group(1)), text)


def _blocks_of(markdown: str) -> list[tuple[str, str]]:
    """Split Markdown into ("code", body) and ("text", paragraph) pieces, in order."""
    pieces: list[tuple[str, str]] = []
    lines = (markdown or "").replace("\r\n", "\n").split("\n")
    i = 0
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            pieces.append(("text", " ".join(s.strip() for s in paragraph)))
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            flush()
            marker, body = fence.group(1), []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker):
                body.append(lines[i])
                i += 1
            pieces.append(("code", "\n".join(body).strip("\n")))
        elif not line.strip():
            flush()
        else:
            paragraph.append(line)
        i += 1
    flush()
    return pieces


def first_step(markdown: str, limit: int) -> str:
    """The first step of a fix as mrkdwn: the first code block, or the first paragraph
    (with the code block it introduces when it ends with a colon), within ``limit``."""
    pieces = _blocks_of(markdown)
    if not pieces:
        return ""
    chosen = [pieces[0]]
    if pieces[0][0] == "text" and pieces[0][1].rstrip().endswith(":") and len(pieces) > 1 and pieces[1][0] == "code":
        chosen.append(pieces[1])
    out: list[str] = []
    room = limit
    for kind, body in chosen:
        if kind == "text":
            piece = truncate(_inline_markdown(escape(body)), room)
        else:
            code = escape(body)
            budget = room - 8  # the fences and a newline
            if budget < 40:
                break
            if len(code) > budget:
                code = code[: budget - 2].rstrip() + "\n…"
            piece = f"```{code}```"
        out.append(piece)
        room -= len(piece) + 1
        if room <= 0:
            break
    return "\n".join(out)


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": truncate(text, SECTION_MAX)}}


def _context(*texts: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": truncate(t, CONTEXT_MAX)}
                                            for t in texts[:10] if t]}


def _message(blocks: list[dict[str, Any]], fallback: str, public: bool) -> dict[str, Any]:
    if len(blocks) > MAX_BLOCKS:
        blocks = blocks[: MAX_BLOCKS - 1] + [_context("(Some results were left out: Slack shows at most 50 blocks.)")]
    return {"response_type": "in_channel" if public else "ephemeral", "text": truncate(fallback, 3000),
            "blocks": blocks}


def _search_url(base_url: str, query: str) -> str:
    url = absolute("/search/", base_url)
    return f"{url}?{urllib.parse.urlencode({'q': query})}" if query else url


def _match_blocks(match: dict[str, Any], base_url: str, *, step_limit: int) -> list[dict[str, Any]]:
    url = absolute(match.get("url") or "", base_url)
    title = escape(truncate(match.get("title") or match.get("slug") or "article", 300))
    confidence = CONFIDENCE_LABEL.get(match.get("confidence", ""), str(match.get("confidence", "")))
    head = f"*{link(url, title)}*" if url else f"*{title}*"
    score = match.get("score")
    head += f"\n{confidence}" + (f" · score {score:.2f}" if isinstance(score, (int, float)) else "")
    cause = match.get("cause")
    if cause:
        cause_title = escape(truncate(cause.get("title") or "", 500))
        number = cause.get("number")
        head += "\n*Likely cause:* " + (link(f"{url}#cause-{number}", cause_title) if url and number else cause_title)
    blocks = [_section(head)]
    versions = [escape(describe_version(row)) for row in (match.get("version_check") or [])[:3]]
    if versions:
        blocks.append(_context(*versions))
    evidence = match.get("evidence") or []
    if evidence:
        e = evidence[0]
        line = escape(truncate(" ".join(str(e.get("text", "")).split()), 300)).replace("`", "'")
        where = f"Matched line {e['line']}" if e.get("line") else "Matched"
        blocks.append(_context(f"{where}: `{line}`"))
    fix = match.get("fix")
    if fix and isinstance(fix, dict):
        fix_title = escape(truncate(fix.get("title") or "Fix", 300))
        lead = f"*First step — {fix_title}*\n"
        step = first_step(fix.get("body") or "", min(step_limit, SECTION_MAX - len(lead) - 40))
        anchor = f"#cause-{cause['number']}" if cause and cause.get("number") else ""
        more = f"\n{link(url + anchor, 'Full fix in the article')}" if url else ""
        blocks.append(_section(lead + (step or "_See the article._") + more))
    elif isinstance(fix, str) and fix:  # analyses keep only the fix title
        blocks.append(_section(f"*Fix:* {escape(truncate(fix, 500))}"))
    return blocks


def blocks_for_match(payload: dict[str, Any], *, base_url: str, public: bool = False, query: str = "",
                     notes: list[str] | None = None, max_matches: int = MAX_MATCHES) -> dict[str, Any]:
    """A slash command answer for a ``match_payload`` result.

    ``public`` posts it to the channel instead of only to the user; ``query`` is used for the
    search link; ``notes`` are shown in a context block at the end."""
    matches = payload.get("matches") or []
    best = payload.get("best")
    blocks: list[dict[str, Any]] = []
    search = link(_search_url(base_url, query), "Search the knowledge base")
    if not best:
        blocks.append(_section("*No confident match.* None of the articles clearly fits this text."))
        if payload.get("read"):
            blocks.append(_section("What the paste says:\n" + "\n".join(
                f"• {escape(truncate(sentence, 300))}" for sentence in payload["read"][:5])))
        if matches:
            suggestions = "\n".join(
                f"• {link(absolute(m['url'], base_url), escape(truncate(m['title'], 200)))} "
                f"({CONFIDENCE_LABEL.get(m.get('confidence', ''), m.get('confidence', ''))})"
                + (f" — {escape(truncate('; '.join(m['why']), 300))}" if m.get("why") else "")
                for m in matches[:max_matches])
            blocks.append(_section("Closest suggestions:\n" + suggestions))
        blocks.append(_context(f"{search} · paste more of the output (the events or the full error) for a "
                               "better match."))
        fallback = "No confident match. " + (f"Closest: {matches[0]['title']}" if matches else "")
    else:
        shown = matches[:max_matches]
        for i, match in enumerate(shown):
            if i:
                blocks.append({"type": "divider"})
            blocks.extend(_match_blocks(match, base_url, step_limit=2400 if i == 0 else 900))
        more = f"Showing {len(shown)} of {len(matches)} matches · " if len(matches) > len(shown) else ""
        blocks.append(_context(more + search))
        fallback = f"{best['title']} ({best.get('confidence', '')} confidence)"
    if notes:
        blocks.append(_context(*notes))
    return _message(blocks, fallback, public)


def blocks_for_analysis(result: dict[str, Any], *, base_url: str, public: bool = False,
                        query: str = "") -> dict[str, Any]:
    """A follow-up answer for an ``analysis_compute`` result: a summary, the worst findings,
    then the overall matches in the same form as ``blocks_for_match``."""
    summary = result.get("summary") or {}
    findings = result.get("findings") or []
    by_severity = summary.get("by_severity") or {}
    order = {"critical": 0, "warning": 1, "info": 2}
    counts = ", ".join(f"{n} {sev}" for sev, n in sorted(by_severity.items(), key=lambda kv: order.get(kv[0], 9)))
    head = (f"*Analysis of {summary.get('sections', 0)} kubectl section(s):* "
            f"{len(findings)} finding(s)" + (f" ({counts})" if counts else "") + ".")
    lines = []
    for f in findings[:8]:
        article = (f.get("articles") or [None])[0]
        where = f"{f.get('kind', '')} {f.get('namespace') + '/' if f.get('namespace') else ''}{f.get('name', '')}"
        detail = f.get("detail") or f.get("problem", "")
        if f.get("name") and f["name"] not in detail:
            detail = f"{where.strip()}: {detail}"
        line = f"• *{escape(f.get('severity', ''))}* {escape(truncate(detail, 220))}"
        if article:
            line += " → " + link(absolute(article["url"], base_url), escape(truncate(article["title"], 120)))
        lines.append(line)
    if len(findings) > 8:
        lines.append(f"_…and {len(findings) - 8} more._")
    top = [_section(head + ("\n" + "\n".join(lines) if lines else ""))]
    # Evidence line numbers count within each finding's evidence, not the paste: drop them.
    matches = [{**m, "evidence": [{**e, "line": None} for e in (m.get("evidence") or [])[:1]]}
               for m in result.get("matches") or []]
    best = matches[0] if matches and matches[0].get("confidence") != "low" else None
    answer = blocks_for_match({"matches": matches, "best": best}, base_url=base_url, public=public, query=query)
    if not findings and not best:
        return answer
    answer["blocks"] = (top + [{"type": "divider"}] + answer["blocks"])[:MAX_BLOCKS]
    answer["text"] = truncate(f"{len(findings)} finding(s). " + answer["text"], 3000)
    return answer


def help_message(command: str = "/kb", *, base_url: str = "") -> dict[str, Any]:
    command = escape(command or "/kb")
    text = (
        f"*{command} — find the Troubleshoot KB article for an error*\n"
        f"• `{command} <error text>`: paste an event, a log line or `kubectl describe` output; "
        "the answer is only visible to you.\n"
        f"• `{command} public <error text>`: post the answer to the channel.\n"
        f"• `{command} help`: this message.\n"
        f"Pastes over {SYNC_MAX_CHARS:,} characters, or with several `kubectl` commands, get a full kubectl "
        "analysis; the answer follows a few seconds later."
    )
    blocks = [_section(text)]
    if base_url:
        blocks.append(_context(link(_search_url(base_url, ""), "Browse the knowledge base")))
    return _message(blocks, f"{command} <error text> finds the matching troubleshooting article.", False)


def usage_message(command: str = "/kb", *, base_url: str = "") -> dict[str, Any]:
    command = escape(command or "/kb")
    blocks = [_section(f"Paste the error after the command, for example:\n"
                       f"`{command} 0/3 nodes are available: 3 node(s) had untolerated taint "
                       "{karpenter.sh/controller: true}`\n"
                       f"`{command} help` lists the options.")]
    return _message(blocks, f"Usage: {command} <error text>", False)


def working_message(public: bool) -> dict[str, Any]:
    where = "here" if public else "here (only you will see it)"
    return _message([_section(f"Working on it… this is a long paste, so the analysis runs in the background; "
                              f"the answer will appear {where} in a few seconds.")],
                    "Working on it…", False)


def error_message(message: str) -> dict[str, Any]:
    return _message([_section(f":warning: {escape(truncate(message, 2500))}")], truncate(message, 300), False)


# --- computing an answer ---------------------------------------------------------------


def answer_for(text: str, *, base_url: str, public: bool = False, analyse: bool | None = None,
               notes: list[str] | None = None, client: str = "slack:unknown") -> dict[str, Any]:
    """Match (or analyse) ``text`` and build the Slack message for it. ``client`` (``slack:<team>:<user>``)
    counts who asked when the answer is not confident (see troubleshoot.learning)."""
    from troubleshoot.learning.services import analysis_observed, match_observed
    from troubleshoot.matching import InputTooLarge, match_payload, match_text

    query = search_query(text)
    if analyse is None:
        analyse = wants_analysis(text)
    if analyse:
        from troubleshoot.analysis import analysis_compute

        result = analysis_compute(text)
        analysis_observed(result=result, client=client, surface="slack")
        return blocks_for_analysis(result, base_url=base_url, public=public, query=query)
    try:
        outcome = match_text(text=text, limit=5, language="en")
    except InputTooLarge as exc:
        return error_message(str(exc))
    payload = match_payload(outcome)
    match_observed(text=text, payload=payload, client=client, surface="slack")
    return blocks_for_match(payload, base_url=base_url, public=public, query=query, notes=notes)


def slack_client(form: dict[str, str]) -> str:
    """The client key of a slash command: its workspace and user (hashed before storing)."""
    return f"slack:{form.get('team_id') or '-'}:{form.get('user_id') or '-'}"


def response_url_allowed(url: str) -> bool:
    parts = urllib.parse.urlsplit(url or "")
    host = (parts.hostname or "").lower()
    return parts.scheme == "https" and any(host == h or host.endswith("." + h) for h in RESPONSE_HOSTS)


def post_to_response_url(response_url: str, message: dict[str, Any]) -> str:
    """POST a message to Slack's response_url; never raises.

    Returns "ok", "refused" (Slack answered with an error: the message itself is at fault)
    or "failed" (not a Slack URL, or the network let us down); failures are logged."""
    if not response_url_allowed(response_url):
        log.warning("slack: refusing to post to %r (not an https Slack URL)", (response_url or "")[:200])
        return "failed"
    data = json.dumps(message).encode("utf-8")
    request = urllib.request.Request(response_url, data=data, method="POST",
                                     headers={"Content-Type": "application/json; charset=utf-8"})
    try:
        with urllib.request.urlopen(request, timeout=POST_TIMEOUT) as response:  # noqa: S310 - https Slack only
            body = response.read(2000).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        try:
            detail = exc.read(500).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            detail = ""
        log.warning("slack: response_url answered HTTP %s: %s", exc.code, detail)
        return "refused" if 400 <= exc.code < 500 else "failed"
    except Exception as exc:  # noqa: BLE001 - network trouble must not crash the task
        log.warning("slack: posting to response_url failed: %s: %s", type(exc).__name__, exc)
        return "failed"
    if body.strip().startswith("{"):
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = {}
        if isinstance(parsed, dict) and parsed.get("ok") is False:
            log.warning("slack: response_url refused the message: %s", parsed.get("error"))
            return "refused"
    return "ok"


@shared_task(name="troubleshoot.slack_followup", ignore_result=True)
def slack_followup(response_url: str, text: str, base_url: str, public: bool = False,
                   client: str = "slack:unknown") -> None:
    """Answer a long slash command paste through ``response_url`` (a kubectl analysis for
    long or multi-command pastes, a plain match otherwise). Never raises: failures are
    logged, and reported to the user when Slack can still be reached."""
    try:
        message = answer_for(text, base_url=base_url, public=public, client=client)
    except Exception as exc:  # noqa: BLE001 - report the failure to the user instead
        log.exception("slack: follow-up analysis failed")
        message = error_message(f"Sorry, the analysis failed ({type(exc).__name__}). Try a shorter paste, "
                                "or upload the file on the website.")
    try:
        if post_to_response_url(response_url, message) == "refused" and message.get("blocks"):
            # A message Slack refuses (e.g. invalid_blocks) still gets its plain-text version through.
            post_to_response_url(response_url, {"response_type": message.get("response_type", "ephemeral"),
                                                "text": message.get("text") or "See the knowledge base."})
    except Exception:  # noqa: BLE001 - a Celery task that raises would only be retried pointlessly
        log.exception("slack: follow-up delivery failed")
