"""The console and dashboards pass axe-core with no serious or critical violation, in a real headless Chromium.

axe-core is vendored for the tests only (tests/frontend/vendor/axe-core) and evaluated through DevTools; the
context bypasses the Content-Security-Policy because axe writes styles while it measures contrast (the policy
is checked on these pages by tests/frontend/test_csp_browser.py).
"""

import pytest

from tests.browser import chromium, log_in
from tests.curation.console.world import make_world
from tests.frontend.test_workspace_keys import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_every_console_and_dashboard_page_passes_axe(live_server, transactional_db, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    world = make_world("axe")
    slug = world.campaign.slug
    paths = ["/console/", f"/console/campaigns/{slug}/", f"/console/campaigns/{slug}/pairs/",
             f"/console/pairs/{world.pairs['kept'].pk}/", f"/console/campaigns/{slug}/agreement/",
             f"/console/campaigns/{slug}/settings/", "/console/campaigns/new/", "/console/people/",
             "/console/judges/", "/console/dashboards/", f"/console/dashboards/?campaign={slug}",
             "/console/leaderboard/", f"/console/annotators/{world.bob.pk}/", "/releases/", "/imports/"]
    found = {}
    with chromium() as browser:
        page = browser.new_context(viewport={"width": 1440, "height": 900}, bypass_csp=True).new_page()
        log_in(page, live_server.url, world.admin.username)
        for path in paths:
            response = page.goto(live_server.url + path)
            assert response.status == 200, path
            page.wait_for_load_state("networkidle")
            violations = axe_violations(page)
            if violations:
                found[path] = violations
    assert found == {}
