"""A curator runs the pipeline from the console in headless Chromium, against the live server.

1. With the local OpenAI-compatible judge server: import on /imports/ → the overview shows pairs
   awaiting the pre-filter → Run pre-filter → the run's report and the funnel's new numbers → a
   dropped pair's verdicts.
2. Annotators submit through the assignment engine while the curator watches the funnel → Compute
   agreement → Apply consensus (disputes to adjudication) → adjudicate the disputed pair with a note
   → publish a release on /releases/ → the dashboards draw the new numbers.

Celery runs eagerly in the live server, so a run has finished when its page comes back; the progress
element is still followed by jobs.js until it reports the run's final status. Screenshots go to
test-artifacts/screenshots/console-*.png.
"""

import json

import pytest
from django.core.cache import cache

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from annotation.workqueue.services.assignments import annotation_submit, assignment_claim
from curation.models import Release
from tests.curation import prefilter_support as support
from tests.curation.console.world import make_world
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
    assert page.inner_text("[data-testid=prefilter-run] .job-label") == "succeeded · 12 / 12 verdicts"
    assert page.inner_text("[data-testid=prefilter-result]").startswith("1 kept · 2 dropped as easy")
    consistency = dict(zip(page.locator("table.per-judge tbody td:first-child").all_inner_texts(),
                           page.locator("table.per-judge td.consistency").all_inner_texts(), strict=True))
    assert consistency == {"j1": "100%", "j2": "67%"}
    assert funnel.locator("[data-stage=prefilter] .big").inner_text() == "1 kept"
    assert "2 dropped as easy · 0 awaiting" in funnel.locator("[data-stage=prefilter]").inner_text()
    assert page.inner_text("[data-testid=prefilter-campaign-after]").endswith(
        "as the funnel counts it: 1 in annotation · 2 dropped as easy · 0 awaiting the pre-filter.")
    shot(page, "prefilter-after")
    assert Pair.objects.filter(campaign=campaign, status=Pair.Status.DROPPED_EASY).count() == 2

    page.click("text=2 dropped as easy")
    assert sorted(page.locator("table.pairs tbody tr td.pair-id").all_inner_texts()) == ["easy1", "easy2"]
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


ANSWERS = {"text_faithfulness": {"A": 3, "B": 1}, "image_quality": {"A": 2, "B": 1}, "overall": 5,
           "rationale": "left follows the prompt", "prompt_valid": True}


def test_a_curator_watches_annotation_then_runs_agreement_consensus_adjudication_and_a_release(
    live_server, transactional_db, browser_page, settings, tmp_path
):
    """From annotation to a published release, with the dashboards drawn from what happened."""
    cache.clear()
    settings.CONCORD_RELEASES_ROOT = tmp_path / "releases"
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}
    page, errors = browser_page
    world = make_world("flow-t2i")
    base = live_server.url
    overview = f"{base}/console/campaigns/{world.campaign.slug}/"
    log_in(page, base, world.curator.username, then=f"/console/campaigns/{world.campaign.slug}/")
    annotation = page.locator("ol.funnel [data-stage=annotation]")
    assert "9 / 15 annotations" in annotation.inner_text()
    assert "0 open leases" in page.inner_text("[data-testid=work]")

    # Annotators work through the assignment engine while the curator watches.
    lease = assignment_claim(campaign=world.campaign, annotator=world.bob)
    page.reload()
    assert "1 open lease · last 24 h: 0 submitted" in page.inner_text("[data-testid=work]")
    annotation_submit(assignment=lease, annotator=world.bob, values=ANSWERS, time_on_item_ms=31_000, idempotency_key="b1")
    carol = assignment_claim(campaign=world.campaign, annotator=world.carol)
    annotation_submit(assignment=carol, annotator=world.carol, values=ANSWERS, time_on_item_ms=27_000, idempotency_key="c1")
    page.reload()
    assert "11 / 15 annotations" in annotation.inner_text()
    assert "0 open leases · last 24 h: 2 submitted, 0 skipped, 0 expired" in page.inner_text("[data-testid=work]")
    shot(page, "flow-annotation")

    page.click("form[data-run=agreement] button")
    page.wait_for_selector("[data-testid=agreement-result]")
    job = Job.objects.get(kind="agreement", campaign=world.campaign)
    assert job.status == Job.Status.SUCCEEDED
    result = page.inner_text("[data-testid=agreement-result]")
    assert result.startswith(f"{job.result['items']} pairs · {job.result['annotations']} annotations")
    assert "pairwise_agreement" in result
    page.wait_for_selector("[data-testid=agreement-run] .job-label:has-text('succeeded')")

    page.select_option("form[data-run=consensus] select[name=on_dispute]", "adjudicate")
    page.click("form[data-run=consensus] button")
    page.wait_for_selector("[data-testid=consensus-result]")
    run = Job.objects.get(kind="consensus", campaign=world.campaign)
    assert f"{run.result['adjudication']} to adjudication" in page.inner_text("[data-testid=consensus-result]")
    assert run.result["adjudication"] >= 1
    waiting = page.locator("ol.funnel [data-stage=consensus]").inner_text()
    assert f"{run.result['adjudication']} awaiting adjudication" in waiting
    shot(page, "flow-consensus")

    page.goto(f"{base}/console/campaigns/{world.campaign.slug}/pairs/?status=adjudication")
    page.click("text=flow-t2i-split")
    page.select_option("form.adjudicate select[name=chosen]", "B")
    page.fill("form.adjudicate textarea[name=note]", "B draws both objects; A misses one")
    page.click("form.adjudicate button")
    assert page.locator(".messages").inner_text() == "Adjudicated: B preferred."
    assert "B preferred" in page.inner_text("[data-testid=consensus]")
    assert page.inner_text("[data-testid=adjudication-note]") == (
        f"Adjudicated by {world.curator.username}: “B draws both objects; A misses one”")
    shot(page, "flow-adjudicated")

    page.goto(f"{base}/releases/")
    page.fill("input[name=name]", "flow-bench")
    page.fill("input[name=version]", "1.0.0")
    page.check(f"input[value={world.campaign.slug}]")
    page.click("#publish-form button[type=submit]")
    # Publishing ends on the release's page, which confirms it and lists its downloads.
    page.wait_for_selector("#published-message", timeout=30_000)
    release = Release.objects.get(name="flow-bench")
    assert release.pairs_count >= 2
    assert page.locator('#downloads tr[data-path="manifest.json"] a').count() == 1

    page.goto(overview)
    released = page.locator("ol.funnel [data-stage=released]")
    assert released.locator(".big").inner_text() == f"{release.pairs_count} pairs"
    assert f"flow-bench@1.0.0 · {release.pairs_count} pairs" in released.inner_text()
    shot(page, "flow-released")

    page.goto(f"{base}/console/dashboards/?campaign={world.campaign.slug}")
    page.wait_for_selector("[data-figure=time-on-item][data-rendered=true]")
    charts = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('[data-figure] canvas')].map((c) => [
            c.closest('[data-figure]').dataset.figure,
            Object.fromEntries(Chart.getChart(c).data.datasets.map((d) => [d.label, d.data])),
        ]))"""
    )
    assert charts["work-per-day"]["submitted"] == [2] and charts["work-per-day"]["claimed"] == [2]
    assert charts["annotations-per-annotator"]["annotations"] == [5, 3, 3]
    pairwise = charts["agreement-over-time"]["flow-t2i · pairwise_agreement"]
    assert pairwise[-1] == round(job.result["pairwise_agreement_excluding_ties"] / 100, 4)
    shot(page, "flow-dashboards")
    assert not errors, errors
