from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client


@pytest.fixture
def editor(django_user_model):
    """A logged-in editor: may add, change and delete articles (and so work the queue)."""
    user = django_user_model.objects.create_user("editor")
    user.user_permissions.add(*Permission.objects.filter(
        codename__in=["add_article", "change_article", "delete_article"]))
    c = Client()
    c.force_login(user)
    return c
