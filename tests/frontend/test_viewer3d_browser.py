"""A text-to-3D pair judged in the browser, in a real headless Chromium (WebGL through SwiftShader): both GLB
responses are drawn, dragging one orbits both, the arrow keys on a focused view and + turn and zoom both, `z`
resets both, and the file the page loads names no model."""

import io
import os

import pytest
from PIL import Image
from playwright.sync_api import expect

from annotation.workqueue.services.assignments import annotation_submit, assignment_claim
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.test_workspace_keys import SCREENS, SCREENSHOTS, UNBOUND, UNKEYED, axe_violations
from tests.frontend.workspace_pairs import SECRET, add_pair, make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

FRAME = ".side[data-side={}] [data-model3d-frame]"
HOME = "1.6000,1.1000,2.2000"  # orbit.js HOME.position, as the frames show it
POSES = "() => [...document.querySelectorAll('[data-model3d-frame]')].map((frame) => frame.dataset.camera)"
BACKGROUND = (0xF1, 0xF3, 0xF6)


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def drawn_share(png: bytes) -> float:
    """The share of a frame's pixels that are not its background: the model drawn."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    pixels = list(image.get_flattened_data())
    far = sum(1 for pixel in pixels if max(abs(c - b) for c, b in zip(pixel, BACKGROUND, strict=True)) > 24)
    return far / len(pixels)


def mean_colour(png: bytes) -> tuple[float, float, float]:
    """The mean colour of the drawn pixels: the cube is blue, the pyramid orange."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    drawn = [p for p in image.get_flattened_data() if max(abs(c - b) for c, b in zip(p, BACKGROUND, strict=True)) > 24]
    return tuple(sum(p[i] for p in drawn) / len(drawn) for i in range(3))


def poses(page) -> list[str]:
    return page.evaluate(POSES)


