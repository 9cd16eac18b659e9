"""One navigation bar on every page: the same links wherever a person is, by role."""

import re

import pytest
from django.urls import reverse

from tests.curation.leaderboard.world import make_leaderboard_world
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

NAV = re.compile(r'<nav aria-label="Main">(.*?)</nav>', re.S)
CURATOR_LINKS = ["My campaigns", "My work", "Console", "Dashboards", "Leaderboard", "Imports", "Releases", "New campaign",
                 "Judges", "People"]


def nav_links(html: str) -> list[str]:
    (nav,) = NAV.findall(html)
    return re.findall(r">([^<]+)</a>", nav)


def test_a_curator_sees_the_same_navigation_bar_on_every_area(client):
    """Workspace, console, dashboards, leaderboard, imports and releases pages share one bar."""
    campaign = make_leaderboard_world()
    curator = CuratorFactory()
    campaign.members.add(curator)
    client.force_login(curator)
    pages = [reverse("workspace-campaigns"), reverse("workspace-me"), reverse("console-home"),
             reverse("console-campaign", args=[campaign.slug]), reverse("console-pairs", args=[campaign.slug]),
             reverse("console-dashboards"), reverse("console-leaderboard"), reverse("imports-upload"),
             reverse("release-list")]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert nav_links(response.content.decode()) == CURATOR_LINKS, url


def test_an_annotator_sees_only_their_own_links(client):
    """No console, dashboards or releases link reaches an annotator's bar."""
    campaign = make_leaderboard_world()
    annotator = UserFactory(username="nav-annotator")
    campaign.members.add(annotator)
    client.force_login(annotator)
    for url in (reverse("workspace-campaigns"), reverse("workspace-me"), reverse("workspace-queue", args=[campaign.slug])):
        assert nav_links(client.get(url).content.decode()) == ["My campaigns", "My work"], url


def test_the_console_campaign_list_shows_each_campaigns_progress(client):
    """Pairs in annotation, complete pairs and annotations done over required, as numbers and a bar."""
    campaign = make_leaderboard_world()
    campaign.pairs.filter(external_id__in=["lb-t2i-p0", "lb-t2i-p1"]).update(status="complete", annotations_done=3)
    campaign.pairs.filter(external_id="lb-t2i-p2").update(annotations_done=1)
    client.force_login(CuratorFactory())
    html = client.get(reverse("console-home")).content.decode()
    row = html[html.index("lb-t2i</span>"):]
    row = row[: row.index("</tr>")]
    # 7 pairs in annotation (the excluded one is not), each needing 3: 21 required, 3 + 3 + 1 done.
    assert re.findall(r'<td class="num[^"]*">(\d+)</td>', row) == ["8", "7", "2"]
    assert "7 / 21 (33.3%)" in row
    assert '<progress max="1" value="0.3333"' in row
