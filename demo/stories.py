"""Interleaved generation: illustrated guides and stories, text paragraphs between rendered pictures.

Every illustration is cut from one bundled photograph, so a good response keeps its pictures
congruent (one look, the right detail for each step); weaker models drift in colour, repeat or
misplace pictures, skip steps and write thinner or sloppier text.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from PIL import Image, ImageDraw

from demo import imaging as im
from demo.bundle import MediaFolder, PairRow, Side, text
from demo.photos import box_px, photo


@dataclass(frozen=True)
class Step:
    heading: str
    paragraph: str
    box: tuple[float, float, float, float]
    label: str
    overlay: str = ""


@dataclass(frozen=True)
class Topic:
    slug: str
    photo: str
    request: str
    steps: tuple[Step, ...]
    with_input_image: bool = False


TOPICS = (
    Topic("espresso", "coffee", "pulling and serving a good espresso", (
        Step("Grind and dose", "Weigh about 18 g of beans and grind them fine, like table salt. Level the grounds in the "
             "basket and tamp them with firm, even pressure so the water cannot find a shortcut.", (0.05, 0.0, 0.6, 0.6), "dose"),
        Step("Watch the crema", "Start the shot and watch the stream turn from dark brown to hazelnut. A thick, tiger-striped "
             "crema like this one means the grind and the dose are right.", (0.3, 0.05, 0.7, 0.5), "crema"),
        Step("Warm the cup and saucer", "A cold cup steals heat from a small drink. Rinse the cup with hot water first; the "
             "saucer keeps the spoon and a sugar cube off the table.", (0.05, 0.35, 0.8, 1.0), "warm saucer"),
        Step("Serve at once", "Espresso fades within a minute. Serve it with a small spoon on the saucer so the drinker can "
             "stir the crema in before the first sip.", (0.5, 0.45, 0.95, 0.95), "spoon"),
    ), with_input_image=True),
    Topic("cat-day", "chelsea", "a day in the life of a house cat", (
        Step("Morning", "Miso wakes with the sun on her whiskers. She stretches, blinks her green eyes slowly at the window "
             "and decides the day can wait another five minutes.", (0.25, 0.1, 0.95, 0.9), "morning", "warm"),
        Step("Noon", "By noon she is on patrol: every sound in the hallway needs checking, and every shadow could be a "
             "moth. Her ears turn like little radar dishes.", (0.2, 0.0, 0.9, 0.7), "patrol"),
        Step("Evening", "As the light turns orange she settles on the sofa arm, pretending not to wait for dinner while "
             "watching the kitchen door without blinking.", (0.3, 0.2, 1.0, 1.0), "waiting", "sunset"),
        Step("Night", "At night the house is quiet. Miso's eyes catch the moonlight as she makes one last round, then "
             "curls up on the warm laundry basket.", (0.2, 0.1, 0.9, 0.9), "night watch", "stars"),
    ), with_input_image=True),
    Topic("launch", "rocket", "what happens on a rocket launch day", (
        Step("The pad at dawn", "Hours before launch the rocket stands between tall lightning towers that protect it from "
             "storms. Engineers check the weather every few minutes.", (0.0, 0.0, 0.45, 1.0), "lightning tower"),
        Step("Fuelling", "The rocket is filled with very cold propellant. Frost forms on its side and white vapour drifts "
             "away from the vents.", (0.4, 0.15, 0.6, 0.95), "rocket"),
        Step("Countdown", "At T-10 seconds the crowd counts aloud. The flight computer takes over and every system reports "
             "ready.", (0.2, 0.1, 0.8, 0.9), "T-10"),
        Step("Liftoff", "The engines light, the clamps let go and the rocket climbs on a column of fire, getting faster "
             "and faster until it is a bright star in the sky.", (0.25, 0.0, 0.75, 1.0), "liftoff", "flame"),
    )),
    Topic("astronaut", "astronaut", "an astronaut's training for a school newsletter", (
        Step("Meet the astronaut", "Our guest trained for years before her first flight: flying jets, studying orbital "
             "mechanics and practising spacewalks under water.", (0.1, 0.0, 0.6, 0.5), "pilot"),
        Step("The flight suit", "The orange suit is easy to spot if a crew ever has to leave the spacecraft over the ocean. "
             "Every mission gets its own embroidered patch.", (0.1, 0.35, 0.5, 0.8), "mission patch"),
        Step("The helmet", "The helmet locks onto the suit's neck ring and keeps air pressure steady during launch and "
             "landing.", (0.5, 0.55, 1.0, 1.0), "helmet"),
        Step("The spacecraft", "The model behind her is the orbiter she flew: a winged spacecraft that launched like a "
             "rocket and landed like a glider.", (0.62, 0.0, 1.0, 0.55), "orbiter"),
    ), with_input_image=True),
    Topic("deep-field", "hubble_deep_field", "a guided tour of a deep-field image", (
        Step("Almost every dot is a galaxy", "This picture covers a patch of sky smaller than a grain of sand held at "
             "arm's length, yet it holds thousands of galaxies.", (0.0, 0.0, 1.0, 1.0), "overview"),
        Step("A nearby spiral", "The larger fuzzy shapes are closer galaxies. Look for a bright core with arms wrapped "
             "around it.", (0.05, 0.05, 0.4, 0.45), "spiral"),
        Step("Red and far away", "The small red smudges are among the most distant objects: their light has been "
             "stretched to red on its way to us.", (0.55, 0.5, 0.95, 0.95), "redshifted"),
        Step("Foreground star", "The point with sharp spikes is a star in our own galaxy; the spikes come from the "
             "telescope, not the star.", (0.3, 0.3, 0.7, 0.7), "star"),
    )),
    Topic("coins", "coins", "sorting an ancient coin collection", (
        Step("Lay them out", "Start by laying every coin on a dark cloth in rows, so nothing gets mixed up while you "
             "work.", (0.0, 0.0, 1.0, 1.0), "rows"),
        Step("Compare sizes", "Sort by diameter first: larger coins were usually worth more and are easy to group.",
             (0.0, 0.0, 0.5, 0.5), "large vs small"),
        Step("Read the portraits", "Use a magnifier on the portraits and inscriptions; the ruler's head dates a coin better "
             "than anything else.", (0.55, 0.0, 1.0, 0.45), "portrait"),
        Step("Record each one", "Photograph both sides, write down weight and diameter, and store each coin in its own "
             "acid-free envelope.", (0.0, 0.5, 0.5, 1.0), "catalogue"),
    )),
    Topic("motorcycle", "motorcycle", "a weekend maintenance checklist for a motorcycle", (
        Step("Tyres", "Check the pressure cold and look for cuts or flat spots. The tread should be at least 2 mm deep.",
             (0.0, 0.45, 0.4, 1.0), "front tyre"),
        Step("Chain", "Clean the chain, lubricate it while it is warm, and check that it moves 2–3 cm up and down.",
             (0.3, 0.55, 0.75, 1.0), "chain"),
        Step("Engine and oil", "With the bike upright, read the oil level in the sight glass and look for leaks around the "
             "cylinder.", (0.3, 0.3, 0.7, 0.8), "engine"),
        Step("Lights and controls", "Finish with the lights, brakes and mirrors: a two-minute check that prevents most "
             "roadside surprises.", (0.4, 0.15, 1.0, 0.6), "controls"),
    ), with_input_image=True),
    Topic("tissue", "immunohistochemistry", "reading a stained tissue slide for a first-year student", (
        Step("Look at the whole slide", "Begin at low magnification. Brown areas show where the antibody stain bound; blue "
             "marks the cell nuclei.", (0.0, 0.0, 1.0, 1.0), "overview"),
        Step("Follow the brown stain", "The strong brown rims outline the glands: the protein being studied sits in the "
             "membranes of these cells.", (0.0, 0.0, 0.5, 0.5), "positive"),
        Step("Find the nuclei", "Between the glands the tissue is pale with small blue nuclei: this background is where "
             "the stain did not bind.", (0.5, 0.3, 1.0, 0.8), "negative"),
        Step("Write it down", "Note where staining is strong, weak or absent, and always compare with a control slide "
             "before drawing conclusions.", (0.2, 0.5, 0.8, 1.0), "notes"),
    )),
)
AUDIENCES = ("for a complete beginner", "for children aged eight to ten", "in the tone of a friendly blog post")
LOOKS = ("neutral", "warm", "vintage")


@dataclass(frozen=True)
class StoryModel:
    name: str
    congruent: float
    aligned: float
    full_text: float
    typos: float
    skips_step: float


STORY_MODELS = (
    StoryModel("storyweaver-pro", 0.95, 0.95, 0.95, 0.02, 0.02),
    StoryModel("illustra-agent", 0.5, 0.85, 0.85, 0.05, 0.1),
    StoryModel("chapterbook-7b", 0.85, 0.55, 0.4, 0.1, 0.2),
    StoryModel("quickstory-mini", 0.4, 0.4, 0.3, 0.35, 0.45),
)


def illustration(topic: Topic, step: Step, number: int, story_look: str) -> Image.Image:
    """The picture for ``step``: the photo's detail, the story's look, a step badge and a label."""
    base = photo(topic.photo)
    detail = base.crop(box_px(base, step.box))
    scale = 480 / detail.width
    detail = detail.resize((480, max(120, min(480, round(detail.height * scale)))), Image.Resampling.LANCZOS)
    if step.overlay in ("warm", "sunset"):
        detail = im.look(detail, step.overlay, 0.7)
    detail = im.look(detail, story_look, 0.8)
    if step.overlay == "stars":
        detail = im.look(detail, "cool", 0.9)
        for k in range(7):
            detail = im.star(detail, (40 + k * 60, 24 + (k % 3) * 18), 7, im.COLOURS["white"])
    if step.overlay == "flame":
        draw = ImageDraw.Draw(detail)
        cx, bottom = detail.width // 2, detail.height
        draw.polygon([(cx - 34, bottom - 70), (cx + 34, bottom - 70), (cx, bottom)], fill=(255, 190, 40))
        draw.polygon([(cx - 18, bottom - 70), (cx + 18, bottom - 70), (cx, bottom - 20)], fill=(255, 250, 220))
    detail = im.numbered_badge(detail, number)
    return im.caption(detail, step.label)


def _typos(value: str, rng: random.Random, rate: float) -> str:
    words = value.split(" ")
    for i, word in enumerate(words):
        if len(word) > 4 and word.isalpha() and rng.random() < rate:
            words[i] = im.misspell(word.upper(), rng).lower()
    return " ".join(words)


def _write_story(topic: Topic, audience: str, story_look: str, model: StoryModel, rng: random.Random,
                 media: MediaFolder) -> list[dict]:
    steps = list(topic.steps)
    if rng.random() < model.skips_step:
        del steps[rng.randrange(1, len(steps))]
    opening = {
        AUDIENCES[0]: f"Here is a simple guide to {topic.request}, one step at a time.",
        AUDIENCES[1]: f"Let's explore {topic.request}! Follow the pictures.",
        AUDIENCES[2]: f"Today on the blog: {topic.request}. Grab a coffee and follow along.",
    }[audience]
    blocks = [text(_typos(opening, rng, model.typos))]
    looks = [story_look if rng.random() < model.congruent else rng.choice(("cool", "noir", "sunset", "teal-orange"))
             for _ in steps]
    pictures = [im.sample_jitter(illustration(topic, step, number, look), rng)
                for number, (step, look) in enumerate(zip(steps, looks, strict=True), 1)]
    if rng.random() > model.aligned and len(pictures) > 2:
        i = rng.randrange(len(pictures) - 1)
        pictures[i], pictures[i + 1] = pictures[i + 1], pictures[i]
    for number, (step, picture) in enumerate(zip(steps, pictures, strict=True), 1):
        paragraph = step.paragraph if rng.random() < model.full_text else re.split(r"(?<=[.!?]) ", step.paragraph)[0]
        blocks.append(text(f"**Step {number}: {step.heading}.** {_typos(paragraph, rng, model.typos)}"))
        blocks.append(media.image(picture, alt=f"illustration for step {number}"))
    return blocks


def interleaved_rows(media: MediaFolder, *, count: int, seed: str = "interleaved") -> list[PairRow]:
    """``count`` interleaved pairs: a request (sometimes with a photo) and two illustrated answers."""
    rows = []
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        topic = TOPICS[i % len(TOPICS)]
        audience = AUDIENCES[(i // len(TOPICS)) % len(AUDIENCES)]
        story_look = LOOKS[(i // len(TOPICS)) % len(LOOKS)]
        steps = len(topic.steps)
        request = (f"Write a {steps}-step illustrated guide to {topic.request}, {audience}. After each step's text, "
                   f"add one picture of that step. Keep every picture in the same {story_look} colour style.")
        prompt = [text(request, "plain")]
        if topic.with_input_image:
            prompt[0]["text"] += " Base every picture on the attached photo."
            prompt.append(media.image(photo(topic.photo), alt="reference photo"))
        first = rng.choice(STORY_MODELS)
        second = rng.choice([m for m in STORY_MODELS if m is not first])
        sides = [Side(m.name, _write_story(topic, audience, story_look, m, random.Random(f"{seed}:{i}:{m.name}"), media))
                 for m in (first, second)]
        rows.append(PairRow(
            pair_id=f"demo-interleaved-{i + 1:03d}", prompt_id=f"demo-interleaved-prompt-{i + 1:03d}", task="interleaved",
            prompt=prompt, first=sides[0], second=sides[1],
            metadata={"category": "illustrated_guide", "topic": topic.slug, "steps": steps},
        ))
    return rows
