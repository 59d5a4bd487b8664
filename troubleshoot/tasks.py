"""Celery tasks: thin wrappers that call one service each."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="troubleshoot.index_update", ignore_result=True)
def index_update(full: bool = False) -> None:
    from troubleshoot.search import index_update as run

    run(full=full)
