"""Text-to-image and image-editing pairs: prompts over bundled photographs, rendered by fictional models.

A model is a skill profile: how often it renders each requested element right, how well it spells,
and how often a visible defect slips in. Better models win more often, but not always.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageOps

from demo import imaging as im
from demo.bundle import MediaFolder, PairRow, Side, text
from demo.photos import COLOUR_PHOTOS, PHOTOS, box_px, photo, point_px


@dataclass(frozen=True)
class ImageModel:
    name: str
    skill: float
    spelling: float
    defect_rate: float


T2I_MODELS = (
    ImageModel("lumen-xl", 0.92, 0.9, 0.08),
    ImageModel("aurora-diffusion-3", 0.8, 0.6, 0.2),
    ImageModel("pixelforge-2", 0.66, 0.35, 0.35),
    ImageModel("sketchbot-mini", 0.45, 0.15, 0.55),
)
EDIT_MODELS = (
    ImageModel("editron-pro", 0.9, 0.88, 0.08),
    ImageModel("quickedit-1.5", 0.74, 0.55, 0.22),
    ImageModel("magicbrush-lite", 0.56, 0.35, 0.35),
    ImageModel("retouchr-0.9", 0.4, 0.2, 0.5),
)

LOOK_PHRASES = {
    "warm": "in warm golden-hour light",
    "cool": "in cool blue moonlight",
    "noir": "in high-contrast black and white",
    "vintage": "with the faded sepia look of a 1970s print",
    "sunset": "under a glowing orange sunset sky",
    "teal-orange": "with a cinematic teal-and-orange grade",
    "neutral": "in natural daylight",
}
STYLE_PHRASES = {
    "photo": "photorealistic",
    "pencil-sketch": "as a pencil sketch",
    "poster": "as a bold pop-art poster",
    "oil-painting": "as a thick oil painting",
    "pixel-art": "in retro pixel-art style",
    "watercolour": "as a soft watercolour",
}
CORNERS = {"upper-left": (0.14, 0.2), "upper-right": (0.86, 0.2), "lower-left": (0.14, 0.78), "lower-right": (0.86, 0.78)}
SIGN_WORDS = ("OPEN", "FRESH COFFEE", "LAUNCH DAY", "CAT CAFE", "NO PARKING", "HELLO MARS", "GARAGE SALE",
              "QUIET PLEASE", "WELCOME HOME", "MISSION 42")
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _sample_pair(rng: random.Random, models: tuple[ImageModel, ...]) -> tuple[ImageModel, ImageModel]:
    """Two models; about a quarter of pairs compare two samples of one model, as in MMRB2."""
    first = rng.choice(models)
    if rng.random() < 0.25:
        return first, first
    return first, rng.choice([m for m in models if m is not first])


# Text to image -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scene:
    photo: str
    look: str
    style: str
    balloon: str | None
    stars: tuple[int, str] | None
    sun_corner: str | None
    sign_text: str | None
    close_up: bool

    def prompt(self) -> str:
        p = PHOTOS[self.photo]
        parts = [f"A {'close-up ' if self.close_up else ''}picture of {p.description}, {LOOK_PHRASES[self.look]}"]
        if self.balloon:
            parts.append(f"with a single {self.balloon} balloon floating in the upper-left corner")
        if self.stars:
            count, colour = self.stars
            parts.append(f"with exactly {NUMBER_WORDS[count]} {colour} stars in the upper-right part of the sky")
        if self.sun_corner:
            parts.append(f"with a bright cartoon sun in the {self.sun_corner} corner")
        if self.sign_text:
            parts.append(f'and a small wooden sign that reads "{self.sign_text}"')
        sentence = ", ".join(parts)
        if self.style != "photo":
            sentence += f", rendered {STYLE_PHRASES[self.style]}"
        return sentence + "."

    def category(self) -> str:
        if self.sign_text:
            return "Text_Rendering"
        if self.stars:
            return "Counting"
        if self.style != "photo":
            return "Style"
        return "Attribute_Binding" if self.balloon else "Composition"


def _scene(rng: random.Random, index: int) -> Scene:
    kind = index % 5
    return Scene(
        photo=COLOUR_PHOTOS[index % len(COLOUR_PHOTOS)] if index % 7 else rng.choice(("moon", "camera", "coins")),
        look=rng.choice(tuple(LOOK_PHRASES)),
        style=rng.choice(im.STYLES) if kind == 3 else "photo",
        balloon=rng.choice(("red", "blue", "yellow", "green")) if kind in (0, 2) else None,
        stars=(rng.randint(2, 5), rng.choice(("white", "yellow", "pink"))) if kind in (1, 4) else None,
        sun_corner=rng.choice(("upper-left", "upper-right")) if kind == 4 else None,
        sign_text=rng.choice(SIGN_WORDS) if kind in (0, 2) and rng.random() < 0.8 else None,
        close_up=rng.random() < 0.3,
    )


def render_scene(scene: Scene, model: ImageModel, rng: random.Random) -> Image.Image:
    """``scene`` as ``model`` draws it: each element right with probability ``model.skill``."""
    p = PHOTOS[scene.photo]
    image = photo(scene.photo)
    if scene.close_up:
        box = box_px(image, p.subject_box) if rng.random() < model.skill else box_px(image, (0.0, 0.3, 0.55, 1.0))
        image = image.crop(box).resize((512, round(512 * (box[3] - box[1]) / max(1, box[2] - box[0]))))
        if image.height > 640:
            image = image.crop((0, 0, 512, 640))
    right = rng.random() < model.skill
    image = im.look(image, scene.look if right else rng.choice(("neutral", *im.LOOKS)), 1.0 if right else 0.5)
    w, h = image.size
    if scene.balloon:
        if rng.random() < model.skill:
            image = im.balloon(image, point_px(image, (0.14, 0.2)), max(18, w // 16), im.COLOURS[scene.balloon])
        elif rng.random() < 0.6:
            wrong = rng.choice([c for c in ("red", "blue", "yellow", "green", "purple") if c != scene.balloon])
            image = im.balloon(image, point_px(image, (0.8, 0.55)), max(18, w // 16), im.COLOURS[wrong])
    if scene.stars:
        count, colour = scene.stars
        drawn = count if rng.random() < model.skill else max(1, count + rng.choice((-2, -1, 1, 2)))
        for k in range(drawn):
            centre = (round(w * (0.58 + 0.36 * (k + 0.5) / drawn)), round(h * (0.12 + 0.1 * (k % 2))))
            image = im.star(image, centre, max(10, w // 30), im.COLOURS[colour])
    if scene.sun_corner:
        misplaced = "lower-right" if "left" in scene.sun_corner else "lower-left"
        corner = scene.sun_corner if rng.random() < model.skill else misplaced
        image = im.sun(image, point_px(image, CORNERS[corner]), max(14, w // 20))
    if scene.sign_text:
        lettering = scene.sign_text if rng.random() < model.spelling else im.misspell(scene.sign_text, rng)
        sign_w = max(110, min(w // 2, 22 * len(scene.sign_text)))
        x1, y0 = w - 16, round(h * 0.56)
        image = im.sign(image, (x1 - sign_w, y0, x1, y0 + max(34, h // 9)), lettering)
    if scene.style != "photo":
        image = im.style(image, scene.style if rng.random() < model.skill else rng.choice(("photo", *im.STYLES)))
    if rng.random() < model.defect_rate:
        image = im.defect(image, rng.choice(im.DEFECTS), rng)
    return im.sample_jitter(image, rng)


def text_to_image_rows(media: MediaFolder, *, count: int, seed: str = "t2i") -> list[PairRow]:
    """``count`` text-to-image pairs: a prompt and two generated images."""
    rows = []
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        scene = _scene(rng, i)
        first, second = _sample_pair(rng, T2I_MODELS)
        sides = []
        for model in (first, second):
            image = render_scene(scene, model, random.Random(f"{seed}:{i}:{model.name}:{len(sides)}"))
            sides.append(Side(model.name, [media.image(image)]))
        rows.append(PairRow(
            pair_id=f"demo-t2i-{i + 1:03d}", prompt_id=f"demo-t2i-prompt-{i + 1:03d}", task="text-to-image",
            prompt=[text(scene.prompt(), "plain")], first=sides[0], second=sides[1],
            metadata={"category": scene.category(), "photo": scene.photo},
        ))
    return rows


# Image editing -----------------------------------------------------------------------------------


@dataclass
class Edit:
    """An instruction, its inputs, the correct result and the ways a model can get it wrong."""

    instruction: str
    inputs: list[Image.Image]
    correct: Image.Image
    faults: list[Image.Image]
    category: str


def _with_defect(image: Image.Image, model: ImageModel, rng: random.Random) -> Image.Image:
    return im.defect(image, rng.choice(im.DEFECTS), rng) if rng.random() < model.defect_rate else image


def _hat_edit(rng, name):
    p, base = PHOTOS[name], photo(name)
    colour = rng.choice(("red", "green", "blue", "purple"))
    anchor, width = point_px(base, p.top_anchor), base.width // 6
    other = rng.choice([c for c in ("red", "green", "blue", "purple", "yellow") if c != colour])
    return Edit(
        f"Put a {colour} party hat on the {p.subject}'s head.", [base],
        im.party_hat(base, anchor, width, im.COLOURS[colour]),
        [im.party_hat(base, anchor, width, im.COLOURS[other]),
         im.party_hat(base, point_px(base, p.free_spot), width, im.COLOURS[colour]),
         im.look(im.party_hat(base, anchor, width * 2, im.COLOURS[colour]), "sunset"),
         im.look(base, "warm", 0.3)],
        "add_object",
    )


def _relight_edit(rng, name):
    base = photo(name)
    target = rng.choice(("warm", "cool", "sunset", "noir"))
    phrases = {"warm": "Relight the scene as if in warm golden-hour sunlight.",
               "cool": "Make it look like it was taken by cold blue moonlight.",
               "sunset": "Change the lighting to a glowing orange sunset.",
               "noir": "Convert the photo to dramatic high-contrast black and white."}
    wrong = rng.choice([x for x in im.LOOKS if x != target])
    return Edit(phrases[target], [base], im.look(base, target),
                [im.look(base, wrong), im.look(base, target, 0.25), im.defect(im.look(base, target), "oversaturated", rng)],
                "global_edit")


def _winter_edit(rng, name):
    base = photo(name)
    return Edit("Make it a snowy winter scene with falling snow.", [base], im.snow(base, rng),
                [im.look(base, "cool"), im.defect(im.snow(base, rng), "blur", rng), im.snow(base, rng, flakes=25)],
                "global_edit")


def _style_edit(rng, name):
    base = photo(name)
    target = rng.choice(im.STYLES)
    wrong = rng.choice([s for s in im.STYLES if s != target])
    return Edit(f"Turn this photo into {STYLE_PHRASES[target].removeprefix('as ').removeprefix('in ')}.", [base],
                im.style(base, target), [im.style(base, wrong), Image.blend(base, im.style(base, target), 0.35)],
                "style_transfer")


def _splash_edit(rng, name):
    base = photo(name)
    keep = {"motorcycle": "red", "coffee": "red", "astronaut": "orange", "rocket": "blue", "chelsea": "green"}[name]
    return Edit(f"Keep only the {keep} parts in colour and make everything else black and white.", [base],
                im.colour_splash(base, keep),
                [ImageOps.grayscale(base).convert("RGB"), im.colour_splash(base, "yellow" if keep != "yellow" else "blue"),
                 im.look(base, "vintage", 0.6)],
                "color_alter")


def _crop_edit(rng, name):
    p, base = PHOTOS[name], photo(name)
    x0, y0, x1, y1 = box_px(base, p.subject_box)
    side = min(x1 - x0, y1 - y0, base.height)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    square = (max(0, cx - side // 2), max(0, cy - side // 2))
    square = (*square, square[0] + side, square[1] + side)
    off = (0, 0, side, side)
    return Edit(f"Crop the image to a tight square around the {p.subject}.", [base],
                base.crop(square).resize((448, 448)),
                [base.crop(off).resize((448, 448)), base.resize((448, 448)), base.crop(square).resize((448, 300))],
                "crop")


def _caption_edit(rng, name):
    base = photo(name)
    words = rng.choice(("MISSION CONTROL", "GOOD MORNING", "SUNDAY RIDE", "ESPRESSO BAR", "FIRST LIGHT", "NAP TIME"))
    top = im.caption(base.transpose(Image.Transpose.FLIP_TOP_BOTTOM), words, colour=(250, 204, 21))
    return Edit(f'Add the caption "{words}" along the bottom in white capital letters.', [base],
                im.caption(base, words),
                [im.caption(base, im.misspell(words, rng)), top.transpose(Image.Transpose.FLIP_TOP_BOTTOM),
                 im.caption(base, words.lower(), colour=(214, 40, 40), band=False)],
                "text_heavy")


def _sign_edit(rng, name):
    base = photo(name)
    old, new = rng.choice((("OPEN", "CLOSED"), ("SALE", "SOLD OUT"), ("EXIT", "ENTRANCE"), ("PARKING", "NO PARKING")))
    w, h = base.size
    box = (w - 16 - max(120, 24 * len(new)), round(h * 0.55), w - 16, round(h * 0.55) + max(36, h // 9))
    source = im.sign(base, box, old)
    both = im.sign(base, box, old)
    ImageDraw.Draw(both).text((box[0] + 6, box[1] - 24), new, font=im.font(20), fill=(255, 255, 255))
    return Edit(f'Change the sign so that it reads "{new}" instead of "{old}". Keep everything else the same.', [source],
                im.sign(base, box, new), [im.sign(base, box, im.misspell(new, rng)), both, source], "text_heavy")


def _remove_edit(rng, name):
    base = photo(name)
    colour = rng.choice(("red", "blue", "yellow"))
    centre = point_px(base, PHOTOS[name].free_spot)
    radius = max(20, base.width // 14)
    with_balloon = im.balloon(base, centre, radius, im.COLOURS[colour])
    smudged = with_balloon.copy()
    area = (centre[0] - radius - 4, centre[1] - radius * 2, centre[0] + radius + 4, centre[1] + radius * 4)
    smudged.paste(im.defect(with_balloon.crop(area), "blur", rng).filter(im.ImageFilter.GaussianBlur(8)), area[:2])
    recoloured = im.balloon(base, centre, radius, im.COLOURS["purple"])
    return Edit(f"Remove the {colour} balloon from the picture.", [with_balloon], base, [smudged, with_balloon, recoloured],
                "remove_object")


def _insert_edit(rng, first, second):
    a, b = photo(first), photo(second)
    pa, pb = PHOTOS[first], PHOTOS[second]
    corner = rng.choice(("lower-left", "lower-right"))
    size = (a.width // 3, a.height // 3)
    at = (12, a.height - size[1] - 12) if corner == "lower-left" else (a.width - size[0] - 12, a.height - size[1] - 12)
    piece, mask = im.cutout(b, box_px(b, pb.subject_box), size)
    hard_piece, hard_mask = im.cutout(b, box_px(b, (0, 0, 1, 1)), size, hard=True)
    big_piece, big_mask = im.cutout(b, box_px(b, pb.subject_box), (a.width * 2 // 3, a.height * 2 // 3))
    reverse_piece, reverse_mask = im.cutout(a, box_px(a, pa.subject_box), (b.width // 3, b.height // 3))
    return Edit(
        f"Place the {pb.subject} from the second image into the {corner} corner of the first image, "
        "blending it in naturally.",
        [a, b], im.paste(a, piece, mask, at),
        [im.paste(a, hard_piece, hard_mask, at), im.paste(a, big_piece, big_mask, (a.width // 6, a.height // 6)),
         im.paste(b, reverse_piece, reverse_mask, (12, 12))],
        "multi_image_compose",
    )


def _palette_edit(rng, first, second):
    a, b = photo(first), photo(second)
    return Edit("Recolour the first image using the colour palette of the second image; keep its content unchanged.",
                [a, b], im.colour_transfer(a, b),
                [im.colour_transfer(a, b, 0.25), im.colour_transfer(b, a), im.defect(im.colour_transfer(a, b), "banding", rng)],
                "multi_image_style")


def _collage_edit(rng, names):
    images = [photo(n) for n in names]
    title = rng.choice(("OUR WEEKEND", "FIELD NOTES", "GALLERY", "MOODBOARD", "SUMMER 2026"))

    def collage(tiles, heading, border=8):
        tile_w, tile_h = 240, 180
        sheet = Image.new("RGB", (3 * tile_w + 4 * border, tile_h + 2 * border + 56), (255, 255, 255))
        for k, tile in enumerate(tiles):
            sheet.paste(ImageOps.fit(tile, (tile_w, tile_h)), (border + k * (tile_w + border), 56 + border))
        im.lettering(ImageDraw.Draw(sheet), (0, 6, sheet.width, 52), heading, (20, 20, 20))
        return sheet

    return Edit(f'Make a collage of the three photos side by side with a thin white border and the title "{title}" above them.',
                images, collage(images, title),
                [collage([images[0], images[1], images[0]], title), collage(images, im.misspell(title, rng)),
                 collage(images[::-1], title, border=0)],
                "multi_image_compose")


def _edits(rng: random.Random, index: int) -> Edit:
    single = (_hat_edit, _relight_edit, _winter_edit, _style_edit, _splash_edit, _crop_edit, _caption_edit, _sign_edit,
              _remove_edit)
    kind = index % 12
    if kind < len(single):
        return single[kind](rng, COLOUR_PHOTOS[(index // 12 + kind) % len(COLOUR_PHOTOS)])
    first, second, third = rng.sample(COLOUR_PHOTOS, 3)
    if kind == 9:
        return _insert_edit(rng, first, second)
    if kind == 10:
        return _palette_edit(rng, first, second)
    return _collage_edit(rng, [first, second, third])


def _perform(edit: Edit, model: ImageModel, rng: random.Random) -> Image.Image:
    result = edit.correct if rng.random() < model.skill else rng.choice(edit.faults)
    return im.sample_jitter(_with_defect(result, model, rng), rng)


def image_editing_rows(media: MediaFolder, *, count: int, seed: str = "edit") -> list[PairRow]:
    """``count`` editing pairs: an instruction with one to three input images and two edited outputs."""
    rows = []
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        edit = _edits(rng, i)
        first, second = _sample_pair(rng, EDIT_MODELS)
        prompt = [text(edit.instruction, "plain")]
        for k, image in enumerate(edit.inputs):
            prompt.append(media.image(image, alt=f"input image {k + 1}"))
        sides = []
        for model in (first, second):
            output = _perform(edit, model, random.Random(f"{seed}:{i}:{model.name}:{len(sides)}"))
            sides.append(Side(model.name, [media.image(output)]))
        rows.append(PairRow(
            pair_id=f"demo-edit-{i + 1:03d}", prompt_id=f"demo-edit-prompt-{i + 1:03d}", task="image-editing",
            prompt=prompt, first=sides[0], second=sides[1],
            metadata={"category": edit.category, "input_images": len(edit.inputs)},
        ))
    return rows
