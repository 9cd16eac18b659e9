"""The upload page in a real browser: a curator uploads a file, watches the import reach 100% and sees how it ended
(succeeded, partial or failed), with the report of each import a click away."""

import json

import pytest
from django.urls import reverse

from tests.browser import chromium, log_in
from tests.catalogue.import_helpers import concord_pair
from tests.factories import CuratorFactory


@pytest.fixture
def curator():
    """Made before the browser starts: Playwright's event loop forbids the ORM in the test's thread."""
    return CuratorFactory(username="curie")


@pytest.fixture
def browser_page():
    with chromium() as browser:
        yield browser.new_page()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_curator_uploads_a_file_and_sees_progress_and_failed_lines(curator, live_server, browser_page, tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [concord_pair(0), concord_pair(1), {"id": "x"}]))
    page = browser_page
    log_in(page, live_server.url, "curie", then=reverse("imports-upload"))
    page.set_input_files("input[name=file]", str(data))
    page.select_option("select[name=format]", "concord")
    page.fill("input[name=campaign]", "from-the-page")
    page.select_option("select[name=task]", "text-to-image")
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#import-progress[data-status=partial]", timeout=30_000)
    assert page.eval_on_selector("#import-progress progress", "bar => bar.value") == 100
    assert page.inner_text("#import-result .import-status") == (
        "partial · 2 of 3 rows imported (2 created, 0 already present); 1 failed")
    assert page.inner_text("#import-result .summary") == (
        "2 created · 0 already present · 0 annotations imported · 1 row failed")
    assert page.inner_text("#import-result table tbody tr") == "3\tprompt: expected an object, got null"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_upload_without_its_media_shows_failed_and_its_report_lists_every_row(curator, live_server, browser_page,
                                                                                 tmp_path):
    """The MMRB2 case: the file names images that are not in the upload, so every row fails and nothing is imported."""
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(concord_pair(i, a_file=f"images/{i}.png")) + "\n" for i in range(60)))
    page = browser_page
    log_in(page, live_server.url, "curie", then=reverse("imports-upload"))
    page.set_input_files("input[name=file]", str(data))
    page.fill("input[name=campaign]", "no-media")
    page.select_option("select[name=task]", "text-to-image")
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#import-progress[data-status=failed]", timeout=30_000)
    status = page.inner_text("#import-result .import-status")
    assert status.startswith("failed · nothing was imported: 60 rows failed (every row failed); line 1: images/0.png")
    assert page.locator("#import-result table tbody tr").count() == 50
    assert "The first 50 errors; all of them on the report of import" in page.inner_text("#import-result .more")
    page.click("#import-result .more a")
    page.wait_for_selector("#import-status[data-status=failed]")
    assert page.inner_text("#import-status") == "failed"
    assert page.inner_text("#import-error").endswith("(and 57 more)")
    page.click("nav.pager a[rel=next]")
    page.wait_for_url("**/?page=2")
    assert page.locator("#import-errors tbody tr").count() == 10
    page.goto(live_server.url + reverse("imports-upload"))
    page.click("#recent-imports tbody tr:first-child a")
    page.wait_for_selector("#import-status[data-status=failed]")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_missing_campaign_is_explained_with_the_forms_own_field_not_a_command_line_option(
        curator, live_server, browser_page, tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text(json.dumps(concord_pair(0)) + "\n")
    page = browser_page
    log_in(page, live_server.url, "curie", then=reverse("imports-upload"))
    page.set_input_files("input[name=file]", str(data))
    page.fill("input[name=campaign]", "nowhere")
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#import-message.error")
    message = page.inner_text("#import-message")
    assert message == ("campaign 'nowhere' does not exist; give a task kind (and a rating schema) to create it"
                       ' — choose the "Task kind" field')
    assert "--" not in message