def distance(pose: str) -> float:
    return sum(float(v) ** 2 for v in pose.split(",")) ** 0.5


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SCREENS)
def test_a_glb_pair_is_drawn_and_both_models_orbit_zoom_and_reset_together(live_server, browser, size):
    width, height = size
    rater = UserFactory(username=f"viewer3d-{width}")
    pair = make_pair("text-to-3d", annotators=[rater], seed=40 + width % 7)
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_url("**/work/assignments/*/")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions[open]").count():
        page.keyboard.press("Escape")
    page.wait_for_function("() => [...document.querySelectorAll('[data-model3d-frame]')]"
                           ".filter((f) => f.dataset.model3dLoaded === 'true').length === 2")
    frames = [page.locator(FRAME.format(side)) for side in "AB"]
    assert poses(page) == [HOME, HOME]

    # Both drawn, each its own model: most of a frame is background, a real share is the solid.
    shots = [frame.screenshot() for frame in frames]
    for side, shot in zip("AB", shots, strict=True):
        assert drawn_share(shot) > 0.05, f"response {side}'s 3D view is blank"
    bluer = [blue > red for red, _, blue in map(mean_colour, shots)]
    assert sorted(bluer) == [False, True], "one side the blue cube, the other the orange pyramid (in either order)"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"viewer3d-home-{width}x{height}.png"))

    # Dragging A orbits A, and B takes the same pose.
    box = frames[0].bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 90, y + 30, steps=8)
    page.mouse.up()
    page.wait_for_function(f"() => ({POSES})()[0] !== '{HOME}'")
    dragged = poses(page)
    assert dragged[0] == dragged[1] != HOME
    after = [frame.screenshot() for frame in frames]
    assert after[0] != shots[0] and after[1] != shots[1], "both views are drawn again from the new pose"
    page.screenshot(path=str(SCREENSHOTS / f"viewer3d-orbited-{width}x{height}.png"))

    # z: both back home.
    page.keyboard.press("z")
    assert poses(page) == [HOME, HOME]

    # Keyboard: B focused, the arrows turn both (and ↓ does not move the form's question); + zooms both in.
    question = ("() => [...document.querySelectorAll('[data-rating-form] .current')]"
                ".map((e) => e.id || e.dataset.row || e.className).join('|')")
    before_question = page.evaluate(question)
    page.focus(FRAME.format("B"))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowDown")
    turned = poses(page)
    assert turned[0] == turned[1] != HOME
    assert page.evaluate(question) == before_question
    page.keyboard.press("+")
    zoomed = poses(page)
    assert zoomed[0] == zoomed[1] and distance(zoomed[0]) < distance(turned[0])
    expect(page.locator("[data-zoom-level]")).to_have_text("125%")  # the toolbar's level follows the 3D zoom
    page.keyboard.press("z")
    assert poses(page) == [HOME, HOME]
    expect(page.locator("[data-zoom-level]")).to_have_text("100%")

    # The `?` sheet names the keys.
    page.keyboard.press("?")
    listed = page.locator("#shortcuts dd").all_inner_texts()
    assert "Reset the 3D view (both sides)" in listed and any(text.startswith("Turn the 3D models") for text in listed)
    page.screenshot(path=str(SCREENSHOTS / f"viewer3d-shortcuts-{width}x{height}.png"))
    page.keyboard.press("Escape")

    # Blind: the page and the very file it drew name no model.
    assert SECRET not in page.content()
    url = frames[0].get_attribute("data-model3d-url")
    served = page.evaluate("async (url) => { const r = await fetch(url); const b = new Uint8Array(await r.arrayBuffer());"
                           " return String.fromCharCode(...b); }", url)
    assert served.startswith("glTF") and SECRET not in served
    assert errors == []
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_3d_pair_has_a_key_for_every_control_and_axe_finds_nothing_serious(live_server, browser):
    rater = UserFactory(username="viewer3d-axe")
    pair = make_pair("text-to-3d", annotators=[rater], seed=61)
    # axe-core writes styles while it measures contrast, which the page's policy refuses (as in test_workspace_keys).
    context = browser.new_context(viewport={"width": 1280, "height": 720}, bypass_csp=True)
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions[open]").count():
        page.keyboard.press("Escape")
    page.wait_for_selector("[data-model3d-frame][data-model3d-loaded=true]")
    expect(page.locator("[data-model3d-download]:visible")).to_have_count(0)
    assert page.evaluate(UNKEYED) == []
    assert page.evaluate(UNBOUND) == []
    assert axe_violations(page) == []
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_review_page_of_a_submitted_3d_pair_draws_both_models_and_turns_them_together(live_server, browser):
    rater = UserFactory(username="viewer3d-review")
    pair = make_pair("text-to-3d", annotators=[rater], seed=62)
    assignment = assignment_claim(campaign=pair.campaign, annotator=rater)
    values = {"criteria": [{"criterion": criterion, "label": "A"} for criterion in pair.criteria], "rationale": "A."}
    annotation_submit(assignment=assignment, annotator=rater, values=values, time_on_item_ms=900,
                      idempotency_key="viewer3d-review")
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/assignments/{assignment.pk}/review/")
    page.wait_for_selector("body[data-review-ready]")
    page.wait_for_function("() => [...document.querySelectorAll('[data-model3d-frame]')]"
                           ".filter((f) => f.dataset.model3dLoaded === 'true').length === 2")
    page.focus(FRAME.format("A"))
    page.keyboard.press("ArrowRight")
    turned = poses(page)
    assert turned[0] == turned[1] != HOME
    page.keyboard.press("z")
    assert poses(page) == [HOME, HOME]
    page.screenshot(path=str(SCREENSHOTS / "viewer3d-review-1440x900.png"))
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_next_3d_pair_shown_in_place_draws_its_own_models_and_the_last_pairs_views_are_gone(live_server, browser):
    rater = UserFactory(username="viewer3d-next")
    first = make_pair("text-to-3d", annotators=[rater], seed=63)
    add_pair(first.campaign, seed=64, priority=-1)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/campaigns/{first.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions[open]").count():
        page.keyboard.press("Escape")
    page.wait_for_selector("body[data-next-prefetched]")
    page.evaluate("() => { window.sameDocument = true; }")
    loaded = ("() => [...document.querySelectorAll('[data-model3d-frame]')]"
              ".filter((f) => f.dataset.model3dLoaded === 'true').length === 2")
    page.wait_for_function(loaded)
    page.focus(FRAME.format("A"))
    page.keyboard.press("ArrowLeft")  # the first pair left turned: the next one starts at home all the same
    for key in ("1", "1", "Control+Enter"):
        page.keyboard.press(key)
    page.wait_for_selector("[data-done]:not([hidden])")
    page.evaluate("() => { window.firstCanvases = [...document.querySelectorAll('canvas')]; }")
    page.keyboard.press("n")
    page.wait_for_selector("body[data-workspace-ready='2']")
    assert page.evaluate("() => window.sameDocument") is True, "the prepared page was shown in place"
    page.wait_for_function(loaded)
    assert page.locator("canvas").count() == 2
    # A browser keeps only so many WebGL contexts: the first pair's were given up with its page.
    assert page.evaluate("() => window.firstCanvases.map((c) => c.getContext('webgl2').isContextLost())") == [True, True]
    assert poses(page) == [HOME, HOME]
    assert errors == []
    context.close()


CUBE_CORNERS = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
# Twelve triangles of the cube, as indices into CUBE_CORNERS (two per face).
CUBE_TRIANGLES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
                  (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


def red_ply_cube(name: str) -> bytes:
    """An ASCII PLY cube with red vertex colours and triangle faces, whose comment and obj_info name the model."""
    header = ("ply\nformat ascii 1.0\n"
              f"comment exported by {name}\nobj_info {name}\n"
              f"element vertex {len(CUBE_CORNERS)}\nproperty float x\nproperty float y\nproperty float z\n"
              "property uchar red\nproperty uchar green\nproperty uchar blue\n"
              f"element face {len(CUBE_TRIANGLES)}\nproperty list uchar int vertex_indices\nend_header\n")
    vertices = "".join(f"{x} {y} {z} 220 40 30\n" for x, y, z in CUBE_CORNERS)
    faces = "".join(f"3 {a} {b} {c}\n" for a, b, c in CUBE_TRIANGLES)
    return (header + vertices + faces).encode()


def green_obj_cube(name: str) -> bytes:
    """A Wavefront OBJ cube with green vertex colours, whose comment, object, group and materials name the model."""
    lines = [f"# exported by {name}", f"mtllib {name}.mtl", f"o {name}", f"g {name}-body"]
    lines += [f"v {x} {y} {z} 0.15 0.7 0.25" for x, y, z in CUBE_CORNERS]
    lines += [f"usemtl {name}-paint"] + [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in CUBE_TRIANGLES]
    return ("\n".join(lines) + "\n").encode()


def binary_stl_cube(name: str) -> bytes:
    """A binary STL cube whose facets' normals are 0 0 0, as many exporters write them, its 80-byte header naming
    the model."""
    import struct

    header = f"solid exported by {name}".encode().ljust(80, b" ")
    facets = b"".join(struct.pack("<12fH", 0, 0, 0, *(c for i in triangle for c in CUBE_CORNERS[i]), 0)
                      for triangle in CUBE_TRIANGLES)
    return header + struct.pack("<I", len(CUBE_TRIANGLES)) + facets


MESHES = {"ply": (red_ply_cube, (220, 40, 30)), "obj": (green_obj_cube, (38, 178, 64)), "stl": (binary_stl_cube, None)}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("formats", [("ply", "stl"), ("obj", "stl")], ids="-".join)
@pytest.mark.parametrize("size", SCREENS)
def test_ply_obj_and_stl_responses_are_drawn_orbit_together_and_are_served_without_their_names(
        live_server, browser, size, formats):
    from annotation.catalogue import content
    from annotation.catalogue.services.media import media_store

    width, height = size
    rater = UserFactory(username=f"viewer3d-{formats[0]}-{width}")
    pair = make_pair("text-to-3d", annotators=[rater], seed=60 + width % 7)
    files = [media_store(data=MESHES[kind][0](f"{SECRET}-x-exporter"), name=f"{SECRET}-x-cube.{kind}") for kind in formats]
    for response, media in zip((pair.response_a, pair.response_b), files, strict=True):
        response.content = [{"type": "model3d", "media": media.sha256, "alt": ""}]
        response.content_sha256 = content.digest(response.content)
        response.save(update_fields=["content", "content_sha256"])
    pair.media.set(files)

    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_url("**/work/assignments/*/")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions[open]").count():
        page.keyboard.press("Escape")
    page.wait_for_function("() => [...document.querySelectorAll('[data-model3d-frame]')]"
                           ".filter((f) => f.dataset.model3dLoaded === 'true').length === 2")
    frames = {side: page.locator(FRAME.format(side)) for side in "AB"}
    urls = {side: frames[side].get_attribute("data-model3d-url") for side in "AB"}
    shown = {side: url.rsplit(".", 1)[-1] for side, url in urls.items()}
    assert sorted(shown.values()) == sorted(formats), urls

    shots = {side: frames[side].screenshot() for side in "AB"}
    for side, shot in shots.items():
        assert drawn_share(shot) > 0.05, f"the {shown[side].upper()} response's 3D view is blank"
        colour = mean_colour(shot)
        expected = MESHES[shown[side]][1]
        if expected:  # drawn in its own vertex colours: the strongest channel is the file's
            assert max(range(3), key=colour.__getitem__) == max(range(3), key=expected.__getitem__), (shown[side], colour)
        else:
            assert sum(colour) / 3 > 60, "the STL cube is lit, not black (its facets' normals are 0 0 0)"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"viewer3d-{'-'.join(formats)}-{width}x{height}.png"))

    box = frames["A"].bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 80, y + 20, steps=8)
    page.mouse.up()
    page.wait_for_function(f"() => ({POSES})()[0] !== '{HOME}'")
    dragged = poses(page)
    assert dragged[0] == dragged[1] != HOME

    for side, url in urls.items():
        served = page.evaluate("async (url) => { const r = await fetch(url); const b = new Uint8Array(await "
                               "r.arrayBuffer()); return String.fromCharCode(...b); }", url)
        assert SECRET not in served, f"the served {shown[side].upper()} file names the model"
    assert SECRET not in page.content()
    assert errors == []
    context.close()
