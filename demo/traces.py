"""Thinking-with-images traces: questions about pictures answered by agents that crop, zoom and run code.

Each puzzle is drawn so its answer is known exactly (stars counted, a word painted on a tiny sign,
a clock set to a time, a detail cut from one of three photos, two grades of one photo). Agents
answer in numbered reasoning steps with Python, tool calls whose results are real crops and masks
computed from the picture, and a final answer; weaker agents zoom in the wrong place, skip the
evidence or guess.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

from demo import imaging as im
from demo.bundle import MediaFolder, PairRow, Side, text
from demo.photos import COLOUR_PHOTOS, PHOTOS, photo


@dataclass
class Evidence:
    """One step of looking: why, the code or tool call, and what it showed."""

    thought: str
    tool: str
    arguments: dict
    images: list[Image.Image] = field(default_factory=list)
    observation: str = ""


@dataclass
class Puzzle:
    question: str
    images: list[Image.Image]
    answer: str
    category: str
    source: str
    good: list[Evidence]
    misleading: list[Evidence]
    wrong_answer: str
    conclusion: str
    wrong_conclusion: str


def _zoom(image: Image.Image, box: tuple[int, int, int, int], factor: int = 3) -> Image.Image:
    crop = image.crop(box)
    return crop.resize((crop.width * factor, crop.height * factor), Image.Resampling.LANCZOS)


def _free_spots(rng: random.Random, size: tuple[int, int], count: int, radius: int) -> list[tuple[int, int]]:
    spots: list[tuple[int, int]] = []
    while len(spots) < count:
        x, y = rng.randrange(radius + 4, size[0] - radius - 4), rng.randrange(radius + 4, size[1] - radius - 4)
        if all((x - a) ** 2 + (y - b) ** 2 > (2.6 * radius) ** 2 for a, b in spots):
            spots.append((x, y))
    return spots


def _colour_mask(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 40) -> np.ndarray:
    pixels = np.asarray(image, dtype=np.int16)
    return (np.abs(pixels - np.array(colour)).max(axis=2) < tolerance)


def counting_puzzle(rng: random.Random) -> Puzzle:
    name = rng.choice(COLOUR_PHOTOS)
    # Colours none of the photographs contain, so the colour mask finds the stars and nothing else.
    target, other = rng.sample(("pink", "blue", "purple", "green"), 2)
    count, distractors = rng.randint(3, 7), rng.randint(2, 4)
    for _attempt in range(20):
        image = photo(name)
        spots = _free_spots(rng, image.size, count + distractors, 14)
        for k, spot in enumerate(spots):
            image = im.star(image, spot, 14, im.COLOURS[target if k < count else other])
        mask = _colour_mask(image, im.COLOURS[target])
        labels, found = ndimage.label(ndimage.binary_opening(mask, iterations=1))
        sizes = ndimage.sum(mask, labels, range(1, found + 1))
        blobs = int((sizes > 60).sum())
        if blobs == count:
            break
    else:
        raise RuntimeError(f"could not place {count} separable {target} stars on {name}")
    shown = Image.fromarray((mask * 255).astype(np.uint8)).convert("RGB")
    draw = ImageDraw.Draw(shown)
    for k, centre in enumerate(ndimage.center_of_mass(mask, labels, [i + 1 for i, s in enumerate(sizes) if s > 60]), 1):
        draw.text((centre[1] + 12, centre[0] - 10), str(k), font=im.font(18), fill=(250, 80, 80))
    code = (
        "import numpy as np\nfrom scipy import ndimage\n\n"
        f"target = np.array({list(im.COLOURS[target])})\n"
        "pixels = np.asarray(image, dtype=np.int16)\n"
        "mask = np.abs(pixels - target).max(axis=2) < 40\n"
        "labels, n = ndimage.label(ndimage.binary_opening(mask))\n"
        "sizes = ndimage.sum(mask, labels, range(1, n + 1))\n"
        "print('stars:', int((sizes > 60).sum()))"
    )
    all_mask = _colour_mask(image, im.COLOURS[target]) | _colour_mask(image, im.COLOURS[other])
    return Puzzle(
        question=f"How many {target} stars are in this image? Answer with a number.",
        images=[image], answer=str(blobs), category="counting", source="concord-demo-count",
        good=[
            Evidence(f"The stars are small and there are two colours; counting by eye risks mixing the {other} ones in. "
                     f"I'll isolate {target} pixels and count connected blobs.", "python", {"code": code},
                     [shown], f"stars: {blobs}"),
            Evidence("Check the densest area at higher zoom to be sure no two stars merged into one blob.", "zoom_in",
                     {"bbox": [0, 0, image.width // 2, image.height // 2], "factor": 2},
                     [_zoom(image, (0, 0, image.width // 2, image.height // 2), 2)], "The stars there are separate."),
        ],
        misleading=[
            Evidence("I'll find all star-shaped objects.", "python",
                     {"code": "mask = saturation(image) > 0.5\nprint('stars:', count_blobs(mask))"},
                     [Image.fromarray((all_mask * 255).astype(np.uint8)).convert("RGB")], f"stars: {count + distractors}"),
        ],
        wrong_answer=str(count + distractors),
        conclusion=f"The mask shows {blobs} separate {target} stars; the {other} ones are excluded.",
        wrong_conclusion=f"I count {count + distractors} stars in total.",
    )


def small_text_puzzle(rng: random.Random) -> Puzzle:
    name = rng.choice(("astronaut", "motorcycle", "camera", "coins", "rocket"))
    word = rng.choice(("MAPLE", "ORBIT", "TULIP", "RIVER", "DELTA", "COMET", "AMBER", "PIXEL", "LEMON"))
    image = photo(name)
    w, h = image.size
    x0 = rng.choice((rng.randrange(10, w // 4), rng.randrange(w * 3 // 5, w - 70)))
    y0 = rng.randrange(h // 6, h - 40)
    box = (x0, y0, x0 + 46, y0 + 14)
    image = im.sign(image, box, word, board=(250, 250, 240), ink=(20, 20, 20), post=False)
    pad = 24
    zoom_box = [max(0, box[0] - pad), max(0, box[1] - pad), min(w, box[2] + pad), min(h, box[3] + pad)]
    wrong_box = [w - zoom_box[2], h - zoom_box[3], w - zoom_box[0], h - zoom_box[1]]
    return Puzzle(
        question="There is a tiny sign somewhere in this picture. What single word is written on it?",
        images=[image], answer=word, category="fine_detail", source="concord-demo-vstar",
        good=[
            Evidence("The sign is only a few pixels tall at this size. First find a small bright rectangle, then zoom.",
                     "python", {"code": "bright = np.asarray(image.convert('L')) > 235\n"
                                "ys, xs = np.nonzero(ndimage.binary_opening(bright, iterations=2))\n"
                                "print('candidate box:', xs.min(), ys.min(), xs.max(), ys.max())"},
                     [], f"candidate box: {box[0]} {box[1]} {box[2]} {box[3]}"),
            Evidence("Zoom into the candidate box to read the lettering.", "zoom_in",
                     {"bbox": zoom_box, "factor": 4}, [_zoom(image, tuple(zoom_box), 4)], f'The sign reads "{word}".'),
        ],
        misleading=[
            Evidence("The sign is probably near the centre-right, where there is detail.", "zoom_in",
                     {"bbox": wrong_box, "factor": 4}, [_zoom(image, tuple(wrong_box), 4)],
                     "Some small light shapes, hard to read."),
        ],
        wrong_answer=im.misspell(word, rng),
        conclusion=f'The zoomed crop shows clear capital letters: "{word}".',
        wrong_conclusion="The letters are blurry but look like a short word.",
    )


def clock_puzzle(rng: random.Random) -> Puzzle:
    hour = rng.randint(1, 12)
    # Reading the hands the wrong way round must give a different time, or the flawed trace would be right.
    minute = rng.choice([m for m in range(5, 60, 5) if m // 5 != hour % 12])
    background = rng.choice(("brick", "moon", "camera"))
    image = photo(background)
    if background == "brick":
        image = im.look(image, "warm", 0.4)
    centre, radius = (rng.randrange(150, 360), rng.randrange(150, 300)), 70
    image = im.analogue_clock(image, centre, radius, hour, minute)
    box = (centre[0] - radius - 10, centre[1] - radius - 10, centre[0] + radius + 10, centre[1] + radius + 10)
    wrong_hour = (minute // 5) or 12
    wrong_minute = (hour % 12) * 5
    swapped = f"{wrong_hour}:{wrong_minute:02d}"
    answer = f"{hour}:{minute:02d}"
    return Puzzle(
        question="What time does the clock show? Answer as H:MM (12-hour).",
        images=[image], answer=answer, category="instrument_reading", source="concord-demo-clock",
        good=[
            Evidence("Crop the clock face so both hands are clearly visible.", "crop", {"bbox": list(box)},
                     [_zoom(image, box, 2)], "The short, thick hand and the long, thin hand are distinct."),
            Evidence("Measure each hand's angle from 12 o'clock (clockwise).", "python",
                     {"code": f"minute_angle = {minute * 6}  # long hand, degrees\n"
                              f"hour_angle = {round(((hour % 12) + minute / 60) * 30)}  # short hand\n"
                              "print(int(hour_angle // 30) or 12, int(minute_angle / 6))"},
                     [], f"{hour} {minute}"),
        ],
        misleading=[
            Evidence("Crop the clock.", "crop", {"bbox": list(box)}, [_zoom(image, box, 2)], "Two hands visible."),
        ],
        wrong_answer=swapped,
        conclusion=f"The short hand is at {hour} (a little past it) and the long hand at the {minute // 5 or 12}, "
                   f"i.e. {minute} minutes: {answer}.",
        wrong_conclusion=f"The hand pointing at {wrong_hour} gives the hour and the other the minutes: {swapped}.",
    )


def matching_puzzle(rng: random.Random) -> Puzzle:
    names = rng.sample(COLOUR_PHOTOS, 3)
    candidates = [photo(n) for n in names]
    which = rng.randrange(3)
    source = candidates[which]
    x0, y0 = rng.randrange(0, source.width - 140), rng.randrange(0, source.height - 140)
    detail = source.crop((x0, y0, x0 + 130, y0 + 130)).resize((260, 260), Image.Resampling.LANCZOS)
    found = source.copy()
    ImageDraw.Draw(found).rectangle((x0, y0, x0 + 130, y0 + 130), outline=(250, 204, 21), width=5)
    means = [np.asarray(c, dtype=np.float32).mean((0, 1)) for c in candidates]
    detail_mean = np.asarray(detail, dtype=np.float32).mean((0, 1))
    by_colour = int(np.argmin([np.abs(m - detail_mean).sum() for m in means]))
    wrong = by_colour if by_colour != which else (which + 1) % 3
    return Puzzle(
        question="The first image is a detail cut out of one of the other three images. Which one: image 2, 3 or 4?",
        images=[detail, *candidates], answer=f"Image {which + 2}", category="multi_image_matching",
        source="concord-demo-muir",
        good=[
            Evidence("Slide the detail (scaled back to half size) over each candidate and keep the best match.", "python",
                     {"code": "from skimage.feature import match_template\n"
                              "small = np.asarray(detail.resize((130, 130)).convert('L'))\n"
                              "scores = [match_template(np.asarray(c.convert('L')), small).max() for c in candidates]\n"
                              "print([round(s, 2) for s in scores])"},
                     [found], "[" + ", ".join("0.99" if k == which else f"0.{rng.randint(31, 58)}" for k in range(3)) + "]"),
        ],
        misleading=[
            Evidence("Compare the average colour of the detail with each candidate.", "python",
                     {"code": "print([np.abs(mean(c) - mean(detail)).sum() for c in candidates])"}, [],
                     "the closest average colour is candidate " + str(wrong + 1)),
        ],
        wrong_answer=f"Image {wrong + 2}",
        conclusion=f"Only image {which + 2} contains the detail (score 0.99, outlined in yellow).",
        wrong_conclusion="The colours match best there, so the detail must come from it.",
    )


def warmth_puzzle(rng: random.Random) -> Puzzle:
    name = rng.choice(COLOUR_PHOTOS)
    base = photo(name)
    warm_first = rng.random() < 0.5
    looks = ("warm", "cool") if warm_first else ("cool", "warm")
    pictures = [im.look(base, look, rng.uniform(0.45, 0.7)) for look in looks]
    scores = [float((np.asarray(p, dtype=np.float32)[..., 0] - np.asarray(p, dtype=np.float32)[..., 2]).mean())
              for p in pictures]
    warmer = int(np.argmax(scores))
    strip = Image.new("RGB", (512, 80))
    for k, p in enumerate(pictures):
        strip.paste(p.resize((1, 1), Image.Resampling.BOX).resize((256, 80)), (k * 256, 0))
    return Puzzle(
        question=f"Both images show the same {PHOTOS[name].subject}. Which has the warmer colour balance, the first or "
                 "the second?",
        images=pictures, answer="the first" if warmer == 0 else "the second", category="colour_comparison",
        source="concord-demo-blink",
        good=[
            Evidence("Warmth shows up as red exceeding blue. Compare the mean red-minus-blue of both images.", "python",
                     {"code": "for k, p in enumerate(images, 1):\n    a = np.asarray(p, dtype=float)\n"
                              "    print(k, round((a[..., 0] - a[..., 2]).mean(), 1))"},
                     [strip], "\n".join(f"{k} {s:.1f}" for k, s in enumerate(scores, 1))),
        ],
        misleading=[
            Evidence("Compare overall brightness.", "python", {"code": "print([p.convert('L').getextrema() for p in images])"},
                     [], "both span 0–255"),
        ],
        wrong_answer="the second" if warmer == 0 else "the first",
        conclusion=f"Image {warmer + 1} has the larger red-minus-blue mean, so it is warmer.",
        wrong_conclusion="Brightness is similar; the other image feels warmer at a glance.",
    )


PUZZLES = (counting_puzzle, small_text_puzzle, clock_puzzle, matching_puzzle, warmth_puzzle)


@dataclass(frozen=True)
class Agent:
    """A thinking-with-images agent; ``styles`` weights how it tends to answer."""

    name: str
    styles: dict[str, float]


AGENTS = (
    Agent("sketchpad-agent-pro", {"careful": 0.8, "terse": 0.1, "misled": 0.1}),
    Agent("visualthinker-7b", {"careful": 0.45, "misled": 0.35, "lucky": 0.2}),
    Agent("lookclose-agent", {"careful": 0.5, "terse": 0.3, "misled": 0.2}),
    Agent("quickglance-vl", {"guess": 0.5, "misled": 0.3, "terse": 0.2}),
)


def _evidence_step(number: int, evidence: Evidence, media: MediaFolder) -> dict:
    blocks = [text(f"**Step {number}.** {evidence.thought}")]
    arguments = evidence.arguments
    if evidence.tool == "python":
        # The cell is shown once, as code; the call that runs it names the cell.
        blocks.append({"type": "code", "language": "python", "code": arguments["code"]})
        arguments = {"cell": number, "timeout_s": 30}
    result = []
    if evidence.observation:
        result.append(text(evidence.observation, "plain"))
    result.extend(media.image(image, alt=f"{evidence.tool} result") for image in evidence.images)
    blocks.append({"type": "tool_call", "name": evidence.tool, "arguments": arguments, "result": result})
    return {"type": "reasoning", "blocks": blocks}


def write_trace(puzzle: Puzzle, style: str, media: MediaFolder) -> list[dict]:
    """An agent's answer: careful (right evidence, right answer), misled (wrong evidence, wrong answer),
    lucky (wrong evidence, right answer), terse (right answer, no reasoning) or guess (no evidence, wrong)."""
    if style == "terse":
        return [{"type": "final_answer", "text": puzzle.answer}]
    if style == "guess":
        return [{"type": "reasoning", "blocks": [text("**Step 1.** Looking at the image as a whole, the answer seems clear.")]},
                {"type": "final_answer", "text": puzzle.wrong_answer}]
    evidence = puzzle.good if style == "careful" else puzzle.misleading
    steps = [_evidence_step(n, e, media) for n, e in enumerate(evidence, 1)]
    conclusion = puzzle.conclusion if style == "careful" else puzzle.wrong_conclusion
    steps.append({"type": "reasoning", "blocks": [text(f"**Step {len(steps) + 1}.** {conclusion}")]})
    answer = puzzle.answer if style in ("careful", "lucky") else puzzle.wrong_answer
    return [*steps, {"type": "final_answer", "text": answer}]


def _style(agent: Agent, rng: random.Random) -> str:
    styles = list(agent.styles)
    return rng.choices(styles, weights=[agent.styles[s] for s in styles])[0]


def reasoning_rows(media: MediaFolder, *, count: int, seed: str = "reasoning") -> list[PairRow]:
    """``count`` reasoning pairs; as in MMRB2 most pairs set a correct trace against a flawed one."""
    rows = []
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        puzzle = PUZZLES[i % len(PUZZLES)](rng)
        first = rng.choice(AGENTS)
        second = rng.choice([a for a in AGENTS if a is not first])
        styles = [_style(first, rng), _style(second, rng)]
        if styles[0] == styles[1]:
            styles[1] = "careful" if styles[0] != "careful" else rng.choice(("misled", "terse", "guess"))
        prompt = [text(puzzle.question, "plain")]
        prompt.extend(media.image(image, alt=f"image {k}") for k, image in enumerate(puzzle.images, 1))
        sides = [Side(agent.name, write_trace(puzzle, style, media))
                 for agent, style in zip((first, second), styles, strict=True)]
        rows.append(PairRow(
            pair_id=f"demo-reasoning-{i + 1:03d}", prompt_id=f"demo-reasoning-prompt-{i + 1:03d}", task="reasoning",
            prompt=prompt, first=sides[0], second=sides[1], source=puzzle.source,
            metadata={"category": puzzle.category, "answer": puzzle.answer},
        ))
    return rows
