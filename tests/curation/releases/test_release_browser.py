"""The releases page in headless Chromium: publish from the form and watch the live progress bar finish."""

import hashlib
from pathlib import Path

import pytest

from curation.models import Release
from tests.browser import chromium, log_in
from tests.factories import CuratorFactory
from tests.frontend.console.browser import SHOTS, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(live_server, monkeypatch):
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium() as browser:
        yield browser.new_page()


def test_publishing_from_the_page_shows_progress_and_then_the_published_release(
    release_data, releases_root, live_server, page
):
    CuratorFactory(username="curie")
    log_in(page, live_server.url, "curie", then="/releases/")
    page.fill("input[name=name]", "fox-bench")
    page.fill("input[name=version]", "1.0.0")
    page.check("input[value=t2i-wave]")
    page.click("#publish-form button[type=submit]")
    # Publishing ends on the release's own page, which confirms it and offers its files.
    page.wait_for_selector("#published-message", timeout=30_000)
    assert page.inner_text("#published-message").startswith("Published fox-bench@1.0.0: 3 pairs")
    release = Release.objects.get(name="fox-bench")
    assert release.pairs_count == 3
    with page.expect_download() as download:
        page.click('#downloads tr[data-path="manifest.json"] a')
    manifest = Path(download.value.path()).read_bytes()
    assert hashlib.sha256(manifest).hexdigest() == release.manifest_sha256
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot(page, "release-published")

    page.goto(f"{live_server.url}/releases/")
    assert page.locator('tr[data-release="fox-bench@1.0.0"][data-status="published"]').count() == 1
    page.fill("input[name=name]", "fox-bench")
    page.fill("input[name=version]", "1.0.0")
    page.check("input[value=t2i-wave]")
    page.click("#publish-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('publish-error').textContent.length > 0")
    assert "releases are immutable" in page.inner_text("#publish-error")


def test_verifying_from_the_page_runs_a_job_and_says_which_file_is_missing(release_data, releases_root, live_server,
                                                                          page):
    from curation.services.releases import release_publish

    release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave"])
    CuratorFactory(username="curie")
    log_in(page, live_server.url, "curie", then="/releases/")
    row = 'tr[data-release="fox-bench@1.0.0"]'
    page.click(f"{row} .verify button")
    page.wait_for_selector(f'{row} .verify[data-outcome="ok"]', timeout=30_000)
    assert "files match the manifest" in page.inner_text(f"{row} .verify-result")
    assert page.get_attribute(f"{row} .verify .job", "data-status") == "succeeded"

    (releases_root / "fox-bench" / "1.0.0" / "CHANGELOG.md").unlink()
    page.click(f"{row} .verify button")
    page.wait_for_selector(f'{row} .verify[data-outcome="mismatch"]', timeout=30_000)
    assert "CHANGELOG.md (missing)" in page.inner_text(f"{row} .verify-result")


def test_a_failed_attempt_is_discarded_from_the_page_and_the_version_published_from_other_campaigns(
    release_data, releases_root, live_server, page
):
    from curation.services.releases import release_reap_stalled, release_request

    release = release_request(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave"])
    Release.objects.filter(pk=release.pk).update(status=Release.Status.FAILED, error="the worker was lost")
    release_reap_stalled()
    CuratorFactory(username="curie")
    log_in(page, live_server.url, "curie", then="/releases/")
    row = 'tr[data-release="fox-bench@1.0.0"]'
    page.on("dialog", lambda dialog: dialog.accept())
    page.click(f"{row} .discard button")
    page.wait_for_function(f"() => document.querySelector('{row} .discard-result').textContent.length > 0")
    assert "publish fox-bench@1.0.0 again with any campaigns" in page.inner_text(f"{row} .discard-result")
    page.reload()
    assert page.locator(f"{row} .discard").count() == 0
    page.fill("input[name=name]", "fox-bench")
    page.fill("input[name=version]", "1.0.0")
    page.check("input[value=t2i-wave]")
    page.check("input[value=reasoning-wave]")
    page.click("#publish-form button[type=submit]")
    page.wait_for_selector("#published-message", timeout=30_000)
    assert page.inner_text("#published-message").startswith("Published fox-bench@1.0.0")


def test_a_licence_more_permissive_than_a_source_is_refused_naming_the_pages_own_box(release_data, releases_root,
                                                                                   live_server, page):
    from annotation.catalogue.services.sources import source_dataset_link
    from annotation.importers import mmrb2

    source_dataset_link(campaign=release_data["t2i"], source=mmrb2.SOURCE)
    CuratorFactory(username="curie")
    log_in(page, live_server.url, "curie", then="/releases/")
    page.fill("input[name=name]", "fox-bench")
    page.fill("input[name=version]", "1.0.0")
    page.check("input[value=t2i-wave]")
    page.fill("input[name=license]", "cc-by-4.0")
    page.click("#publish-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('publish-error').textContent.length > 0")
    message = page.inner_text("#publish-error")
    assert message.endswith("""a release keeps its sources' terms — tick "Allow a licence more permissive than a """
                            """source's (I hold the rights)\"""")
    assert "--force-license" not in message


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_a_pointer_release_is_published_from_the_form(release_data, releases_root, live_server, monkeypatch, size):
    """Choosing "pointers only" publishes a release without media bytes, and its page says how to rebuild it."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    CuratorFactory(username="curie")
    with chromium() as browser:
        page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
        log_in(page, live_server.url, "curie", then="/releases/")
        page.fill("input[name=name]", "fox-pointers")
        page.fill("input[name=version]", "1.0.0")
        page.check("input[value=t2i-wave]")
        page.select_option("select[name=media]", "pointers")
        assert page.locator("#media-help").is_visible()
        page.click("#publish-form button[type=submit]")
        page.wait_for_selector("#published-message", timeout=30_000)
        assert page.locator("#pointer-release").count() == 1
    release = Release.objects.get(name="fox-pointers")
    assert release.summary["media"]["mode"] == "pointers"
    folder = releases_root / "fox-pointers" / "1.0.0"
    assert (folder / "pointers.json").is_file() and not (folder / "media").exists()


def test_publishing_with_a_held_out_split_from_the_page_records_its_share_seed_and_rows(
    release_data, releases_root, live_server, page
):
    CuratorFactory(username="curie")
    log_in(page, live_server.url, "curie", then="/releases/")
    page.fill("input[name=name]", "fox-held")
    page.fill("input[name=version]", "1.0.0")
    page.check("input[value=t2i-wave]")
    # A seed without a share is refused on the page, as the command and the API refuse it.
    page.fill("input[name=private_seed]", "7")
    page.click("#publish-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('publish-error').textContent.length > 0")
    assert "go with a share held out" in page.inner_text("#publish-error")
    assert not Release.objects.filter(name="fox-held").exists()

    page.fill("input[name=private_split]", "0.34")
    page.select_option("select[name=private_rows]", "omit")
    page.click("#publish-form button[type=submit]")
    page.wait_for_selector("#published-message", timeout=30_000)
    release = Release.objects.get(name="fox-held")
    held = release.summary["heldout"]
    assert (held["fraction"], held["seed"], held["private_rows"]) == (0.34, 7, "omit")
    assert page.locator("#heldout").count() == 1, "the release page shows its held-out section"
    shot(page, "release-published-heldout")
