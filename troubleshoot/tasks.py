"""Celery tasks: thin wrappers that call one service each."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded


@shared_task(name="troubleshoot.index_update", ignore_result=True)
def index_update(full: bool = False) -> None:
    from troubleshoot.search import index_update as run

    run(full=full)


@shared_task(name="troubleshoot.analysis_run", ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def analysis_run_task(analysis_id: str) -> None:
    """Analyse one upload. A crash or a time-out ends the analysis as `failed`; a lost
    worker gets the message redelivered (acks_late), and analysis_run gives up after 3 tries."""
    from django.conf import settings

    from troubleshoot.analysis import analysis_fail, analysis_run

    try:
        analysis_run(analysis_id=analysis_id)
    except SoftTimeLimitExceeded:
        limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
        analysis_fail(analysis_id=analysis_id, message=f"The analysis took longer than {limit} s and was stopped.")
    except Exception as exc:  # noqa: BLE001 - never leave an analysis `running`
        analysis_fail(analysis_id=analysis_id, message=f"The analysis crashed: {type(exc).__name__}: {exc}"[:2000])
        raise


@shared_task(name="troubleshoot.analyses_expire", ignore_result=True)
def analyses_expire_task() -> None:
    """The hourly retention job: analyses (ANALYSIS_RETENTION_DAYS) and unanswered templates
    (KB_LEARN_RETENTION_DAYS)."""
    from troubleshoot.analysis import analyses_expire
    from troubleshoot.learning.services import unanswered_expire

    analyses_expire()
    unanswered_expire()


@shared_task(name="troubleshoot.unanswered_recheck", ignore_result=True)
def unanswered_recheck_task() -> None:
    """Let unanswered templates that the KB answers now leave the queue (cheap when nothing changed)."""
    from troubleshoot.learning.services import unanswered_recheck

    unanswered_recheck()


@shared_task(name="troubleshoot.index_check", ignore_result=True)
def index_check_task() -> None:
    """Periodic consistency check: catch up with the database, rebuilding a broken index."""
    from troubleshoot.search import index_sync

    index_sync(force=True)


from troubleshoot.slack import slack_followup  # noqa: E402,F401  (registers the task)
