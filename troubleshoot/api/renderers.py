"""A chat-ready Markdown rendering of match results (Accept: text/markdown or ?format=markdown)."""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import BaseRenderer

from troubleshoot.versions import describe as describe_version

MAX_VERSION_LINES = 3


def match_markdown(payload: dict[str, Any], *, max_matches: int = 3) -> str:
    if "error" in payload:
        return f"**Error:** {payload['error'].get('message', '')}\n"
    matches = payload.get("matches", [])
    lines: list[str] = []
    best = payload.get("best")
    if not best:
        lines.append("**No confident match.** None of the articles clearly fits this text.")
        if payload.get("read"):
            lines.append("")
            lines.append("What the paste says:")
            lines.extend(f"- {sentence}" for sentence in payload["read"])
        if matches:
            lines.append("")
            lines.append("Closest suggestions:")
            for m in matches[:max_matches]:
                why = f" — {'; '.join(m['why'])}" if m.get("why") else ""
                lines.append(f"- [{m['title']}]({m['url']}) ({m['confidence']}, score {m['score']:.2f}){why}")
        return "\n".join(lines) + "\n"
    for i, m in enumerate(matches[:max_matches]):
        lines.append(f"{'###' if i == 0 else '####'} [{m['title']}]({m['url']}) — {m['confidence']} confidence")
        if m.get("evidence"):
            e = m["evidence"][0]
            lines.append(f"Matched line {e['line']}: `{e['text'][:200].replace('`', chr(39))}`")
        if m.get("cause"):
            lines.append(f"**Likely cause:** {m['cause']['title']}")
        for row in (m.get("version_check") or [])[:MAX_VERSION_LINES]:
            lines.append(f"_{describe_version(row)}_")
        if i == 0 and m.get("fix"):
            lines.append(f"**Fix:** {m['fix']['title']}")
            lines.append("")
            lines.append(m["fix"]["body"].strip())
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


class MarkdownRenderer(BaseRenderer):
    media_type = "text/markdown"
    format = "markdown"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        if data is None:
            return b""
        if isinstance(data, dict):
            return match_markdown(data).encode("utf-8")
        return str(data).encode("utf-8")
