"""Content blocks: every kind validates, errors name the block, MMRB2's lists map without loss."""

import pytest

from annotation.catalogue import content

DIGEST = "a" * 64


def test_a_thinking_with_images_trace_validates():
    trace = [
        {"type": "text", "text": "Let me crop the sign."},
        {
            "type": "reasoning",
            "blocks": [
                {"type": "code", "language": "python", "code": "img.crop((0, 0, 10, 10))"},
                {"type": "tool_call", "name": "python", "arguments": {"code": "..."},
                 "result": [{"type": "image", "media": DIGEST}]},
            ],
        },
        {"type": "final_answer", "text": "(B)"},
    ]
    blocks = content.validate(trace)
    assert [b["type"] for b in blocks] == ["text", "reasoning", "final_answer"]
    assert content.media_digests(blocks) == [DIGEST]


@pytest.mark.parametrize(
    ("blocks", "message"),
    [
        ("text", "content: expected a list of blocks, got str"),
        ([{"type": "hologram"}], "content[0]: unknown block type 'hologram'"),
        ([{"type": "image", "media": "not-a-digest"}], "content[0]: media must be a lowercase sha256 hex digest"),
        ([{"type": "text", "text": 3}], "content[0]: 'text' must be a string"),
        ([{"type": "reasoning", "blocks": [{"type": "image"}]}], "content[0].blocks[0]: a image block needs"),
    ],
)
def test_invalid_content_names_the_offending_block(blocks, message):
    with pytest.raises(content.ContentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        content.validate(blocks)


def test_mmrb2_pairs_list_round_trips():
    items = [["image", "x_0.jpg"], ["text", "A story."], ["image", "x_1.jpg"]]
    blocks = content.validate(content.from_pairs_list(items), allow_files=True)
    resolved = content.resolve_files(blocks, lambda kind, name: name.replace("x_", "").replace(".jpg", "") * 64)
    names = {("0" * 64): "x_0.jpg", ("1" * 64): "x_1.jpg"}
    assert content.to_pairs_list(resolved, names.__getitem__) == items
