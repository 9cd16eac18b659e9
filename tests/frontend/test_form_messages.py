"""What a person reads when a form or a list speaks: field patterns explain themselves, names are links."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.factories import CampaignFactory, CuratorFactory, UserFactory

TEMPLATES = Path(__file__).resolve().parents[2] / "frontend" / "templates"


def test_every_input_with_a_pattern_says_which_pattern_it_wants():
    """A slug or version field said only "Please match the requested format."; the browser adds an input's title."""
    missing = []
    for path in TEMPLATES.rglob("*.html"):
        for tag in re.findall(r"<input\b[^>]*>", path.read_text()):
            if " pattern=" in tag and " title=" not in tag:
                missing.append(f"{path.relative_to(TEMPLATES)}: {tag}")
    assert not missing, missing


@pytest.mark.django_db
def test_campaign_names_on_the_home_page_are_links_for_members_and_curators(client):
    campaign = CampaignFactory(slug="home-link", name="Home link")
    rater = UserFactory()
    campaign.members.add(rater)
    client.force_login(rater)
    page = client.get(reverse("home")).content.decode()
    assert f'<a href="{reverse("workspace-queue", args=["home-link"])}">Home link</a>' in page
    client.force_login(CuratorFactory())
    page = client.get(reverse("home")).content.decode()
    assert f'<a href="{reverse("console-campaign", args=["home-link"])}">Home link</a>' in page
