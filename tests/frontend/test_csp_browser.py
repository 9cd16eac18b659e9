"""Every page under the Content-Security-Policy in headless Chromium: no violation, and the scripts that replaced
inline handlers and styles do their work (tests.browser fails a test on any violation a page reports)."""

import pytest
from django.core.cache import cache
from django.test import Client

from annotation.workqueue.services.assignments import assignment_claim
from core.web.csp import HEADER
from tests.browser import chromium, log_in
from tests.curation.console.world import make_world

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_every_response_carries_a_policy_without_inline_script(transactional_db):
    client = Client()
    policy = client.get("/login/")[HEADER]
    assert "script-src 'self';" in policy and "'unsafe-inline'" not in policy.split("style-src")[0]
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy
    styles = policy.split("style-src ")[1].split(";")[0].split()
    assert styles[0] == "'self'" and len(styles) == 2 and styles[1].startswith("'nonce-"), "a nonce, no 'unsafe-inline'"
    assert client.get("/login/")[HEADER] != policy, "a new nonce for every response"
    assert "'unsafe-inline'" in client.get("/api/redoc/")[HEADER].split(";")[2]


def test_every_page_loads_under_the_policy_and_its_scripts_run(live_server, transactional_db, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    cache.clear()
    world = make_world("csp")
    lease = assignment_claim(campaign=world.campaign, annotator=world.bob)
    base = live_server.url
    pages = {
        "admin": ["/", "/console/", f"/console/campaigns/{world.campaign.slug}/",
                  f"/console/campaigns/{world.campaign.slug}/pairs/", f"/console/pairs/{world.pairs['kept'].pk}/",
                  "/console/dashboards/", f"/console/annotators/{world.bob.pk}/", "/releases/", "/imports/",
                  "/api/docs/", "/api/redoc/", "/admin/", "/admin/annotation/campaign/",
                  f"/admin/annotation/campaign/{world.campaign.pk}/change/"],
        "bob": ["/work/", f"/work/campaigns/{world.campaign.slug}/", f"/work/assignments/{lease.pk}/", "/work/me/"],
    }
    with chromium() as browser:
        for who, paths in pages.items():
            page = browser.new_context().new_page()
            user = world.admin if who == "admin" else world.bob
            log_in(page, base, user.username)
            for path in paths:
                response = page.goto(base + path)
                assert response.status == 200, path
                assert HEADER.lower() in response.headers, path
                page.wait_for_load_state("networkidle")
            if who == "bob":
                page.goto(f"{base}/work/")
                width = page.eval_on_selector(".progress-bar > span", "el => el.style.width")
                assert width.endswith("%"), "the progress bar's width is set by pages.js"
            else:
                page.goto(f"{base}/console/dashboards/")
                page.select_option("select[name=campaign]", world.campaign.slug)
                page.wait_for_url(f"{base}/console/dashboards/?campaign={world.campaign.slug}")
