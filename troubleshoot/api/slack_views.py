"""POST /api/v1/integrations/slack/command: the Slack slash command endpoint.

Slack signs every request with the app's signing secret; that signature is the only
authentication here (no token, no session, no CSRF). The reply format and the
``public``/``help`` subcommands are described in ``troubleshoot.slack``.
"""

from __future__ import annotations

import logging
from urllib.parse import parse_qs

from django.conf import settings
from django.http.request import RawPostDataException
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from troubleshoot.api.errors import error_body
from troubleshoot.slack import (
    FALLBACK_MAX_CHARS,
    SlackRequestError,
    answer_for,
    help_message,
    parse_command,
    response_url_allowed,
    slack_client,
    slack_followup,
    usage_message,
    verify_request,
    wants_analysis,
    working_message,
)

log = logging.getLogger(__name__)

_ERROR = inline_serializer("SlackError", fields={"error": inline_serializer("SlackErrorBody", fields={
    "code": serializers.CharField(), "message": serializers.CharField(), "details": serializers.DictField()})})


def _error(status: int, code: str, message: str) -> Response:
    return Response(error_body(code, message), status=status)


def _base_url(request: Request) -> str:
    # KB_PUBLIC_URL, when a deployment defines it, wins over the Host Slack happened to call.
    return (getattr(settings, "KB_PUBLIC_URL", "") or request.build_absolute_uri("/")).rstrip("/")


class SlackCommandView(APIView):
    """Answer a Slack slash command with the matching articles."""

    authentication_classes: list = []  # the Slack signature is the authentication
    permission_classes = [AllowAny]
    throttle_classes: list = []
    parser_classes = [FormParser]
    renderer_classes = [JSONRenderer]

    @extend_schema(
        summary="Slack slash command",
        auth=[],
        request={"application/x-www-form-urlencoded": inline_serializer("SlackCommand", fields={
            "text": serializers.CharField(required=False, allow_blank=True,
                                          help_text="What the user typed after the command: the error text, "
                                                    "`public <text>` to answer in the channel, or `help`."),
            "response_url": serializers.URLField(required=False,
                                                 help_text="Where a late answer (long pastes) is POSTed."),
            "user_id": serializers.CharField(required=False),
            "command": serializers.CharField(required=False, help_text="The command's name, e.g. /kb."),
        })},
        responses={
            200: OpenApiResponse(
                inline_serializer("SlackMessage", fields={
                    "response_type": serializers.ChoiceField(choices=["ephemeral", "in_channel"]),
                    "text": serializers.CharField(),
                    "blocks": serializers.ListField(child=serializers.DictField()),
                }),
                description="A Block Kit message: the matches, help, usage, or for long pastes a "
                            "\"Working on it…\" note (the answer follows through response_url)."),
            401: OpenApiResponse(_ERROR, description="X-Slack-Signature or X-Slack-Request-Timestamp is missing."),
            403: OpenApiResponse(_ERROR, description="The signature does not match, or the timestamp is more than "
                                                     "5 minutes off."),
            503: OpenApiResponse(_ERROR, description="SLACK_SIGNING_SECRET is not configured."),
        },
        examples=[OpenApiExample("A pasted event", request_only=True, media_type="application/x-www-form-urlencoded",
                                 value={"command": "/kb", "user_id": "U012AB3CD",
                                        "response_url": "https://hooks.slack.com/commands/T0001/1234/abcd",
                                        "text": "0/3 nodes are available: 3 node(s) had untolerated taint "
                                                "{karpenter.sh/controller: true}."})],
        description="Form-encoded, as Slack sends slash commands, and signed with the app's signing secret "
                    "(headers X-Slack-Signature and X-Slack-Request-Timestamp). Text up to 2,000 characters is "
                    "answered at once; longer pastes, or pastes with several kubectl commands, are analysed in the "
                    "background and answered through `response_url`. The answer is ephemeral unless the text "
                    "starts with `public `.",
    )
    def post(self, request: Request) -> Response:
        secret = getattr(settings, "SLACK_SIGNING_SECRET", "") or ""
        if not secret.strip():
            return _error(503, "not_configured", "The Slack integration is not configured (SLACK_SIGNING_SECRET).")
        try:
            raw = request._request.body  # the signature covers the exact bytes Slack sent
        except RawPostDataException:
            return _error(400, "invalid", "The request body was already consumed; cannot check its signature.")
        try:
            form = {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True).items()}
        except ValueError:
            form = {}
        if form.get("ssl_check") == "1":  # Slack's certificate probe: nothing to do
            return Response(status=200)
        try:
            verify_request(raw, request.headers, secret)
        except SlackRequestError as exc:
            return _error(exc.status, exc.code, exc.message)

        command = form.get("command") or "/kb"
        client = slack_client(form)
        base_url = _base_url(request)
        action, text, public = parse_command(form.get("text", ""))
        if action == "usage":
            return Response(usage_message(command, base_url=base_url))
        if action == "help":
            return Response(help_message(command, base_url=base_url))

        if wants_analysis(text):
            response_url = form.get("response_url", "")
            queued = _redacted(text) if response_url_allowed(response_url) else None
            if queued is not None:
                try:
                    slack_followup.apply_async(args=(response_url, queued, base_url, public),
                                               kwargs={"client": client}, retry=False)
                except Exception as exc:  # noqa: BLE001 - broker down: answer now with what fits in time
                    log.warning("slack: could not queue the follow-up (%s: %s); answering synchronously",
                                type(exc).__name__, exc)
                else:
                    return Response(working_message(public))
            note = (f"Only the first {FALLBACK_MAX_CHARS:,} characters were matched: the background worker "
                    "that analyses long pastes is not reachable right now.")
            return Response(answer_for(text[:FALLBACK_MAX_CHARS], base_url=base_url, public=public,
                                       analyse=False, notes=[note] if len(text) > FALLBACK_MAX_CHARS else None,
                                       client=client))
        return Response(answer_for(text, base_url=base_url, public=public, analyse=False, client=client))


def _redacted(text: str) -> str | None:
    """The paste with secrets masked, as it is about to sit in the broker queue; None if
    redaction failed (the paste is then answered synchronously and never queued)."""
    try:
        from troubleshoot.redact import redact

        return redact(text)[0]
    except Exception:  # noqa: BLE001 - redaction trouble must not lose the answer
        log.exception("slack: redaction failed")
        return None
