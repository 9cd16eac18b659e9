"""A new curator, from an empty database holding only an admin, runs a whole campaign in headless Chromium,
never through /admin/ (no request the browser makes has a path under /admin/):

the admin invites the curator → the curator sets a password through the link → creates a campaign with a custom
schema (live preview of the rater's form and of the Markdown instructions) → invites two annotators → imports
pairs → configures an OpenAI-compatible judge (a local server started by the test), enables and tests it on one
pair (raw answer and parsed verdict) → runs the pre-filter and watches its progress move (a real Celery worker
on the filesystem transport, as `make demo` runs) → the annotators set their passwords through their links and
rate the pairs kept, splitting on one → the curator computes agreement, drills into it, follows the most disputed
pair's link, sends it to adjudication and decides it → applies consensus → reads the model leaderboard →
publishes a release and downloads its manifest and data file through the signed links (bytes checked against the
release's sha256s; the adjudicated decision is in the data; no account name in either).
Screenshots: test-artifacts/screenshots/console-walk-*.png.
"""

import hashlib
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache

from annotation.accounts.models import Role, User
from annotation.catalogue.models import Campaign, Pair
from annotation.workqueue.models import Annotation
from curation.models import ConsensusRecord, Release
from tests.celery_worker import filesystem_worker
from tests.curation.judge_server import JudgeServer, Reply, json_verdict, shown
from tests.factories import UserFactory
from tests.frontend.console.browser import shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCHEMA = {"questions": [
    {"id": "winner", "label": "Which answer is more helpful?", "type": "choice", "scope": "pair", "level": "nominal",
     "oriented": True, "required": True, "options": [{"value": "A", "label": "The left one"},
                                                     {"value": "B", "label": "The right one"}]},
    {"id": "why", "label": "Why?", "type": "text", "scope": "pair", "level": None, "required": False}]}
KEPT, DROPPED = ("k1", "k2"), ("d1", "d2", "d3", "d4")
# The canonical answer each annotator gives: they split on k1 (the disputed pair) and agree on k2.
VOTES = {"ann1": {"k1": "A", "k2": "A"}, "ann2": {"k1": "B", "k2": "A"}}


def line(marker: str) -> str:
    return json.dumps({
        "id": marker,
        "prompt": {"id": f"prompt-{marker}", "content": [{"type": "text", "text": f"Answer PAIR[{marker}] helpfully."}]},
        "response_a": {"model": "secret-model-x", "content": [{"type": "text", "text": f"RESP[{marker}-a] first."}]},
        "response_b": {"model": "secret-model-y", "content": [{"type": "text", "text": f"RESP[{marker}-b] second."}]},
    })


def judge_script(seen):
    """Prefers A on the easy pairs in both orders; on the kept ones it always prefers what it was shown first."""
    canonical = "A" if seen.marker in DROPPED else ("A" if seen.order == "forward" else "B")
    return Reply(content=json_verdict(shown(canonical, seen.order)), delay=0.25)


def shown_marker(page) -> str:
    """The pair the workspace shows, read from its prompt text (PAIR[k1])."""
    return next(m for m in KEPT if f"PAIR[{m}]" in page.inner_text("body"))


def choose(page, canonical):
    """Click the option that means ``canonical`` whichever side the workspace put response A on."""
    a_on_left = "-a]" in page.inner_text("article.side >> nth=0")
    page.click(f"[data-question=winner] label.option >> nth={0 if (canonical == 'A') == a_on_left else 1}")


def log_in(page, base, username, password, *, then):
    page.goto(f"{base}/login/?next={then}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}{then}")


def log_out(page):
    page.click("form.logout button")
    page.wait_for_load_state()


def set_password(page, link, password):
    page.goto(link)
    page.fill("input[name=password]", password)
    page.fill("input[name=password_again]", password)
    page.click("main button[type=submit]")
    page.wait_for_selector("text=Password set for")


