"""The people page in headless Chromium: an invitation takes no password, so the password fields show only once
"Set a password now" is chosen."""

import os

import pytest

from annotation.accounts.models import Role
from tests.browser import chromium, log_in
from tests.factories import UserFactory

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_password_fields_show_only_when_a_password_is_set_now(live_server):
    admin = UserFactory(username="root-people", role=Role.ADMIN)
    with chromium() as browser:
        page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        log_in(page, live_server.url, admin.username, then="/console/people/")
        fields = page.locator("[data-testid=password-fields]")
        assert page.is_checked("input[name=mode][value=invite]") and not fields.is_visible()
        page.check("input[name=mode][value=password]")
        assert fields.is_visible() and page.locator("input[name=password_again]").is_visible()
        page.check("input[name=mode][value=invite]")
        assert not fields.is_visible()
