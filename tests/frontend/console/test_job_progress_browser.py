"""The campaign page's job list in headless Chromium: each job counts its own units, bytes with their unit, and a
failed job shows its reason."""

import pytest
from django.utils import timezone

from annotation.jobs.models import Job
from tests.factories import CampaignFactory, CuratorFactory
from tests.frontend.console.browser import log_in, shot

pytestmark = [pytest.mark.browser]


def test_finished_jobs_name_their_units_and_a_failed_one_its_reason(live_server, transactional_db, browser_page):
    page, errors = browser_page
    campaign = CampaignFactory(slug="jobs-units")
    done = {"status": Job.Status.SUCCEEDED, "started_at": timezone.now(), "finished_at": timezone.now()}
    imported = Job.objects.create(kind="import", campaign=campaign, progress_done=5_452_595, progress_total=5_452_595,
                                  **done)
    judged = Job.objects.create(kind="prefilter", campaign=campaign, progress_done=1_800, progress_total=1_800, **done)
    failed = Job.objects.create(kind="consensus", campaign=campaign, status=Job.Status.FAILED, progress_done=40,
                                progress_total=120, error="OperationalError: the database is locked",
                                started_at=timezone.now(), finished_at=timezone.now())
    curator = CuratorFactory(username="units-curie")
    log_in(page, live_server.url, curator.username, then=f"/console/campaigns/{campaign.slug}/")

    def label(job):
        selector = f"table.jobs [data-job-progress='{job.pk}']"
        page.wait_for_selector(f"{selector}[data-status={job.status}] .job-label")
        return page.inner_text(f"{selector} .job-label")

    assert label(imported) == "succeeded · 5.2 MiB / 5.2 MiB"
    assert label(judged) == "succeeded · 1,800 / 1,800 verdicts"
    assert label(failed) == "failed · 40 / 120 pairs · OperationalError: the database is locked"
    shot(page, "job-units")
    assert not errors, errors
