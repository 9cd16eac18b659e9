"""The annotator's day in a real headless Chromium: every kind rated with the keyboard alone, blind.

For each kind the annotator logs in, opens the campaign, reads the instructions, rates half the
form, reloads and finds the draft, triggers the inline required-field messages, finishes with the
keyboard, submits twice (and once more through a lost response), and moves on. Every page and
every response body the browser receives is searched for the model names and ids.
"""

import json
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.catalogue import schemas
from annotation.workqueue.models import Annotation, Assignment
from tests.browser import chromium
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import SECRET, add_pair, make_pair

# Playwright's sync API runs an event loop in this thread; the ORM calls of the test itself are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
TIMEOUT_MS = 15_000

# Keys pressed before the reload, the answers they give (as shown), then after the reload: the
# first Ctrl+Enter reveals the missing answers and puts the cursor on the first one; these keys finish.
PLANS = {
    "text-to-image": {
        "before": ["3", "2", "2", "1"],
        "draft": {"text_faithfulness": {"A": 3, "B": 2}, "image_quality": {"A": 2, "B": 1}},
        "missing": ["overall", "rationale", "prompt_valid"],
        "after": ["2", "Enter", "text:A follows the prompt; B misses the sun.", "Escape", "j", "y"],  # 2: A marginally
        "final": {"overall": 5, "rationale": "A follows the prompt; B misses the sun.", "prompt_valid": True},
    },
    "image-editing": {
        # One rubric for each side, so that "B marginally better" overall contradicts nothing (no consistency prompt).
        "before": ["3", "2", "1", "3", "2", "2"],
        "draft": {"text_faithfulness": {"A": 3, "B": 2}, "image_faithfulness": {"A": 1, "B": 3},
                  "image_quality": {"A": 2, "B": 2}},
        "missing": ["overall", "rationale", "prompt_valid"],
        "after": ["5", "r", "text:B keeps the input intact.", "Escape", "j", "n"],  # 5: B marginally better
        "final": {"overall": 2, "rationale": "B keeps the input intact.", "prompt_valid": False},
    },
    "interleaved": {
        "before": ["3", "3", "2", "2", "1", "1"],
        "draft": {"text_faithfulness": {"A": 3, "B": 3}, "image_faithfulness": {"A": 2, "B": 2},
                  "image_quality": {"A": 1, "B": 1}},
        "missing": ["cross_image_congruence", "text_image_alignment", "text_quality", "overall", "rationale", "prompt_valid"],
        "after": ["2", "2", "3", "3", "1", "2", "3", "Enter", "text:Both fine; A reads better.", "Escape", "j", "y"],
        "final": {"cross_image_congruence": {"A": 2, "B": 2}, "text_image_alignment": {"A": 3, "B": 3},
                  "text_quality": {"A": 1, "B": 2}, "overall": 4, "rationale": "Both fine; A reads better.",
                  "prompt_valid": True},
    },
    "reasoning": {
        "before": ["1"],
        "draft": {"correctness": {"A": 1}},
        "missing": ["correctness", "rationale", "prompt_valid"],
        "after": ["5", "Enter", "text:B counts three hills; there is one.", "Escape", "j", "y"],
        "final": {"correctness": {"A": 1, "B": 5}, "rationale": "B counts three hills; there is one.", "prompt_valid": True},
    },
    "audio-to-text": {
        "before": ["1"],
        "draft": {"criteria": [{"criterion": "Describes the sound accurately", "label": "A"}]},
        "missing": ["criteria"],
        "after": ["2", "r", "text:Only A hears a tone.", "Escape"],  # 2: equivalent, in the middle
        "final": {"criteria": [{"criterion": "Describes the sound accurately", "label": "A"},
                               {"criterion": "Answers in one sentence", "label": "tie"}],
                  "rationale": "Only A hears a tone."},
    },
}


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


class Recorder:
    """Every response the page receives (URL, headers, body), read as it arrives, for the blind check."""

    def __init__(self, page):
        self.seen = []
        page.on("response", self.record)

    def record(self, response):
        body = b"" if 300 <= response.status < 400 else response.body()  # a redirect has no body
        self.seen.append((response.url, response.status, json.dumps(response.headers), body))

    def leaks(self) -> list[str]:
        return [
            f"{status} {url}"
            for url, status, headers, body in self.seen
            if any(SECRET in text.lower() for text in (url, headers, body.decode("latin-1")))
        ]


def press(page, keys):
    for key in keys:
        if key.startswith("text:"):
            page.keyboard.type(key[5:])
        else:
            page.keyboard.press(key)


