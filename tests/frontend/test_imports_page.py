"""The upload page in a real browser: a curator uploads a file and watches the import reach 100%."""

import json

import pytest
from django.urls import reverse

from tests.annotation.import_helpers import concord_pair
from tests.conftest import require
from tests.factories import CuratorFactory

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]


@pytest.fixture
def curator():
    """Made before the browser starts: Playwright's event loop forbids the ORM in the test's thread."""
    return CuratorFactory(username="curie")


@pytest.fixture
def browser_page():
    import os

    require(os.path.exists(CHROMIUM), f"Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_curator_uploads_a_file_and_sees_progress_and_failed_lines(curator, live_server, browser_page, tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [concord_pair(0), concord_pair(1), {"id": "x"}]))
    page = browser_page
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "curie")
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit], input[type=submit]")
    page.goto(live_server.url + reverse("imports-upload"))
    page.set_input_files("input[name=file]", str(data))
    page.select_option("select[name=format]", "concord")
    page.fill("input[name=campaign]", "from-the-page")
    page.select_option("select[name=task]", "text-to-image")
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#import-progress[data-status=succeeded]", timeout=30_000)
    assert page.eval_on_selector("#import-progress progress", "bar => bar.value") == 100
    assert page.inner_text("#import-result .summary") == (
        "2 created · 0 already present · 0 annotations imported · 1 rows failed")
    assert page.inner_text("#import-result table tbody tr") == "3\tprompt: expected an object, got null"
