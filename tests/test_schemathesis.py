"""Property-based API run: schemathesis generates requests from the OpenAPI schema; none may get a 5xx."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from kbapp.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


@pytest.fixture
def kb(transactional_db):
    from django.conf import settings as django_settings

    from troubleshoot.services import kb_import

    kb_import(root=django_settings.BASE_DIR / "tests" / "fixtures" / "kb")


@schema.exclude(path_regex="integrations/slack").parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_the_schema_allows_gets_a_server_error(case, kb):
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.status_code, response.text[:500])
