"""Command-line client for a shared Troubleshoot KB server (standard library only).

    kubectl describe pod web-1 | python -m troubleshoot.client match -
    python -m troubleshoot.client match error.log --json --limit 3
    python -m troubleshoot.client analyze describe.txt events.txt --wait

Configuration comes from the environment:

    KB_URL    the server, default http://127.0.0.1:8000
    KB_TOKEN  an API token, sent as "Authorization: Token <token>" (optional when the
              server allows anonymous reading; anonymous analyses are tied to the session
              cookie, which the client keeps for the run)

Exit codes: 0 success; 1 the server answered with an error or the analysis failed;
2 bad usage or empty input; 3 the server cannot be reached; 4 --wait timed out.

This module must not import Django: it runs on laptops without the project installed.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import sys
import textwrap
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any, BinaryIO

DEFAULT_URL = "http://127.0.0.1:8000"
EXIT_OK, EXIT_API, EXIT_USAGE, EXIT_CONNECT, EXIT_TIMEOUT = 0, 1, 2, 3, 4
REQUEST_TIMEOUT = 120.0
FIX_LINES = 30


class ClientError(Exception):
    def __init__(self, message: str, code: int = EXIT_API) -> None:
        super().__init__(message)
        self.message, self.code = message, code


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """urllib turns a redirected POST into a GET without its body; report redirects instead."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Client:
    def __init__(self, base_url: str, token: str = "", timeout: float = REQUEST_TIMEOUT) -> None:
        base_url = (base_url or DEFAULT_URL).strip()
        if "://" not in base_url:
            base_url = "http://" + base_url
        self.base_url = base_url.rstrip("/")
        self.token = token.strip()
        self.timeout = timeout
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect())

    def request(self, method: str, path: str, *, body: bytes | None = None,
                content_type: str | None = None) -> dict[str, Any]:
        url = self.base_url + path
        headers = {"Accept": "application/json", "User-Agent": "troubleshoot-kb-client/1"}
        if content_type:
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise ClientError(self._http_error(exc, url)) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, ConnectionRefusedError):
                why = "connection refused"
            elif isinstance(reason, TimeoutError) or "timed out" in str(reason):
                why = "timed out"
            else:
                why = str(reason)
            raise ClientError(f"cannot connect to {self.base_url} ({why}). Is the server running? "
                              "Set KB_URL to its address.", EXIT_CONNECT) from None
        except (TimeoutError, ConnectionError, OSError) as exc:
            raise ClientError(f"cannot talk to {self.base_url}: {exc}", EXIT_CONNECT) from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ClientError(f"{url} did not answer with JSON; is KB_URL ({self.base_url}) a Troubleshoot KB "
                              "server?") from None
        if not isinstance(data, dict):
            raise ClientError(f"{url} answered with unexpected JSON.")
        return data

    def _http_error(self, exc: urllib.error.HTTPError, url: str) -> str:
        if 300 <= exc.code < 400:
            location = exc.headers.get("Location", "")
            target = urllib.parse.urljoin(url, location)
            parts = urllib.parse.urlsplit(target)
            hint = f"{parts.scheme}://{parts.netloc}" if parts.netloc else target
            return f"HTTP {exc.code}: the server redirected to {target}; set KB_URL={hint}"
        try:
            raw = exc.read()
        except Exception:  # noqa: BLE001
            raw = b""
        message = ""
        try:
            data = json.loads(raw.decode("utf-8"))
            if isinstance(data, dict):
                error = data.get("error")
                if isinstance(error, dict):
                    message = str(error.get("message") or "")
                elif isinstance(data.get("detail"), str):
                    message = data["detail"]
        except (UnicodeDecodeError, ValueError):
            message = ""
        if not message:
            message = exc.reason if isinstance(exc.reason, str) else "request failed"
        hint = ""
        if exc.code == 401 and not self.token:
            hint = " (this server needs a token: set KB_TOKEN)"
        elif exc.code in (401, 403) and self.token:
            hint = " (check KB_TOKEN)"
        elif exc.code == 404 and "/api/v1/" not in message:
            hint = f" ({url})"
        return f"HTTP {exc.code}: {message}{hint}"

    def match(self, text: str, *, limit: int, language: str) -> dict[str, Any]:
        body = json.dumps({"text": text, "limit": limit, "language": language}).encode("utf-8")
        return self.request("POST", "/api/v1/match/", body=body, content_type="application/json")

    def analysis_create(self, files: list[tuple[str, bytes]]) -> dict[str, Any]:
        boundary = "kbclient" + uuid.uuid4().hex
        parts: list[bytes] = []
        for name, data in files:
            safe = name.replace('"', "'").replace("\r", " ").replace("\n", " ")
            parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{safe}\"\r\n"
                         "Content-Type: text/plain\r\n\r\n".encode() + data + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        return self.request("POST", "/api/v1/analyses/", body=b"".join(parts),
                            content_type=f"multipart/form-data; boundary={boundary}")

    def analysis_get(self, analysis_id: str) -> dict[str, Any]:
        return self.request("GET", f"/api/v1/analyses/{urllib.parse.quote(analysis_id, safe='')}/")


