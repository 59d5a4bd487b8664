"""Celery application. Without CELERY_BROKER_URL, tasks run inline (eager) in the caller."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kbapp.settings")

app = Celery("kbapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
