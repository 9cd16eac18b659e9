"""The workspace's server-side rendering: every content block kind, safely, blind, and the rating form."""

import re

import pytest
from django.template.loader import render_to_string

from annotation.catalogue import schemas
from frontend import rating_form
from frontend.templatetags.workspace import content_blocks, duration_ms, kind_label, render_markdown

DIGESTS = {name: f"{i:x}" * 64 for i, name in enumerate(["in1", "in2", "outa", "outb", "tool", "vid", "aud", "mesh"], start=1)}
DIGESTS = {name: value[:64] for name, value in DIGESTS.items()}


def url(name: str, ext: str = "png") -> str:
    return f"/media/{DIGESTS[name]}.{ext}"


def image(name: str, ext: str = "png") -> dict:
    return {"type": "image", "media": DIGESTS[name], "alt": "", "url": url(name, ext)}


def display(kind: str, *, prompt, left, right, preset="mmrb2-generation", criteria=(), draft=None) -> dict:
    return {
        "assignment": 7,
        "campaign": "camp",
        "kind": kind,
        "instructions": "Rate **carefully**.",
        "prompt": prompt,
        "left": left,
        "right": right,
        "criteria": list(criteria),
        "schema": schemas.preset(preset, kind),
        "draft": draft or {},
        "expires_at": "2026-01-01T00:00:00Z",
    }


def render_pair(data: dict) -> str:
    return render_to_string("frontend/workspace/pair.html", {"display": data})


def render_form(data: dict) -> str:
    fields = rating_form.build(data["schema"], criteria=data["criteria"], draft=data["draft"])
    return render_to_string("frontend/workspace/form.html", {"fields": fields})


def test_markdown_is_rendered_and_sanitised():
    """Formatting survives; scripts, event handlers, javascript: links, images and iframes do not."""
    html = render_markdown(
        "**bold** and [ok](https://example.org) [bad](javascript:alert(1))\n\n"
        "<script>alert(1)</script><img src=x onerror=alert(1)><iframe src=https://evil></iframe>\n\n"
        "![tracker](https://evil.example/pixel.png)\n\n```python\ndef f():\n    return 1\n```"
    )
    assert "<strong>bold</strong>" in html
    assert 'href="https://example.org"' in html and 'rel="noopener noreferrer nofollow"' in html
    for forbidden in ("<script", "onerror", "javascript:", "<img", "<iframe", "evil.example"):
        assert forbidden not in html
    assert '<span class="k">def</span>' in html  # fenced code is highlighted by Pygments


def test_plain_text_is_escaped_not_interpreted():
    html = str(content_blocks([{"type": "text", "text": "<b>x</b> & *y*", "format": "plain"}]))
    assert "&lt;b&gt;x&lt;/b&gt; &amp; *y*" in html


def test_text_to_image_shows_each_output_in_a_synchronised_zoom_frame():
    data = display("text-to-image", prompt=[{"type": "text", "text": "A red fox", "format": "plain"}],
                   left=[image("outa")], right=[image("outb", "jpg")])
    html = render_pair(data)
    assert html.count("data-zoom-frame") == 2
    assert f'src="{url("outa")}"' in html and f'src="{url("outb", "jpg")}"' in html
    assert "data-zoom-tools" in html and "data-compare-tools" not in html
    assert re.search(r'data-side="A".*Response A.*data-side="B".*Response B', html, re.S)


def test_image_editing_shows_the_inputs_in_order_beside_each_output_with_a_comparison():
    data = display("image-editing",
                   prompt=[{"type": "text", "text": "Swap the two hats", "format": "plain"}, image("in1"), image("in2")],
                   left=[image("outa")], right=[image("outb")])
    html = render_pair(data)
    prompt = html.split('class="viewer-tools"')[0]
    assert prompt.index(url("in1")) < prompt.index(url("in2"))
    assert "Input 1" in prompt and "Input 2" in prompt
    # The inputs show once, in the prompt, each with its compare button; each side overlays the first input.
    assert html.count(f'src="{url("in1")}"') == 1 + 2 and html.count(f'src="{url("in2")}"') == 1
    assert prompt.count(f'data-compare-choose="{url("in1")}"') == prompt.count(f'data-compare-choose="{url("in2")}"') == 1
    assert 'class="side-inputs"' not in html
    assert html.count(f'class="compare-input" src="{url("in1")}"') == 2
    assert "data-compare-slider" in html and "data-compare-toggle" in html


def test_interleaved_keeps_text_and_images_in_order_with_optional_synchronised_scrolling():
    story = [
        {"type": "text", "text": "Once upon a time", "format": "markdown"}, image("outa"),
        {"type": "text", "text": "The end", "format": "markdown"}, image("outb"),
    ]
    html = render_pair(display("interleaved", prompt=[{"type": "text", "text": "Tell a story", "format": "plain"}],
                               left=story, right=list(reversed(story))))
    left = html.split('data-side="B"')[0].split('data-side="A"')[1]
    positions = [left.index(s) for s in ("Once upon a time", url("outa"), "The end", url("outb"))]
    assert positions == sorted(positions)
    assert re.search(r'data-sync-scroll-toggle[^>]*\schecked', html)
    assert html.count("data-side-scroll") == 2
    assert "data-zoom-frame" not in html


