"""A curator runs the pipeline from the console in headless Chromium, against the live server and the
local OpenAI-compatible judge server: import on /imports/ → the overview shows pairs awaiting the
pre-filter → Run pre-filter → the run's report and the funnel's new numbers → a dropped pair's verdicts.

Celery runs eagerly in the live server, so a run has finished when its page comes back; the progress
element is still followed by jobs.js until it reports the run's final status. Screenshots go to
test-artifacts/screenshots/console-*.png.
"""

import json

import pytest
from django.core.cache import cache

from annotation.models import Pair
from tests.curation import prefilter_support as support
from tests.curation.judge_server import JudgeServer, pair_text, response_text, votes_script
from tests.factories import CuratorFactory
from tests.frontend.console.browser import log_in, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def line(marker: str) -> str:
    return json.dumps({
        "id": marker,
        "prompt": {"id": f"prompt-{marker}", "source": "oneig",
                   "content": [{"type": "text", "text": f"Draw {pair_text(marker)}"}]},
        "response_a": {"model": "secret-model-x", "content": [{"type": "text", "text": response_text(marker, "a")}]},
        "response_b": {"model": "secret-model-y", "content": [{"type": "text", "text": response_text(marker, "b")}]},
    })


def test_a_curator_imports_then_prefilters_and_sees_the_funnel_move(live_server, transactional_db, browser_page, tmp_path):
    cache.clear()
    page, errors = browser_page
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(line(m) + "\n" for m in ("easy1", "hard", "easy2")))
    curator = CuratorFactory(username="pipeline-curie")
    campaign = support.campaign(slug="pipeline-t2i", name="Pipeline T2I", kind="text-to-image")
    # j2 changes its mind on "hard" when the sides are swapped: 3 A of 4 votes is not easy at 90%.
    with JudgeServer(votes_script({"j2": {("hard", "swapped"): "B"}})) as server:
        support.chat_judges(server, ["j1", "j2"])
        base = live_server.url
        log_in(page, base, curator.username, then="/imports/")
        page.set_input_files("input[name=file]", str(data))
        page.select_option("select[name=format]", "concord")
        page.fill("input[name=campaign]", campaign.slug)
        page.click("#import-form button[type=submit]")
        page.wait_for_selector("#import-progress[data-status=succeeded]", timeout=30_000)
        assert page.inner_text("#import-result .summary").startswith("3 created")

        page.goto(f"{base}/console/campaigns/{campaign.slug}/")
        funnel = page.locator("ol.funnel")
        assert funnel.locator("[data-stage=imported] .big").inner_text() == "3"
        assert "3 awaiting" in funnel.locator("[data-stage=prefilter]").inner_text()
        assert page.locator("form[data-run=prefilter] input[name=judge]:checked").count() == 2
        shot(page, "prefilter-before")

        page.click("text=Run pre-filter")
        page.wait_for_selector("[data-testid=prefilter-run] .job-label:has-text('succeeded')")
        assert server.count() == 12
    assert page.locator(".messages").inner_text().startswith("Pre-filter run #")
    assert page.eval_on_selector("[data-testid=prefilter-run] progress", "bar => bar.value") == 100
    assert page.inner_text("[data-testid=prefilter-run] .job-label") == "succeeded · 12 / 12"
    assert page.inner_text("[data-testid=prefilter-result]").startswith("1 kept · 2 dropped as easy")
    consistency = dict(zip(page.locator("table.per-judge tbody td:first-child").all_inner_texts(),
                           page.locator("table.per-judge td.consistency").all_inner_texts(), strict=True))
    assert consistency == {"j1": "100%", "j2": "67%"}
    assert funnel.locator("[data-stage=prefilter] .big").inner_text() == "1 kept"
    assert "2 dropped as easy · 0 awaiting" in funnel.locator("[data-stage=prefilter]").inner_text()
    shot(page, "prefilter-after")
    assert Pair.objects.filter(campaign=campaign, status=Pair.Status.DROPPED_EASY).count() == 2

    page.click("text=2 dropped as easy")
    assert sorted(page.locator("table.pairs tbody tr td:first-child").all_inner_texts()) == ["easy1", "easy2"]
    page.click("text=easy1")
    assert page.locator("[data-testid=pair-status]").inner_text() == "Dropped by pre-filter"
    assert "prefilter: easy" in page.locator("[data-testid=status-reason]").inner_text()
    verdicts = page.locator("table.verdicts tbody tr")
    assert verdicts.count() == 4
    assert [row.split("\t")[:3] for row in verdicts.all_inner_texts()] == [
        ["j1", "forward", "A"], ["j1", "swapped", "A"], ["j2", "forward", "A"], ["j2", "swapped", "A"]]
    page.locator("table.verdicts details").first.click()
    assert '"better_response"' in page.locator("table.verdicts pre.raw").first.inner_text()
    shot(page, "prefilter-pair")
    assert not errors, errors
