"""A curator reads the model leaderboard in headless Chromium: the chart is drawn, the scope form works, CSV downloads.

Screenshots go to test-artifacts/screenshots/console-leaderboard*.png.
"""

import csv
import io
from pathlib import Path

import pytest

from tests.curation.leaderboard.world import make_leaderboard_world
from tests.factories import CuratorFactory
from tests.frontend.console.browser import log_in, shot

pytestmark = [pytest.mark.browser]


def test_a_curator_reads_which_model_wins_and_splits_it_by_source(live_server, transactional_db, browser_page):
    page, errors = browser_page
    make_leaderboard_world()
    CuratorFactory(username="lb-curie")
    log_in(page, live_server.url, "lb-curie", then="/console/")
    page.click('nav a[href="/console/leaderboard/"]')
    page.wait_for_selector("#model-leaderboard")
    ranks = page.locator("#model-leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.model)")
    assert ranks == ["alpha", "beta", "gamma"]
    # Chart.js drew on the canvas: some pixel is no longer transparent.
    drawn = page.evaluate("""() => { const c = document.getElementById('leaderboard-chart');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        return d.some((v, i) => i % 4 === 3 && v > 0); }""")
    assert drawn
    assert "n=4" in page.inner_text("#win-rate-matrix")
    shot(page, "leaderboard")

    page.select_option("select[name=source]", "wise")
    page.click("#leaderboard-scope button[type=submit]")
    page.wait_for_url("**source=wise**")
    ranks = page.locator("#model-leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.model)")
    assert ranks == ["beta", "gamma"]
    with page.expect_download() as download:
        page.click("#leaderboard-scope a.csv")
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text())))
    assert [r[2] for r in rows if r[0] == "rating"] == ["beta", "gamma"]
    shot(page, "leaderboard-wise")
    assert errors == []
