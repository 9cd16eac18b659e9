"""A curator walks the console in headless Chromium against the live server.

Funnel → pair browser (filters, keyset pages) → pair detail (model names, verdicts, annotations)
→ actions (exclude, restore a dropped pair, mark gold) → dashboards with charts drawn from the real
numbers → CSV download. Screenshots go to test-artifacts/screenshots/console-*.png.
"""

import csv
import io
from pathlib import Path

import pytest
from django.core.cache import cache

from annotation.catalogue.models import Pair
from tests.curation.console.world import make_pair, make_world
from tests.frontend.console.browser import log_in, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_curator_runs_the_console_end_to_end(live_server, transactional_db, browser_page):
    cache.clear()
    page, errors = browser_page
    world = make_world()
    for i in range(55):
        make_pair(world.campaign, f"bulk{i:02}", source="oneig")
    base = live_server.url
    log_in(page, base, world.curator.username, then="/console/")
    assert page.locator("text=Console T2I").count() == 1
    shot(page, "home")

    page.click("text=Console T2I")
    funnel = page.locator("ol.funnel")
    assert funnel.locator("[data-stage=imported] .big").inner_text() == "63"
    assert funnel.locator("[data-stage=annotation] .big").inner_text() == "5.0%"
    assert "1 dropped as easy" in funnel.locator("[data-stage=prefilter]").inner_text()
    assert "1 disputed" in funnel.locator("[data-stage=consensus]").inner_text()
    shot(page, "funnel")

    page.click("text=Browse pairs")
    assert page.locator("table.pairs tbody tr").count() == 50
    page.click("a[rel=next]")
    assert page.locator("table.pairs tbody tr").count() == 13
    page.click("a[rel=first]")
    page.select_option("select[name=source]", "wise")
    page.click("form.filters button[type=submit]")
    assert sorted(page.locator("table.pairs tbody tr td.pair-id").all_inner_texts()) == [
        "console-t2i-dropped", "console-t2i-split",
    ]
    page.select_option("select[name=source]", "")
    page.fill("input[name=human_agreement_max]", "0.5")
    page.click("form.filters button[type=submit]")
    assert page.locator("table.pairs tbody tr td.pair-id").all_inner_texts() == ["console-t2i-split"]
    shot(page, "pairs-filtered")

    page.click("text=console-t2i-split")
    assert page.locator("[data-testid=model-a]").inner_text() == "secret-model-split-a"
    assert page.locator("table.verdicts tbody tr").count() == 4
    assert page.locator("#answer-table thead th").count() == 4
    assert "rationale by console-t2i-bob" in page.locator(".rationales").inner_text()
    shot(page, "pair-detail")

    page.fill("form[action$='/mark-gold/'] input[name=note]", "clear after review")
    page.select_option("form[action$='/mark-gold/'] select[name=side]", "B")
    page.click("form[action$='/mark-gold/'] button")
    assert "Marked gold; the expected answer is B." in page.locator(".messages").inner_text()
    assert page.locator("[data-testid=gold]").inner_text() == "★ gold: B"
    page.fill("form[action$='/exclude/'] input[name=reason]", "prompt is ambiguous")
    page.click("form[action$='/exclude/'] button")
    assert page.locator("[data-testid=pair-status]").inner_text() == "Excluded by a curator"
    assert "excluded by console-t2i-curator: prompt is ambiguous" in page.locator("[data-testid=status-reason]").inner_text()
    shot(page, "pair-excluded")
    assert Pair.objects.get(pk=world.pairs["split"].pk).status == Pair.Status.EXCLUDED

    page.goto(f"{base}/console/pairs/{world.pairs['dropped'].pk}/")
    page.click("form[action$='/restore/'] button")
    assert page.locator("[data-testid=pair-status]").inner_text() == "In the annotation queue"

    page.goto(f"{base}/console/dashboards/?campaign={world.campaign.slug}")
    page.wait_for_selector("[data-figure=time-on-item][data-rendered=true]")
    drawn = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('[data-figure] canvas')].map((c) => {
            const chart = Chart.getChart(c);
            return [c.closest('[data-figure]').dataset.figure, chart.data.datasets[0].data];
        }))"""
    )
    alpha = page.evaluate(
        """() => Object.fromEntries(Chart.getChart(document.querySelector('[data-figure=agreement-over-time] canvas'))
            .data.datasets.map((d) => [d.label, d.data]))"""
    )
    assert drawn["annotations-per-annotator"] == [5, 2, 2]
    assert drawn["time-on-item"][0] == 5 and sum(drawn["time-on-item"]) == 9
    assert drawn["judge-position-bias"] == [0.6667, 0.4]
    assert alpha["console-t2i · pairwise_agreement"] == [0.8, 0.85]
    assert alpha["console-t2i · krippendorff_alpha_ordinal"] == [0.62, 0.7]
    assert alpha["console-t2i · krippendorff_alpha_ordinal (low)"] == [0.5, 0.6]
    assert alpha["console-t2i · krippendorff_alpha_ordinal (95% band)"] == [0.74, 0.8]
    assert page.locator("tr.flagged[data-annotator=console-t2i-alice]").count() == 1
    shot(page, "dashboards")

    with page.expect_download() as download_info:
        page.click("[data-figure=annotators] a.csv")
    rows = list(csv.DictReader(io.StringIO(Path(download_info.value.path()).read_text())))
    assert [r["annotator"] for r in rows] == ["console-t2i-alice", "console-t2i-bob", "console-t2i-carol"]

    page.click("text=console-t2i-alice")
    assert page.locator("table.recent tbody tr").count() == 5
    shot(page, "annotator")
    assert not errors, errors


def test_an_annotator_is_refused_the_console_in_the_browser(live_server, transactional_db, browser_page):
    cache.clear()
    page, errors = browser_page
    world = make_world()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", world.alice.username)
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    response = page.goto(f"{live_server.url}/console/pairs/{world.pairs['kept'].pk}/")
    assert response.status == 403
    assert "secret-model" not in page.content()
    assert page.locator("nav a", has_text="Console").count() == 0
