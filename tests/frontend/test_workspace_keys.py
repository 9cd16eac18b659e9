"""Every control on a key, and pages that pass axe-core, in a real headless Chromium.

The walk visits the annotation page of every kind (rating, with each dialog open, and submitted) and the review
page of a submitted pair, and fails for any visible interactive control that has no key (neither
``aria-keyshortcuts`` nor a ``<kbd>`` in itself or its label) and for any key a control names that the page does
not bind. axe-core (vendored under tests/frontend/vendor, never served by Concord) checks the same pages, the
queue and the rater's own page for serious or critical violations.
"""

import os
from pathlib import Path

import pytest

from annotation.workqueue.models import AnnotationRevision, Assignment
from annotation.workqueue.services.assignments import annotation_submit, assignment_claim
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
AXE_SOURCE = (Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
KINDS = ["text-to-image", "image-editing", "interleaved", "reasoning", "audio-to-text", "text-to-audio", "text-to-3d"]
SCREENS = [(1280, 720), (1440, 900)]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

# Interactive controls in the page (the top bar's site navigation aside) that a rater could reach.
UNKEYED = """() => {
  const selector = "button, a[href], input, select, textarea, summary, [role=button], [tabindex]:not([tabindex='-1']), "
    + "audio[controls], video[controls]";
  const shown = (el) => el.closest("dialog[open]") || !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const keyed = (el) => el.hasAttribute("aria-keyshortcuts") || el.querySelector("kbd")
    || el.closest("label")?.querySelector("kbd");
  return [...document.querySelectorAll(selector)]
    .filter((el) => !el.closest(".topbar") && !el.closest("dialog:not([open])") && shown(el) && !keyed(el))
    .map((el) => el.outerHTML.slice(0, 140));
}"""


# Keys a visible control names (aria-keyshortcuts, in ARIA's spelling) that the page's key registry does not bind.
UNBOUND = """async () => {
  const script = document.querySelector("script[type=module][src*='/workspace/']");
  const { boundKeys } = await import(new URL("keys.js", script.src).href);
  const bound = new Set(boundKeys().map((key) => key.replace("Ctrl+", "Control+")));
  bound.add("Escape");  // a dialog closes on Escape by itself
  const shown = (el) => el.closest("dialog[open]") || !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  return [...document.querySelectorAll("[aria-keyshortcuts]")]
    .filter((el) => !el.closest(".topbar") && !el.closest("dialog:not([open])") && shown(el))
    .flatMap((el) => el.getAttribute("aria-keyshortcuts").split(" ").filter((key) => !bound.has(key))
      .map((key) => `${key}: ${el.outerHTML.slice(0, 100)}`));
}"""


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def axe_violations(page) -> list[str]:
    """Serious and critical axe-core violations on the page as it is now, one line each.

    axe is evaluated through the DevTools protocol rather than as a <script> tag (an inline script)."""
    page.evaluate(AXE_SOURCE)
    results = page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'], "
                            "rules: { 'label-content-name-mismatch': { enabled: true } } })).violations")
    return [
        f"{v['impact']} {v['id']}: {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SCREENS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_control_on_the_annotation_page_has_a_key_and_axe_finds_nothing_serious(live_server, browser, kind, size):
    annotator = UserFactory(username=f"keys-{kind}-{size[0]}")
    pair = make_pair(kind, annotators=[annotator], seed=3)
    # axe-core itself writes styles while it measures contrast, which the page's policy refuses; the policy is
    # checked on these pages by every other browser test (tests/frontend/test_csp_browser.py among them).
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    assert not axe_violations(page), "queue"
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    page.keyboard.press("Escape")  # the first visit's instructions
    assert page.evaluate(UNKEYED) == [], "rating"
    assert page.evaluate(UNBOUND) == [], "rating"
    assert axe_violations(page) == [], "annotation page"
    for key in ("?", "x", "i"):  # each dialog's controls have keys too
        page.keyboard.press(key)
        assert page.evaluate(UNKEYED) == [], f"dialog of {key}"
        page.keyboard.press("Escape")
    if page.locator("[data-inspect-open]:visible").count():
        page.keyboard.press("o")
        assert page.evaluate(UNKEYED) == [], "inspector"
        assert axe_violations(page) == [], "inspector"
        page.keyboard.press("Escape")
    page.screenshot(path=str(SCREENSHOTS / f"keys-{kind}-{size[0]}x{size[1]}.png"))
    page.evaluate("() => document.querySelector('[data-actions]').hidden = true")
    page.evaluate("() => document.querySelector('[data-done]').hidden = false")  # the submitted state's controls
    assert page.evaluate(UNKEYED) == [], "submitted"
    page.goto(f"{live_server.url}/work/me/")
    assert axe_violations(page) == [], "my work"
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("kind", "size"), [("text-to-image", SCREENS[0]), ("interleaved", SCREENS[1])])
def test_the_review_page_has_the_rating_pages_keys_and_each_key_it_shows_works(live_server, browser, kind, size):
    annotator = UserFactory(username=f"review-keys-{kind}")
    pair = make_pair(kind, annotators=[annotator], seed=5)
    assignment = assignment_claim(campaign=pair.campaign, annotator=annotator)
    definition = pair.campaign.rating_schema.definition  # every rubric scored 2 for A and 1 for B, then A overall
    values = {q["id"]: {"A": 2, "B": 1} for q in definition["questions"] if q.get("scope") == "response"}
    values |= {"overall": 5, "rationale": "A is closer.", "prompt_valid": True}
    annotation_submit(assignment=assignment, annotator=annotator, values=values, time_on_item_ms=900,
                      idempotency_key=f"review-keys-{kind}")
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/work/assignments/{assignment.pk}/review/")
    page.wait_for_selector("body[data-review-ready]")
    assert page.evaluate(UNKEYED) == [], "review"
    assert page.evaluate(UNBOUND) == [], "review"
    assert axe_violations(page) == [], "review page"
    page.screenshot(path=str(SCREENSHOTS / f"review-{kind}-{size[0]}x{size[1]}.png"))
    page.keyboard.press("?")
    listed = page.locator("#shortcuts dd").all_inner_texts()
    for label in ("Next question", "Save the correction", "Withdraw my answer (asks first)", "Back to My work",
                  "Show the whole prompt, or fold it back"):
        assert label in listed, label
    overall = [f"{o.locator('kbd').inner_text()} {o.locator('span').inner_text()}"
               for o in page.locator("[data-question=overall] label.option").all()]
    sheet = [li.inner_text() for li in page.locator("#shortcuts [data-answer-keys~=overall] li").all()]
    assert sheet == overall and overall[0] == "1 A significantly better", "the answer keys as the rating page has them"
    assert page.evaluate(UNKEYED) == [], "shortcuts"
    page.keyboard.press("Escape")
    page.keyboard.press("p")
    assert "expanded" in page.get_attribute("#prompt", "class")
    page.keyboard.press("p")
    if page.locator("[data-inspect-open]:visible").count():
        page.keyboard.press("o")
        page.wait_for_selector("#inspector[open]")
        page.keyboard.press("Escape")
    first = page.locator("[data-row]").first
    page.keyboard.press(first.locator("input[type=radio]").last.get_attribute("data-key"))
    assert first.locator("input[type=radio]").last.is_checked(), "a digit picks in the highlighted question"
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-save-state]:has-text('Correction saved')")
    assert AnnotationRevision.objects.filter(assignment=assignment).count() == 2, "as submitted, then corrected"
    history = page.locator("[data-revisions] li").all_inner_texts()
    assert history[0].startswith("Submitted ") and history[-1].startswith("Corrected ")
    assert history[0][-8:-3].count(":") == history[-1][-8:-3].count(":"), "one way of writing times"
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.keyboard.press("W")  # asks first; dismissed, nothing withdrawn
    page.wait_for_timeout(200)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.SUBMITTED
    page.keyboard.press("g")
    page.wait_for_url(f"{live_server.url}/work/me/")
    context.close()
