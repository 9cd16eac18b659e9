"""Flash messages (Django's MessageMiddleware, session storage): stored when a view adds one, shown once on the next page
that reads them, kept across requests that never look (the API's)."""

import pytest
from django.urls import reverse

from annotation.catalogue.services.campaigns import campaign_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

NOTHING_LEFT = "Nothing is left for you in this campaign. Thank you!"


def test_a_message_waits_through_api_requests_and_is_shown_once(client):
    annotator = UserFactory()
    campaign = campaign_create(slug="empty", kind="text-to-text", preset="ab-tie", overlap=3)
    campaign.members.add(annotator)
    client.force_login(annotator)

    added = client.post(reverse("workspace-next", args=[campaign.slug]))  # nothing to claim: a message, a redirect
    assert added.status_code == 302
    api = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/", HTTP_X_CSRFTOKEN="unused")
    assert api.status_code in (204, 403)  # answered without reading the messages either way

    shown = client.get(reverse("workspace-queue", args=[campaign.slug]))
    assert NOTHING_LEFT in shown.content.decode()
    again = client.get(reverse("workspace-queue", args=[campaign.slug]))
    assert NOTHING_LEFT not in again.content.decode()
