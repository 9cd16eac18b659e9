"""The new-campaign form in headless Chromium: the preset list follows the task kind."""

import pytest

from tests.factories import CuratorFactory
from tests.frontend.console.browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def offered(page) -> list[str]:
    return page.eval_on_selector_all("select[name=preset] option", "options => options.filter(o => !o.hidden && !o.disabled)"
                                     ".map(o => o.value)")


def test_the_preset_list_offers_only_the_presets_that_fit_the_chosen_kind(live_server, transactional_db, browser_page):
    """Text to text hides the picture rubrics; a preset chosen for pictures falls back to the kind's default."""
    page, errors = browser_page
    CuratorFactory(username="cora")
    log_in(page, live_server.url, "cora", then="/console/campaigns/new/")
    page.select_option("select[name=kind]", "text-to-image")
    assert offered(page) == ["", "mmrb2-generation", "omni-criteria", "ab-tie", "arena"]
    page.select_option("select[name=preset]", "mmrb2-generation")
    page.wait_for_selector("[data-schema-preview] >> text=Image quality")
    page.select_option("select[name=kind]", "text-to-text")
    assert offered(page) == ["", "mmrb2-reasoning", "omni-criteria", "ab-tie", "arena"]
    assert page.input_value("select[name=preset]") == ""
    page.wait_for_selector("[data-schema-preview] >> text=Which response is better?")
    assert page.is_hidden("[data-schema-error]")
    page.select_option("select[name=kind]", "text-to-audio")
    assert offered(page) == ["", "omni-criteria", "ab-tie", "arena"]
    assert errors == []


def test_a_preview_answered_late_never_overwrites_the_latest_change(live_server, transactional_db, browser_page):
    """The preview of an earlier choice that arrives after the preview of a later one is dropped (seen in CI: the
    picture rubrics stayed on screen after the kind changed to text)."""
    page, errors = browser_page
    CuratorFactory(username="cleo")
    log_in(page, live_server.url, "cleo", then="/console/campaigns/new/")
    page.select_option("select[name=kind]", "text-to-image")
    page.wait_for_selector("[data-schema-preview] >> text=Image quality")
    held = []
    page.route("**/console/preview/form/", lambda route: held.append(route) if not held else route.continue_())
    page.select_option("select[name=preset]", "mmrb2-generation")  # its preview is held back
    page.select_option("select[name=kind]", "text-to-text")  # answered at once
    page.wait_for_selector("[data-schema-preview] >> text=Which response is better?")
    with page.expect_response("**/console/preview/form/"):
        held[0].continue_()  # the earlier choice's answer arrives last
    page.wait_for_timeout(300)
    assert page.locator("[data-schema-preview]").inner_text().count("Image quality") == 0
    assert "Which response is better?" in page.locator("[data-schema-preview]").inner_text()
    assert errors == []