def test_reasoning_trace_numbers_steps_highlights_code_shows_tools_and_sets_the_final_answer_apart():
    trace = [
        {"type": "reasoning", "blocks": [{"type": "text", "text": "Look at the chart.", "format": "markdown"}]},
        {"type": "reasoning", "blocks": [
            {"type": "code", "language": "python", "code": "import math\nprint(math.pi)"},
            {"type": "tool_call", "name": "python", "arguments": {"code": "crop(img, 0, 0, 64, 64)", "timeout": 5},
             "result": [image("tool")]},
        ]},
        {"type": "final_answer", "text": "**42**"},
    ]
    html = render_pair(display("reasoning", prompt=[{"type": "text", "text": "How many?", "format": "plain"}, image("in1")],
                               left=trace, right=[{"type": "final_answer", "text": "41"}], preset="mmrb2-reasoning"))
    assert "Step 1" in html and "Step 2" in html and "Step 3" not in html
    assert html.count("<details") == 2 and "data-steps-toggle" in html
    assert '<span class="kn">import</span>' in html  # the code block, highlighted
    assert '<span class="n">crop</span>' in html  # the tool call's code argument, highlighted as Python
    assert '<span class="nt">"timeout"</span>' in html  # the other arguments, as JSON …
    assert '<span class="p">{</span><span class="nt">"timeout"</span>' in html  # … on one line when short
    assert f'src="{url("tool")}"' in html
    assert html.count("data-final-answer") == 2
    assert "<strong>42</strong>" in html


def test_long_tool_call_arguments_take_a_line_per_key_and_short_ones_one_line():
    from frontend.templatetags.workspace import tool_arguments

    short = tool_arguments({"x": 10, "y": 20, "zoom": 2})
    long = tool_arguments({"query": "a" * 80, "region": {"x": 1, "y": 2}})
    lines = [line for line in short[0]["html"].split("\n") if line]
    assert len(lines) == 2 and '<span class="nt">"zoom"</span>' in lines[0], "one line of JSON, then </pre></div>"
    assert long[0]["html"].count("\n") > 4


def test_video_and_audio_use_native_players_and_3d_a_viewer_frame_with_the_download_held_back():
    html = render_pair(display(
        "text-to-video", prompt=[{"type": "audio", "media": DIGESTS["aud"], "alt": "", "url": url("aud", "wav")}],
        left=[{"type": "video", "media": DIGESTS["vid"], "alt": "", "url": url("vid", "mp4")}],
        right=[{"type": "model3d", "media": DIGESTS["mesh"], "alt": "", "url": url("mesh", "glb")}, image("outb")],
    ))
    assert f'<video controls preload="metadata" playsinline src="{url("vid", "mp4")}"' in html
    assert f'<audio controls preload="metadata" src="{url("aud", "wav")}"' in html
    assert f'data-model3d-url="{url("mesh", "glb")}" data-model3d-format="glb"' in html
    assert 'tabindex="0"' in html and 'aria-keyshortcuts="ArrowLeft ArrowRight ArrowUp ArrowDown"' in html
    # The download is offered only when the viewer cannot draw the file (model3d.js unhides it).
    assert f'href="{url("mesh", "glb")}" download hidden' in html and "(.glb)" in html


def test_the_form_asks_every_question_of_the_generation_schema_with_a_key_per_option():
    data = display("image-editing", prompt=[], left=[], right=[])
    html = render_form(data)
    for rubric in ("text_faithfulness", "image_faithfulness", "image_quality", "text_rendering", "overall", "rationale",
                   "prompt_valid"):
        assert f'data-question="{rubric}"' in html
    # Per-response rubrics: one row per side, keys 0-3; the optional text-rendering rubric is not required.
    assert 'name="image_quality.A"' in html and 'name="image_quality.B"' in html
    assert re.search(r'name="image_quality.A" value="3" data-key="3"', html)
    assert re.search(r'data-question="text_rendering" data-type="scale" data-scope="response">', html)
    # The overall preference runs left (A, as shown) better to right better: 1 is A significantly better, stored as
    # MMRB2's 6; 6 is B significantly better, stored as 1.
    overall = html.split('data-question="overall"')[1].split("</fieldset>")[0]
    assert overall.index("A significantly better") < overall.index("B significantly better")
    assert 'value="6" data-key="1"' in overall and 'value="1" data-key="6"' in overall
    assert "data-required" in html.split('data-question="overall"')[1][:80]
    assert "data-oriented" in html.split('data-question="overall"')[1][:100]
    assert 'name="prompt_valid" value="true" data-key="y"' in html and 'value="false" data-key="n"' in html


def test_the_form_restores_the_draft_as_shown():
    draft = {"overall": 2, "image_quality": {"A": 3}, "rationale": "B keeps the <face>", "prompt_valid": False}
    html = render_form(display("text-to-image", prompt=[], left=[], right=[], draft=draft))
    assert re.search(r'name="overall" value="2" data-key="5" checked', html)
    assert re.search(r'name="image_quality.A" value="3" data-key="3" checked', html)
    assert not re.search(r'name="image_quality.B"[^>]*checked', html)
    assert re.search(r'name="prompt_valid" value="false" data-key="n" checked', html)
    assert not re.search(r'name="prompt_valid" value="true"[^>]*checked', html)
    assert "B keeps the &lt;face&gt;</textarea>" in html


