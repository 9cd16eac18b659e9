"""A curator searches the pair browser, acts on a selection, and drills into agreement, in headless Chromium.

Screenshots go to test-artifacts/screenshots/console-pairs-search.png, console-agreement.png and
console-pair-answers.png.
"""

import pytest

from annotation.catalogue.models import Pair, Prompt
from curation.models import AgreementReport
from curation.services.agreement import agreement_compute
from tests.curation.console.world import make_world
from tests.frontend.console.browser import log_in, shot

pytestmark = [pytest.mark.browser]


def test_search_select_all_bulk_exclude_then_drill_into_agreement(live_server, transactional_db, browser_page, settings):
    page, errors = browser_page
    world = make_world()
    for key, text in (("extra1", "A red fox at dawn"), ("extra2", "The fox and the hound"), ("kept", "A blue whale")):
        Prompt.objects.filter(pk=world.pairs[key].prompt_id).update(content=[{"type": "text", "text": text, "format": "plain"}])
    AgreementReport.objects.filter(campaign=world.campaign).delete()
    agreement_compute(campaign=world.campaign, bootstrap=30, seed=1)
    base = live_server.url
    log_in(page, base, world.curator.username, then=f"/console/campaigns/{world.campaign.slug}/pairs/")

    page.fill("input[name=q]", "fox")
    page.click("form.filters[aria-label=Filters] button[type=submit]")
    page.wait_for_url("**q=fox**")
    rows = page.locator("#bulk-form tbody tr[data-pair]")
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        assert rows.count() == 2
    assert "A red fox at dawn" in page.inner_text("#bulk-form tbody")
    assert "secret-model-extra1-a" in page.inner_text("#bulk-form tbody")
    page.check("#select-all")
    assert page.locator('#bulk-form input[name="pair"]:checked').count() == rows.count()
    page.select_option("select[name=action]", "exclude")
    page.fill("input[name=note]", "duplicate prompts")
    shot(page, "pairs-search")
    page.click("#bulk-form button[type=submit]")
    page.wait_for_selector(".messages li")
    assert "exclude: 2 pair(s) done." in page.inner_text(".messages")
    assert "q=fox" in page.url
    assert set(Pair.objects.filter(pk__in=[world.pairs["extra1"].pk, world.pairs["extra2"].pk])
               .values_list("status", flat=True)) == {Pair.Status.EXCLUDED}

    page.goto(f"{base}/console/campaigns/{world.campaign.slug}/")
    page.click("#agreement-drilldown")
    page.wait_for_selector("#questions")
    assert page.locator('#answers tr[data-question="overall"]').count() == 6
    assert page.locator("#annotators tbody tr").count() == 3
    shot(page, "agreement")
    page.click(f'#disputed tr[data-pair="{world.pairs["split"].pk}"] a.adjudicate')
    page.wait_for_selector("#answer-table")
    assert "written seeing B on the left" in page.inner_text(".rationales")
    assert page.locator("#actions").is_visible()
    shot(page, "pair-answers")
    assert errors == []
