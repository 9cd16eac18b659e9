"""Inspecting images closely, in a real headless Chromium at the two screens raters use.

Every image on the page opens full screen; fit, 1:1 and zoom keep A and B on the same image point;
flicker, wipe and difference compare them in one frame; edits compare an output with its inputs;
interleaved answers sit step beside step and page by step.
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.workqueue.models import Assignment
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
SCREENS = [(1280, 720), (1440, 900)]


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def open_pair(browser, live_server, kind, size, username):
    """A new annotator of a new ``kind`` pair, on its annotation page at ``size``."""
    annotator = UserFactory(username=username)
    pair = make_pair(kind, annotators=[annotator], seed=len(username))
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_url("**/work/assignments/*/")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions[open]").count():
        page.keyboard.press("Escape")
    assert Assignment.objects.filter(pair=pair, annotator=annotator).exists()
    return page, errors


def level(page) -> str:
    return page.locator("[data-inspector-level]").inner_text()


def layer_boxes(page) -> list[dict]:
    return page.eval_on_selector_all(".inspector-layer", "els => els.map(e => e.getBoundingClientRect().toJSON())")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_outputs_open_full_screen_at_fit_and_1to1_with_a_and_b_panned_together(live_server, browser, size):
    page, errors = open_pair(browser, live_server, "text-to-image", size, f"insp-t2i-{size[0]}")
    page.keyboard.press("o")
    dialog = page.locator("#inspector")
    expect(dialog).to_have_attribute("open", "")
    assert page.locator(".inspector-frame").count() == 2  # A and B side by side
    assert page.locator("[data-inspector-title]").inner_text() == "Response A, image 1 · Response B, image 1"
    box = page.locator(".inspector-stage").bounding_box()
    assert box["width"] >= size[0] - 2 and box["height"] >= size[1] - 100  # the screen, less the toolbar
    page.wait_for_function("() => [...document.querySelectorAll('.inspector-layer img')].every(i => i.naturalWidth)")

    page.keyboard.press("1")  # one image pixel on one screen pixel: the 768 px test image is 768 px wide
    assert level(page) == "100 %"
    boxes = layer_boxes(page)
    assert [round(b["width"]) for b in boxes] == [768, 768]
    page.keyboard.press("ArrowLeft")
    moved = layer_boxes(page)
    assert moved[0]["x"] != boxes[0]["x"] and moved[0]["x"] - moved[1]["x"] == pytest.approx(boxes[0]["x"] - boxes[1]["x"])
    page.screenshot(path=str(SCREENSHOTS / f"inspector-1to1-{size[0]}.png"))
    page.keyboard.press("+")
    assert level(page) == "125 %"
    page.keyboard.press("0")
    fitted = layer_boxes(page)
    frame = page.locator(".inspector-frame").first.bounding_box()
    assert max(fitted[0]["width"] / frame["width"], fitted[0]["height"] / frame["height"]) == pytest.approx(1, abs=0.01)

    page.keyboard.press("Escape")
    expect(dialog).not_to_have_attribute("open", "")
    assert not errors


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_flicker_wipe_and_difference_compare_a_and_b_in_one_frame(live_server, browser):
    page, errors = open_pair(browser, live_server, "text-to-image", (1280, 720), "insp-flicker")
    page.keyboard.press("o")
    page.keyboard.press("t")  # tap: B in A's frame
    assert page.locator(".inspector-frame").count() == 1
    frame = page.locator(".inspector-frame")
    expect(frame).to_have_attribute("data-showing", "second")
    expect(page.locator(".inspector-tag")).to_have_text("Response B, image 1")
    page.keyboard.press("t")  # tap again: back to A
    expect(frame).to_have_attribute("data-showing", "first")
    page.keyboard.down("t")  # hold: B while held …
    page.wait_for_timeout(450)
    expect(frame).to_have_attribute("data-showing", "second")
    page.keyboard.up("t")  # … and A again on release
    expect(frame).to_have_attribute("data-showing", "first")

    page.keyboard.press("w")
    clip = "() => document.querySelectorAll('.inspector-layer img')[1].style.clipPath"
    assert page.evaluate(clip) == "inset(0px 0px 0px 50%)"
    page.keyboard.press("]")
    assert page.evaluate(clip) == "inset(0px 0px 0px 55%)"
    page.screenshot(path=str(SCREENSHOTS / "inspector-wipe.png"))

    page.keyboard.press("d")
    canvas = page.locator("canvas.inspector-diff")
    page.wait_for_function("() => document.querySelector('canvas.inspector-diff')?.dataset.changedShare !== undefined")
    assert 0 < float(canvas.get_attribute("data-changed-share")) <= 1  # two different pictures differ somewhere
    expect(page.locator(".inspector-tag")).to_contain_text("% of pixels differ")
    page.keyboard.press("b")
    assert page.locator(".inspector-frame").count() == 2
    assert not errors


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_edit_is_compared_with_each_input_and_the_inputs_show_once(live_server, browser):
    page, errors = open_pair(browser, live_server, "image-editing", (1280, 720), "insp-edit")
    assert page.locator(".pair img").count() - page.locator("[data-compare-input]").count() == 4  # 2 inputs + 2 outputs
    page.locator(".side[data-side=A] img.zoom-image").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("c")  # compare A's output with input 1, then input 2
    expect(page.locator("[data-inspector-title]")).to_have_text("Response A, image 1 · Input 1")
    page.keyboard.press("c")
    expect(page.locator("[data-inspector-title]")).to_have_text("Response A, image 1 · Input 2")
    page.keyboard.press("d")
    page.wait_for_function("() => document.querySelector('canvas.inspector-diff')?.dataset.changedShare !== undefined")
    page.screenshot(path=str(SCREENSHOTS / "inspector-edit-difference.png"))
    page.keyboard.press("Escape")
    page.locator(".prompt img").first.click()  # a prompt image opens alone
    expect(page.locator("[data-inspector-title]")).to_have_text("Input 1")
    assert page.locator(".inspector-frame").count() == 1
    assert page.locator("[data-inspector-action=flicker]").is_disabled()
    assert not errors


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_reasoning_input_and_tool_result_images_open_in_the_inspector(live_server, browser):
    page, errors = open_pair(browser, live_server, "reasoning", (1280, 720), "insp-reason")
    page.locator(".tool-result img").click()
    expect(page.locator("#inspector")).to_have_attribute("open", "")
    side = page.locator(".tool-result img").evaluate("img => img.closest('[data-side]').dataset.side")  # sides are random
    expect(page.locator("[data-inspector-title]")).to_have_text(f"Response {side}, image 1")
    # 1:1 is measured on the image's own pixels: once it has loaded (CI once read 89 % before it had)
    page.wait_for_function("() => [...document.querySelectorAll('.inspector-layer img')].every(i => i.naturalWidth)")
    page.keyboard.press("1")
    assert level(page) == "100 %"
    page.keyboard.press("q")
    page.locator(".prompt img").click()
    expect(page.locator("[data-inspector-title]")).to_have_text("Input 1")
    assert not errors


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_interleaved_steps_sit_side_by_side_and_space_moves_both_by_one_step(live_server, browser, size):
    page, errors = open_pair(browser, live_server, "interleaved", size, f"insp-steps-{size[0]}")
    tops = """() => [...document.querySelectorAll('.side')].map(side =>
        [...side.querySelectorAll('.istep')].map(step => Math.round(step.getBoundingClientRect().top)))"""
    page.wait_for_function("() => [...document.querySelectorAll('.side-scroll img')].every(i => i.complete)")
    a, b = page.evaluate(tops)
    assert len(a) == len(b) == 3  # step N of A starts beside step N of B
    assert all(abs(top_a - top_b) <= 1 for top_a, top_b in zip(a, b, strict=True)), (a, b)
    page.keyboard.press("Space")
    scrolled = page.eval_on_selector_all("[data-side-scroll]", "els => els.map(e => Math.round(e.scrollTop))")
    step_two = "e => Math.round(e.querySelectorAll('.istep')[1].offsetTop - e.firstElementChild.offsetTop)"
    second = page.eval_on_selector_all("[data-side-scroll]", f"els => els.map({step_two})")
    assert scrolled == second and scrolled[0] > 0
    page.screenshot(path=str(SCREENSHOTS / f"interleaved-step-2-{size[0]}.png"))
    page.keyboard.press("Shift+Space")
    assert page.eval_on_selector_all("[data-side-scroll]", "els => els.map(e => e.scrollTop)") == [0, 0]
    page.keyboard.press("p")
    expect(page.locator("#prompt")).to_have_class("prompt expanded")
    assert not errors


# wavesurfer.js draws inside a shadow root: a waveform per response, each with its canvas drawn.
WAVEFORMS_DRAWN = """() => [...document.querySelectorAll('.side .waveform')].filter(
    w => w.firstElementChild?.shadowRoot?.querySelector('canvas')).length === 2"""


def heard(page) -> list[float]:
    return page.eval_on_selector_all(".side [data-heard]", "els => els.map(e => Number(e.dataset.heard))")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_audio_responses_play_restart_and_switch_at_the_same_moment_on_keys(live_server, browser):
    page, errors = open_pair(browser, live_server, "text-to-audio", (1280, 720), "insp-audio")
    page.wait_for_function(WAVEFORMS_DRAWN)
    media = "els => els.map(e => ({paused: e.paused, t: e.currentTime}))"
    assert heard(page) == [0, 0]
    page.keyboard.press("m")  # A plays …
    page.wait_for_function("() => document.querySelector('.side[data-side=A] audio').currentTime > 0.3")
    page.keyboard.press(";")  # … then B from the same moment
    a, b = page.eval_on_selector_all(".side audio", media)
    assert a["paused"] and not b["paused"] and b["t"] >= a["t"] - 0.05
    page.wait_for_function("() => document.querySelector('.side[data-side=B] audio').ended")
    share_a, share_b = heard(page)
    assert 0 < share_a < 1 and share_b < 1  # neither was heard from start to end
    page.keyboard.press(",")  # B from the start, to its end
    page.wait_for_function("() => document.querySelector('.side[data-side=B] audio').ended")
    assert heard(page)[1] == 1
    expect(page.locator(".side[data-side=B] .media-heard")).to_have_text("heard 100 %")
    page.keyboard.press("?")
    expect(page.locator("[data-shortcut-list]")).to_contain_text("Switch to the other response at the same moment")
    page.screenshot(path=str(SCREENSHOTS / "audio-pair.png"))
    assert not errors