def checked_names(page) -> set[str]:
    script = "els => els.map(e => e.name + '=' + e.value)"
    return set(page.eval_on_selector_all("[data-rating-form] input[type=radio]:checked", script))


def expected_checked(values: dict) -> set[str]:
    out = set()
    for qid, value in values.items():
        if isinstance(value, dict):
            out |= {f"{qid}.{side}={json.dumps(v)}" for side, v in value.items()}
        elif isinstance(value, list):
            out |= {f"{qid}.{i}={json.dumps(item['label'])}" for i, item in enumerate(value)}
        elif not isinstance(value, str):
            out.add(f"{qid}={json.dumps(value)}")
    return out


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_annotator_rates_one_pair_of_every_kind_with_the_keyboard_blind(live_server, browser):
    annotator = UserFactory(username="rater-ws")
    pairs = {kind: make_pair(kind, annotators=[annotator], seed=i + 1) for i, kind in enumerate(PLANS)}
    # A second, lower-priority text-to-image pair: reached with "next", then skipped with a reason.
    second = add_pair(pairs["text-to-image"].campaign, seed=9, priority=-1)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    recorder = Recorder(page)
    html_seen = []

    page.goto(f"{live_server.url}/login/")
    expect(page.locator("input[name=username]")).to_be_focused()  # the form opens with the cursor in it
    page.keyboard.type("rater-ws")
    page.keyboard.press("Tab")
    page.keyboard.type("pw")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/")

    for kind, plan in PLANS.items():
        pair = pairs[kind]
        page.goto(f"{live_server.url}/work/")
        html_seen.append(page.content())
        key = page.locator(f'a[href="/work/campaigns/{pair.campaign.slug}/"]').get_attribute("data-campaign-key")
        page.keyboard.press(key)  # open the campaign by its number
        page.wait_for_url(f"**/work/campaigns/{pair.campaign.slug}/")
        assert page.locator("[data-instructions]").get_attribute("open") is not None  # first visit: instructions open
        if kind == "text-to-image":
            page.screenshot(path=str(SCREENSHOTS / "queue.png"))
        page.keyboard.press("Enter")  # start rating
        page.wait_for_url("**/work/assignments/*/")
        page.wait_for_selector("body[data-workspace-ready]")
        assignment = Assignment.objects.get(pair=pair, annotator=annotator)

        # The instructions open on the first visit and close with Escape; ? lists the shortcuts.
        assert page.locator("#instructions").is_visible()
        page.keyboard.press("Escape")
        page.keyboard.press("?")
        assert page.locator("#shortcuts").is_visible()
        assert "Submit" in page.locator("[data-shortcut-list]").inner_text()
        if kind == "image-editing":
            page.screenshot(path=str(SCREENSHOTS / "shortcuts.png"))
        page.keyboard.press("Escape")

        check_viewing_aids(page, kind)
        press(page, plan["before"])
        page.wait_for_selector('[data-save-state][data-state="saved"]')
        assignment.refresh_from_db()
        assert assignment.draft == plan["draft"]

        # The claim answered with the page; its address is the page's own, so a reload is a GET of it, not the claim.
        assert page.url.endswith(f"/work/assignments/{assignment.pk}/")
        with page.expect_request(lambda request: request.is_navigation_request()) as reloaded:
            page.reload()
        assert (reloaded.value.method, reloaded.value.url) == ("GET", page.url)
        page.wait_for_selector("body[data-workspace-ready]")
        assert not page.locator("#instructions").is_visible()  # shown once; `i` brings it back
        page.keyboard.press("i")
        assert page.locator("#instructions").is_visible()
        page.keyboard.press("i")
        assert checked_names(page) == expected_checked(plan["draft"])

        page.keyboard.press("Control+Enter")  # incomplete: inline messages, nothing sent
        for qid in plan["missing"]:
            assert page.locator(f'[data-error-for="{qid}"]').is_visible(), qid
        assert not Annotation.objects.filter(pair=pair).exists()

        press(page, plan["after"])
        answers = {**plan["draft"], **plan["final"]}
        assert checked_names(page) == expected_checked(answers)
        page.screenshot(path=str(SCREENSHOTS / f"{kind}.png"))
        html_seen.append(page.content())

        if kind == "text-to-image":
            lose_first_submit_response(page)
        page.keyboard.press("Control+Enter")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("[data-done]:not([hidden])")

        annotation = Annotation.objects.get(pair=pair)
        assert Annotation.objects.filter(pair=pair).count() == 1
        assignment.refresh_from_db()
        assert assignment.status == Assignment.Status.SUBMITTED
        definition = pair.campaign.rating_schema.definition
        assert annotation.values == schemas.reorient(definition, answers, swapped=assignment.swapped)
        assert annotation.shown_swapped == assignment.swapped
        assert 0 < annotation.time_on_item_ms < 600_000

        page.keyboard.press("Enter")  # next pair
        if kind == "text-to-image":
            page.wait_for_url("**/work/assignments/*/")
            page.wait_for_selector("body[data-workspace-ready]")
            page.keyboard.press("x")
            assert page.locator("#skip-dialog").is_visible()
            page.keyboard.press("Enter")  # no reason yet: refused inline
            assert page.locator("[data-skip-error]").is_visible()
            page.keyboard.press("1")
            page.keyboard.press("Enter")
        page.wait_for_url(f"**/work/campaigns/{pair.campaign.slug}/")
        assert "Nothing is left for you" in page.content()

    skipped = Assignment.objects.get(pair=second, annotator=annotator)
    assert (skipped.status, skipped.skip_reason) == (Assignment.Status.SKIPPED, "outside_expertise")
    assert not Annotation.objects.filter(pair=second).exists()

    page.goto(f"{live_server.url}/work/me/")
    assert page.locator('[data-period="today"] .stat b').first.inner_text() == str(len(PLANS))
    html_seen.append(page.content())
    page.screenshot(path=str(SCREENSHOTS / "me.png"))

    leaks = recorder.leaks() + [f"page {i}" for i, html in enumerate(html_seen) if SECRET in html.lower()]
    assert not leaks, f"model names or ids reached the annotator: {leaks}"
    media = [(url, status) for url, status, _, _ in recorder.seen if "/media/" in url]
    assert len(media) >= 10 and all(status in (200, 206) for _, status in media), media  # 206: audio asks for ranges
    assert any("/api/v1/assignments/" in url for url, *_ in recorder.seen)
    context.close()


