"""A curator reads the model leaderboard in headless Chromium: the chart is drawn, the scope form works, CSV downloads.

Screenshots go to test-artifacts/screenshots/console-leaderboard*.png.
"""

import csv
import io
import time
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


def test_a_board_never_fitted_shows_the_fit_jobs_progress_until_the_worker_has_fitted_it(
        live_server, transactional_db, browser_page, monkeypatch):
    """With a real Celery worker: the page first shows the fit job's progress bar counting resamples, then, once
    the worker has fitted the board, reloads itself and draws it."""
    from django.core.cache import cache

    from core.queues import Queue
    from curation.selectors import leaderboard as selectors
    from tests.celery_worker import threaded_worker

    real = selectors.leaderboard

    def slow(c, *, progress=None, **kwargs):
        """The real fit, slowed per resample so the bar is seen moving (200 resamples: about 2 s)."""
        def heard(done, total):
            time.sleep(0.01)
            progress(done, total)

        return real(c, progress=heard if progress else None, **kwargs)

    monkeypatch.setattr(selectors, "leaderboard", slow)
    page, errors = browser_page
    make_leaderboard_world()
    CuratorFactory(username="lb-waiter")
    with threaded_worker(redis_url="redis://127.0.0.1:6379/12", queue=Queue.ANALYTICS):
        cache.clear()
        log_in(page, live_server.url, "lb-waiter", then="/console/leaderboard/?campaign=lb-t2i")
        page.wait_for_selector("#leaderboard-fitting [data-job-progress] progress")
        page.wait_for_function("""() => /running · [1-9]\\d* \\/ 201 resamples/.test(
            document.querySelector('#leaderboard-fitting .job-label')?.textContent || '')""", timeout=30_000)
        shot(page, "leaderboard-fitting")
        page.wait_for_selector("#model-leaderboard", timeout=60_000)
    ranks = page.locator("#model-leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.model)")
    assert ranks == ["alpha", "beta", "gamma"]
    assert page.locator("#leaderboard-fitting").count() == 0
    assert errors == []
