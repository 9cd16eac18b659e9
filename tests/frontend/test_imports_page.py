"""The upload page in a real browser: a curator uploads a file and watches the import reach 100%."""

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
    page.wait_for_selector("#import-progress[data-status=succeeded]", timeout=30_000)
    assert page.eval_on_selector("#import-progress progress", "bar => bar.value") == 100
    assert page.inner_text("#import-result .summary") == (
        "2 created · 0 already present · 0 annotations imported · 1 rows failed")
    assert page.inner_text("#import-result table tbody tr") == "3\tprompt: expected an object, got null"