def lose_first_submit_response(page):
    """The first submit reaches the server but its response is lost; the page retries with the same key."""
    state = {"lost": False}

    def handle(route):
        if state["lost"]:
            route.continue_()
            return
        route.fetch()  # the server stores the annotation…
        state["lost"] = True
        route.abort("connectionreset")  # …and the browser never hears back

    page.route("**/api/v1/assignments/*/submit/", handle)


def check_viewing_aids(page, kind):
    """The kind's viewing aids answer their keys: zoom both sides, compare with inputs, sync scroll, fold steps."""
    transforms = "[...document.querySelectorAll('[data-zoom-content]')].map(e => e.style.transform)"
    if kind in ("text-to-image", "image-editing"):
        page.keyboard.press("+")
        assert page.locator("[data-zoom-level]").inner_text() == "125%"
        zoomed = page.evaluate(transforms)
        assert len(zoomed) == 2 and zoomed[0] == zoomed[1] and "scale(1.25)" in zoomed[0]
        page.keyboard.press("Shift+ArrowRight")
        panned = page.evaluate(transforms)
        assert panned[0] == panned[1] != zoomed[0]
        page.keyboard.press("z")
        assert page.locator("[data-zoom-level]").inner_text() == "100%"
    if kind == "image-editing":
        tags = page.locator("[data-compare-tag]")
        assert tags.first.inner_text() == "output"
        page.keyboard.press("c")
        assert tags.first.inner_text() == tags.last.inner_text() == "input 1"
        page.keyboard.press("v")
        assert tags.first.inner_text() == "input 2"
        sources = page.eval_on_selector_all("[data-compare-input]", "els => els.map(e => e.getAttribute('src'))")
        assert sources[0] == sources[1] == page.locator("[data-compare-choose]").nth(1).get_attribute("data-compare-choose")
        page.keyboard.press("c")
        assert tags.first.inner_text() == "output"
    if kind == "interleaved":
        scroll = "([a, b]) => { a.scrollTop = a.scrollHeight; return new Promise(r => setTimeout(() => r(b.scrollTop), 150)); }"
        assert page.eval_on_selector_all("[data-side-scroll]", f"els => ({scroll})(els)") > 0  # on: B follows A
        page.keyboard.press("s")
        page.eval_on_selector_all("[data-side-scroll]", "els => els.forEach(e => { e.scrollTop = 0; })")
        page.wait_for_timeout(150)
        assert page.eval_on_selector_all("[data-side-scroll]", f"els => ({scroll})(els)") == 0  # off: B stays
        page.keyboard.press("s")
    if kind == "reasoning":
        page.keyboard.press("e")
        assert page.eval_on_selector_all("[data-step]", "els => els.filter(e => e.open).length") == 0
        page.keyboard.press("e")
        assert page.eval_on_selector_all("[data-step]", "els => els.every(e => e.open)")
