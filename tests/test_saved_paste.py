""""Save & share": nothing is stored unless asked; then a redacted copy under an unguessable id."""

from __future__ import annotations

import pytest
from django.test import Client

from troubleshoot.models import SavedPaste

PASTE = ("Warning  FailedScheduling  1m  default-scheduler  0/2 nodes are available: 2 node(s) had untolerated "
         "taint {dedicated: gpu}.\nexport AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")


@pytest.mark.django_db
def test_matching_stores_nothing(client, fixture_kb):
    client.post("/match/", {"text": PASTE})
    assert SavedPaste.objects.count() == 0


@pytest.mark.django_db
def test_save_keeps_a_redacted_copy_and_shows_the_results_again(client, fixture_kb):
    response = client.post("/match/save/", {"text": PASTE})
    assert response.status_code == 302
    paste = SavedPaste.objects.get()
    assert len(paste.pk) >= 20 and response["Location"] == f"/pastes/{paste.pk}/"
    assert "wJalrXUtnFEMI" not in paste.text and "[REDACTED" in paste.text
    page = client.get(response["Location"]).content.decode()
    assert 'data-slug="taint-demo"' in page and "wJalrXUtnFEMI" not in page
    assert "1 secret was redacted" in page


@pytest.mark.django_db
def test_a_saved_paste_is_visible_only_to_its_owner_and_staff(client, fixture_kb, django_user_model):
    location = client.post("/match/save/", {"text": PASTE})["Location"]
    assert Client().get(location).status_code == 404
    staff = Client()
    staff.force_login(django_user_model.objects.create_user("boss", is_staff=True))
    assert staff.get(location).status_code == 200


@pytest.mark.django_db
def test_saving_nothing_is_refused(client, fixture_kb):
    assert client.post("/match/save/", {"text": "  "}).status_code == 400