def test_a_new_curator_runs_a_campaign_from_setup_to_a_downloaded_release_without_admin(
        live_server, transactional_db, browser_page, tmp_path, settings):
    cache.clear()
    settings.CONCORD_RELEASES_ROOT = tmp_path / "releases"
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}
    page, errors = browser_page
    base = live_server.url
    visited = []
    page.context.on("request", lambda request: visited.append(urlsplit(request.url).path))
    UserFactory(username="root", role=Role.ADMIN)

    log_in(page, base, "root", "pw", then="/console/people/")
    page.fill("form.setup-form input[name=username]", "curie")
    page.select_option("form.setup-form select[name=role]", "curator")
    page.click("form.setup-form button[type=submit]")
    curator_link = page.input_value("[data-testid=invitation-link]")
    shot(page, "walk-01-curator-invited")
    log_out(page)
    set_password(page, curator_link, "curie-long-pass-1")
    log_in(page, base, "curie", "curie-long-pass-1", then="/console/campaigns/new/")

    page.fill("input[name=slug]", "walk-t2t")
    page.select_option("select[name=kind]", "text-to-text")
    page.fill("input[name=name]", "Walk · helpful answers")
    page.fill("input[name=overlap]", "2")
    page.check("input[name=requires_prefilter]")
    page.fill("[data-schema-json]", json.dumps(SCHEMA, indent=2))
    page.wait_for_selector("[data-schema-preview] [data-question=winner] >> text=The right one")
    page.fill("[data-instructions]", "Pick the **more helpful** answer.")
    page.wait_for_selector("[data-markdown-preview] strong >> text=more helpful")
    shot(page, "walk-02-campaign-form")
    page.click("text=Create campaign")
    page.wait_for_url(f"{base}/console/campaigns/walk-t2t/settings/")
    campaign = Campaign.objects.select_related("rating_schema").get(slug="walk-t2t")
    assert campaign.rating_schema.definition == SCHEMA and campaign.requires_prefilter and campaign.overlap == 2

    links = {}
    for name in ("ann1", "ann2"):
        page.fill("[data-testid=invite-form] input[name=username]", name)
        page.click("[data-testid=invite-form] button[type=submit]")
        links[name] = page.input_value("[data-testid=invitation-link]")
        page.goto(f"{base}/console/campaigns/walk-t2t/settings/")
    assert page.inner_text("[data-testid=members]").split() == ["ann1", "annotator", "ann2", "annotator"]
    shot(page, "walk-03-members")

    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(line(m) + "\n" for m in (*KEPT, *DROPPED)))
    page.goto(f"{base}/imports/")
    page.set_input_files("input[name=file]", str(data))
    page.select_option("select[name=format]", "concord")
    page.fill("input[name=campaign]", "walk-t2t")
    with filesystem_worker(folder=tmp_path / "celery"), JudgeServer(judge_script) as server:
        page.click("#import-form button[type=submit]")
        page.wait_for_selector("#import-progress[data-status=succeeded]", timeout=60_000)
        assert page.inner_text("#import-progress .job-label").endswith(" KiB")  # bytes, with their unit
        assert Pair.objects.filter(campaign=campaign, status=Pair.Status.PENDING).count() == 6

        page.goto(f"{base}/console/judges/")
        page.fill("[data-testid=judge-new] input[name=name]", "vlm")
        page.select_option("[data-testid=judge-new] select[name=backend]", "openai-chat")
        page.fill("[data-testid=judge-new] textarea[name=settings]", json.dumps(
            {"base_url": f"{server.url}/v1", "model": "vlm", "concurrency": 1, "max_retries": 0}))
        page.click("[data-testid=judge-new] button[type=submit]")
        page.wait_for_selector("[data-judge=vlm]")
        kept_pair = Pair.objects.get(campaign=campaign, external_id="k1")
        page.fill("[data-judge=vlm] [data-testid=judge-test] input[name=pair]", str(kept_pair.pk))
        page.select_option("[data-judge=vlm] [data-testid=judge-test] select[name=order]", "swapped")
        page.click("[data-judge=vlm] [data-testid=judge-test] button[type=submit]")
        page.wait_for_selector("[data-testid=judge-trial]")
        assert "Parsed verdict: B" in page.inner_text("[data-testid=trial-verdict]")
        assert "(the judge said A with the responses shown B first)" in page.inner_text("[data-testid=trial-verdict]")
        assert '"better_response": "A"' in page.inner_text("[data-testid=trial-raw]")
        shot(page, "walk-04-judge-tested")

        page.goto(f"{base}/console/campaigns/walk-t2t/")
        page.click("text=Run pre-filter")
        label = "[data-testid=prefilter-run] .job-label"
        page.wait_for_selector(f"{label}:has-text('verdicts/s')", timeout=60_000)
        shot(page, "walk-05-prefilter-running")
        page.wait_for_selector(f"{label}:has-text('succeeded')", timeout=60_000)
    page.wait_for_selector("[data-testid=prefilter-result]")
    assert page.inner_text("[data-testid=prefilter-result]").startswith("2 kept · 4 dropped as easy")
    shot(page, "walk-06-prefilter-done")
    log_out(page)

    for name in ("ann1", "ann2"):
        set_password(page, links[name], f"{name}-long-pass-1")
        log_in(page, base, name, f"{name}-long-pass-1", then="/work/campaigns/walk-t2t/")
        for _ in KEPT:
            page.click("[data-start]")
            page.wait_for_selector("body[data-workspace-ready]")
            if page.locator("dialog#instructions[open]").count():
                page.keyboard.press("Escape")
            choose(page, VOTES[name][shown_marker(page)])
            page.click("[data-submit]")
            page.wait_for_selector("[data-done]:not([hidden])")
            page.goto(f"{base}/work/campaigns/walk-t2t/")
        shot(page, f"walk-07-{name}-rated")
        log_out(page)
    assert Annotation.objects.filter(pair__campaign=campaign).count() == 4
    complete = Pair.objects.filter(campaign=campaign, status=Pair.Status.COMPLETE)
    assert set(complete.values_list("external_id", flat=True)) == set(KEPT)
    assert User.objects.filter(username__in=["curie", "ann1", "ann2"]).count() == 3

    log_in(page, base, "curie", "curie-long-pass-1", then="/console/campaigns/walk-t2t/")
    page.click("[data-run=agreement] button[type=submit]")
    page.wait_for_selector("[data-testid=agreement-result]")
    page.click("#agreement-drilldown")
    page.wait_for_selector("#disputed")
    disputed = Pair.objects.get(campaign=campaign, external_id="k1")
    assert page.locator("#disputed tbody tr[data-pair]").first.get_attribute("data-pair") == str(disputed.pk)
    shot(page, "walk-08-agreement")
    page.click(f'#disputed tr[data-pair="{disputed.pk}"] a.adjudicate')
    page.wait_for_selector("#answer-table")
    page.fill("#actions form[action$='/send-to-adjudication/'] input[name=note]", "the raters split")
    page.click("#actions form[action$='/send-to-adjudication/'] button[type=submit]")
    page.wait_for_selector("#actions form.adjudicate")
    page.select_option("#actions form.adjudicate select[name=chosen]", "A")
    page.fill("#actions form.adjudicate textarea[name=note]", "A answers the question; B does not.")
    page.click("#actions form.adjudicate button[type=submit]")
    page.wait_for_selector("[data-testid=adjudication-note]")
    shot(page, "walk-09-adjudicated")

    page.goto(f"{base}/console/campaigns/walk-t2t/")
    page.click("[data-run=consensus] button[type=submit]")
    page.wait_for_selector("[data-testid=consensus-result]")
    assert set(ConsensusRecord.objects.filter(pair__campaign=campaign).values_list("pair__external_id", "chosen")) \
        == {("k1", "A"), ("k2", "A")}
    shot(page, "walk-10-consensus")

    page.click('nav a[href="/console/leaderboard/"]')
    page.wait_for_selector("#model-leaderboard")
    ranks = page.locator("#model-leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.model)")
    assert ranks == ["secret-model-x", "secret-model-y"]  # three of the four human votes prefer x
    shot(page, "walk-11-leaderboard")

    page.goto(f"{base}/releases/")
    page.fill("input[name=name]", "walk-bench")
    page.fill("input[name=version]", "1.0.0")
    page.check("input[value=walk-t2t]")
    page.click("#publish-form button[type=submit]")
    page.wait_for_selector("#published-message", timeout=30_000)
    assert page.inner_text("#published-message").startswith("Published walk-bench@1.0.0: 2 pairs")
    release = Release.objects.get(name="walk-bench", version="1.0.0")
    with page.expect_download() as download:
        page.click('#downloads tr[data-path="manifest.json"] a')
    visited.append(urlsplit(download.value.url).path)
    assert visited[-1].startswith("/releases/download/")  # the signed link, not a file:// path
    manifest = Path(download.value.path()).read_bytes()
    assert hashlib.sha256(manifest).hexdigest() == release.manifest_sha256
    with page.expect_download() as download:
        page.click('#downloads tr[data-path="data/text-to-text.jsonl"] a')
    visited.append(urlsplit(download.value.url).path)
    data = Path(download.value.path()).read_bytes()
    listed = {entry["path"]: entry["sha256"] for entry in json.loads(manifest)["files"]}
    assert hashlib.sha256(data).hexdigest() == listed["data/text-to-text.jsonl"]
    assert {row["id"]: row["chosen"] for row in map(json.loads, data.splitlines())} == {"k1": "A", "k2": "A"}
    assert not [name for name in (b"curie", b"ann1", b"ann2") if name in manifest + data]
    shot(page, "walk-12-release")

    assert not [path for path in visited if path.startswith("/admin/")]
    assert not errors, errors