# --- input -----------------------------------------------------------------------------


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # PowerShell pipes UTF-16
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def _read(source: str, stdin: BinaryIO) -> bytes:
    if source == "-":
        return stdin.read()
    path = Path(source)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ClientError(f"{source}: no such file", EXIT_USAGE) from None
    except IsADirectoryError:
        raise ClientError(f"{source}: is a directory", EXIT_USAGE) from None
    except OSError as exc:
        raise ClientError(f"{source}: {exc.strerror or exc}", EXIT_USAGE) from None


# --- output ----------------------------------------------------------------------------


def _one_line(text: str, width: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _indent(text: str, prefix: str = "     ") -> str:
    lines = text.strip("\n").split("\n")
    shown = lines[:FIX_LINES]
    out = "\n".join(prefix + line if line.strip() else "" for line in shown)
    if len(lines) > FIX_LINES:
        out += f"\n{prefix}… ({len(lines) - FIX_LINES} more lines in the article)"
    return out


def format_match(payload: dict[str, Any]) -> str:
    matches = payload.get("matches") or []
    best = payload.get("best")
    out: list[str] = []
    if not best:
        out.append("No confident match: none of the articles clearly fits this text.")
        if matches:
            out.append("")
            out.append("Closest suggestions:")
            for m in matches[:5]:
                out.append(f"  - {m.get('title')} [{m.get('confidence')}, score {m.get('score', 0):.2f}]")
                out.append(f"    {m.get('url')}")
        return "\n".join(out)
    for i, m in enumerate(matches, start=1):
        if i > 1:
            out.append("")
        out.append(f"{i}. {m.get('title')}  [{m.get('confidence')} confidence, score {m.get('score', 0):.2f}]")
        out.append(f"   {m.get('url')}")
        evidence = m.get("evidence") or []
        if evidence:
            e = evidence[0]
            out.append(f"   matched line {e.get('line')}: {_one_line(e.get('text', ''))}")
        cause = m.get("cause")
        if cause:
            out.append(f"   likely cause: {cause.get('title')}")
        fix = m.get("fix")
        if fix:
            out.append(f"   fix: {fix.get('title')}")
            if i == 1 and fix.get("body"):
                out.append(_indent(fix["body"]))
                if fix.get("verify"):
                    out.append("   verify:")
                    out.append(_indent(fix["verify"]))
    return "\n".join(out)


def _absolute(url: Any, base_url: str) -> str:
    """Analyses store article links as paths; make them clickable from a terminal."""
    url = str(url or "")
    return urllib.parse.urljoin(base_url.rstrip("/") + "/", url) if url.startswith("/") and base_url else url


def format_analysis(report: dict[str, Any], base_url: str = "") -> str:
    out: list[str] = []
    summary = report.get("summary") or {}
    findings = report.get("findings") or []
    status = report.get("status")
    head = f"Analysis {report.get('id')}: {status}"
    if status == "done":
        by = summary.get("by_severity") or {}
        order = ["critical", "warning", "info"]
        counts = ", ".join(f"{by[k]} {k}" for k in sorted(by, key=lambda k: order.index(k) if k in order else 9))
        head += f", {len(findings)} finding(s)" + (f" ({counts})" if counts else "")
        if summary.get("sections") is not None:
            head += f" in {summary['sections']} section(s)"
    out.append(head)
    if report.get("url"):
        out.append(f"Report: {report['url']}")
    if report.get("error"):
        out.append(f"Error: {report['error']}")
    if findings:
        out.append("")
        out.append("Findings:")
        for f in findings:
            where = "/".join(x for x in (f.get("namespace"), f.get("name")) if x)
            out.append(f"  [{f.get('severity')}] {f.get('kind')} {where}: {f.get('problem')}")
            if f.get("detail"):
                out.append(textwrap.fill(f["detail"], width=100, initial_indent="      ",
                                         subsequent_indent="      ", break_on_hyphens=False))
            for a in (f.get("articles") or [])[:2]:
                out.append(f"      -> {a.get('title')} [{a.get('confidence')}] {_absolute(a.get('url'), base_url)}")
    matches = report.get("matches") or []
    if matches:
        out.append("")
        out.append("Articles:")
        for i, m in enumerate(matches, start=1):
            out.append(f"  {i}. {m.get('title')}  [{m.get('confidence')} confidence]")
            out.append(f"     {_absolute(m.get('url'), base_url)}")
            fix = m.get("fix")
            fix_title = fix.get("title") if isinstance(fix, dict) else fix
            if fix_title:
                out.append(f"     fix: {fix_title}")
    elif status == "done" and not findings:
        out.append("")
        out.append("Nothing found: no known problem in this output.")
    redactions = report.get("redactions") or []
    if redactions:
        out.append("")
        out.append(f"{len(redactions)} secret(s) were redacted before storing: "
                   + ", ".join(f"{r.get('kind')} (line {r.get('line')})" for r in redactions[:10]))
    return "\n".join(out)


# --- commands --------------------------------------------------------------------------


def cmd_match(client: Client, args: argparse.Namespace, stdin: BinaryIO, stdout, stderr) -> int:  # type: ignore[no-untyped-def]
    source = args.file
    if source is None:
        if getattr(stdin, "isatty", lambda: False)():
            raise ClientError("nothing to match: give a FILE, or pipe text in with '-' "
                              "(kubectl describe pod x | python -m troubleshoot.client match -)", EXIT_USAGE)
        source = "-"
    text = _decode(_read(source, stdin))
    if not text.strip():
        raise ClientError(f"nothing to match: {'stdin' if source == '-' else source} is empty", EXIT_USAGE)
    payload = client.match(text, limit=args.limit, language=args.language)
    if args.json:
        json.dump(payload, stdout, indent=2, ensure_ascii=False)
        stdout.write("\n")
    else:
        stdout.write(format_match(payload) + "\n")
    return EXIT_OK


def _progress_line(report: dict[str, Any]) -> str:
    percent = int(round(float(report.get("progress") or 0) * 100))
    message = report.get("progress_message") or ""
    return f"{report.get('status')} {percent:3d}%  {message}".rstrip()


def cmd_analyze(client: Client, args: argparse.Namespace, stdin: BinaryIO, stdout, stderr) -> int:  # type: ignore[no-untyped-def]
    files: list[tuple[str, bytes]] = []
    for source in args.files:
        data = _read(source, stdin)
        files.append(("stdin.txt" if source == "-" else Path(source).name, data))
    if all(not data.strip() for _, data in files):
        names = ", ".join("stdin" if s == "-" else s for s in args.files)
        raise ClientError(f"nothing to analyse: {names} {'is' if len(files) == 1 else 'are'} empty", EXIT_USAGE)
    created = client.analysis_create(files)
    analysis_id = str(created.get("id") or "")
    if not analysis_id:
        raise ClientError("the server did not return an analysis id")
    if not args.wait:
        if args.json:
            json.dump(created, stdout, indent=2)
            stdout.write("\n")
        else:
            stdout.write(f"Analysis {analysis_id} is {created.get('status')}: {created.get('url')}\n"
                         f"Run with --wait to follow it here.\n")
        return EXIT_OK
    deadline = time.monotonic() + args.timeout
    delay, last = 0.5, ""
    while True:
        report = client.analysis_get(analysis_id)
        line = _progress_line(report)
        if line != last:
            stderr.write(line + "\n")
            stderr.flush()
            last = line
        if report.get("status") in ("done", "failed"):
            break
        if time.monotonic() + delay > deadline:
            stderr.write(f"error: gave up waiting after {args.timeout:g} s; the analysis continues on the server: "
                         f"{report.get('url') or created.get('url')}\n")
            return EXIT_TIMEOUT
        time.sleep(delay)
        delay = min(delay * 1.5, 3.0)
    if args.json:
        json.dump(report, stdout, indent=2, ensure_ascii=False)
        stdout.write("\n")
    else:
        stdout.write(format_analysis(report, client.base_url) + "\n")
    if report.get("status") == "failed":
        stderr.write(f"error: the analysis failed: {report.get('error') or 'no reason given'}\n")
        return EXIT_API
    return EXIT_OK


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m troubleshoot.client",
        description="Match error text or analyse kubectl output against a Troubleshoot KB server.",
        epilog="Environment: KB_URL (default http://127.0.0.1:8000), KB_TOKEN (API token). Exit codes: 0 ok, "
               "1 server error or failed analysis, 2 usage or empty input, 3 server unreachable, 4 timed out.",
    )
    parser.add_argument("--url", help="the server (overrides KB_URL)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{match,analyze}")

    match = sub.add_parser("match", help="find the articles for an error text",
                           description="Match a file, or stdin with '-', against the knowledge base.")
    match.add_argument("file", nargs="?", metavar="FILE|-", help="the text to match; '-' reads stdin")
    match.add_argument("--json", action="store_true", help="print the API's JSON")
    match.add_argument("--limit", type=_positive, default=5, help="how many articles at most (default 5)")
    match.add_argument("--language", default="en", help="article language: en or zh-hans (default en)")
    match.set_defaults(handler=cmd_match)

    analyze = sub.add_parser("analyze", help="analyse kubectl output files",
                             description="Upload kubectl output ('-' reads stdin) for an analysis.")
    analyze.add_argument("files", nargs="+", metavar="FILE", help="kubectl output files")
    analyze.add_argument("--json", action="store_true", help="print the API's JSON")
    analyze.add_argument("--wait", action="store_true", help="wait for the result (progress goes to stderr)")
    analyze.add_argument("--timeout", type=float, default=600.0, help="seconds to wait with --wait (default 600)")
    analyze.set_defaults(handler=cmd_analyze)
    return parser


def main(argv: list[str] | None = None, *, stdin: BinaryIO | None = None, stdout=None, stderr=None) -> int:  # type: ignore[no-untyped-def]
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    args = build_parser().parse_args(argv)
    client = Client(args.url or os.environ.get("KB_URL") or DEFAULT_URL, os.environ.get("KB_TOKEN", ""))
    try:
        return args.handler(client, args, stdin, stdout, stderr)
    except ClientError as exc:
        stderr.write(f"error: {exc.message}\n")
        return exc.code
    except KeyboardInterrupt:
        stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