def test_reasoning_form_rates_correctness_per_response_on_five_points():
    html = render_form(display("reasoning", prompt=[], left=[], right=[], preset="mmrb2-reasoning"))
    block = html.split('data-question="correctness"')[1].split("</fieldset>")[0]
    assert block.count('name="correctness.A"') == 5 and block.count('name="correctness.B"') == 5
    assert "Incorrect or cannot verify" in block


@pytest.mark.parametrize("criteria", [["Follows the prompt", "Image quality"], []])
def test_criteria_are_labelled_a_b_or_tie_one_row_each(criteria):
    html = render_form(display("text-to-image", prompt=[], left=[], right=[], preset="omni-criteria", criteria=criteria))
    rows = html.count('data-row')
    if criteria:
        assert rows == len(criteria) + 1  # plus the rationale
        assert 'data-criterion="Follows the prompt"' in html and "data-add-criterion" not in html
        assert 'name="criteria.1" value="&quot;tie&quot;" data-key="2"' in html  # tie in the middle
        assert 'name="criteria.1" value="&quot;B&quot;" data-key="3"' in html
    else:
        assert "data-criterion-input" in html and "data-add-criterion" in html


def test_rating_form_keys_use_scale_digits_else_positions():
    rubric = schemas.preset("mmrb2-generation", "text-to-image")["questions"][0]
    assert rating_form.option_keys(rubric) == ["0", "1", "2", "3"]
    assert rating_form.option_keys(schemas.REASONING_CORRECTNESS) == ["1", "2", "3", "4", "5"]
    assert rating_form.option_keys({"type": "choice", "options": [{"value": "A"}, {"value": "B"}, {"value": "tie"}]}) == [
        "1", "2", "3"]
    assert rating_form.option_keys({"type": "scale", "min": 1, "max": 12, "options": [{"value": v} for v in range(1, 13)]}) == [
        str(i) for i in range(1, 13)]
    # A question that names a side is keyed by position on screen, whatever its values.
    assert rating_form.option_keys(schemas.OVERALL_PREFERENCE) == ["1", "2", "3", "4", "5", "6"]


def _grammar(preset: str, qid: str) -> list[tuple[str, object]]:
    question = next(q for q in schemas.preset(preset, "text-to-image")["questions"] if q["id"] == qid)
    return [(o["key"], o["value"]) for o in rating_form.answer_options(question)]


def test_one_keyboard_grammar_1_is_the_left_response_better_on_every_preset_the_last_key_the_right_one():
    # Values are as shown (left = A); storage keeps them (MMRB2's 6 is "A significantly better").
    assert _grammar("mmrb2-generation", "overall") == [("1", 6), ("2", 5), ("3", 4), ("4", 3), ("5", 2), ("6", 1)]
    assert _grammar("omni-criteria", "criteria") == [("1", "A"), ("2", "tie"), ("3", "B")]
    assert _grammar("ab-tie", "preference") == [("1", "A"), ("2", "tie"), ("3", "B")]
    assert _grammar("arena", "preference") == [("1", "A"), ("2", "tie"), ("3", "both_bad"), ("4", "B")]
    # What names no side keeps its own keys: a rubric's digits, yes/no.
    assert _grammar("mmrb2-generation", "image_quality") == [("0", 0), ("1", 1), ("2", 2), ("3", 3)]


def test_an_oriented_scale_without_labels_runs_from_its_highest_value_a_to_its_lowest_b():
    question = {"id": "pref", "type": "scale", "scope": "pair", "min": -2, "max": 2, "oriented": True}
    assert [(o["key"], o["value"]) for o in rating_form.answer_options(question)] == [
        ("1", 2), ("2", 1), ("3", 0), ("4", -1), ("5", -2)]


def test_criteria_draft_is_restored_by_criterion():
    question = schemas.preset("omni-criteria", "text-to-text")["questions"][0]
    fields = rating_form.build({"questions": [question]}, criteria=[],
                               draft={"criteria": [{"criterion": "Concise", "label": "B"}]})
    row = fields[0]["rows"][0]
    assert row["criterion"] == "Concise" and row["editable"]
    assert [(o["value"], o["checked"]) for o in row["options"]] == [("A", False), ("tie", False), ("B", True)]


def test_durations_and_kind_names_read_as_people_say_them():
    assert [duration_ms(v) for v in (None, 400, 48_000, 185_000)] == ["–", "0 s", "48 s", "3 min 05 s"]
    assert kind_label("image-editing") == "Image editing" and kind_label("unknown-kind") == "unknown-kind"


def test_a_media_block_without_a_url_says_the_file_is_missing_instead_of_requesting_the_page():
    html = str(content_blocks([{"type": "image", "media": DIGESTS["outa"], "alt": "", "url": ""}]))
    assert "is missing from storage" in html and "<img" not in html
