"""Two small Omni-RewardBench kinds: text-to-audio (synthesised WAV notes and chords) and text-to-text.

Both are rated with free-form criteria (the ``omni-criteria`` preset); each pair names its criteria.
"""

from __future__ import annotations

import io
import random
import wave
from dataclasses import dataclass

import numpy as np

from demo.bundle import MediaFolder, PairRow, Side, text

RATE = 22_050
NOTES = {"C4": 261.63, "D4": 293.66, "E4": 329.63, "Eb4": 311.13, "F4": 349.23, "F#4": 369.99, "G4": 392.0,
         "A4": 440.0, "B4": 493.88, "Bb4": 466.16, "C5": 523.25, "E5": 659.25}


def tone(frequencies: list[float], seconds: float, *, timbre: str = "pad", envelope: bool = True) -> np.ndarray:
    """The frequencies sounded together for ``seconds``, as floats in [-1, 1]."""
    t = np.arange(int(RATE * seconds)) / RATE
    signal = np.zeros_like(t)
    for f in frequencies:
        if timbre == "square":
            signal += np.sign(np.sin(2 * np.pi * f * t)) * 0.6
        else:
            signal += sum(np.sin(2 * np.pi * f * k * t) / k**1.5 for k in (1, 2, 3))
    signal /= max(1, len(frequencies)) * 1.6
    if envelope:
        attack, release = int(0.04 * RATE), min(int(0.35 * RATE), len(t) // 2)
        shape = np.ones_like(t)
        shape[:attack] = np.linspace(0, 1, attack)
        shape[-release:] = np.linspace(1, 0, release)
        signal *= shape
    return signal


def wav_bytes(signal: np.ndarray) -> bytes:
    """16-bit mono PCM WAV."""
    pcm = (np.clip(signal, -1, 1) * 32_000).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())
    return buffer.getvalue()


@dataclass(frozen=True)
class Sound:
    prompt: str
    parts: tuple[tuple[str, ...], ...]
    seconds: float
    wrong_parts: tuple[tuple[str, ...], ...]


SOUNDS = (
    Sound("A soft C major chord (C, E, G) on a warm synth pad, about two seconds, fading out gently.",
          (("C4", "E4", "G4"),), 2.0, (("C4", "Eb4", "G4"),)),
    Sound("An A minor chord held for two seconds, like a calm piano pad.", (("A4", "C5", "E5"),), 2.0,
          (("A4", "C5", "F4"),)),
    Sound("A doorbell: a high 'ding' followed by a lower 'dong'.", (("E5",), ("C5",)), 0.7, (("C5",), ("E5",))),
    Sound("An ascending C major arpeggio: C, E, G, then high C, each note a quarter second.",
          (("C4",), ("E4",), ("G4",), ("C5",)), 0.3, (("C4",), ("E4",), ("F4",), ("C5",))),
    Sound("A single 440 Hz reference tone (A4) lasting one and a half seconds.", (("A4",),), 1.5, (("B4",),)),
    Sound("A G dominant seventh chord (G, B, D, F) that sounds unresolved, two seconds.", (("G4", "B4", "D4", "F4"),),
          2.0, (("G4", "B4", "D4"),)),
    Sound("Two notes a perfect fifth apart, D then A, each held for one second.", (("D4",), ("A4",)), 1.0,
          (("D4",), ("Bb4",))),
    Sound("A descending three-note chime, G, E, C, like a gentle notification.", (("G4",), ("E4",), ("C4",)), 0.35,
          (("G4",), ("F4",), ("C4",))),
)
AUDIO_CRITERIA = ["Plays exactly the notes the prompt asks for", "Clean sound: no clicks, hiss or distortion"]


@dataclass(frozen=True)
class AudioModel:
    name: str
    right_notes: float
    clean: float
    timbre: str
    detune: float


AUDIO_MODELS = (
    AudioModel("sonata-gen-2", 0.9, 0.9, "pad", 1.0),
    AudioModel("chiptune-1b", 0.8, 0.5, "square", 1.0),
    AudioModel("hummer-lite", 0.45, 0.45, "pad", 1.012),
)


def render_sound(sound: Sound, model: AudioModel, rng: random.Random) -> bytes:
    parts = sound.parts if rng.random() < model.right_notes else sound.wrong_parts
    clean = rng.random() < model.clean
    pieces = [tone([NOTES[n] * model.detune for n in part], sound.seconds, timbre=model.timbre, envelope=clean)
              for part in parts]
    signal = np.concatenate(pieces)
    if not clean:
        fault = rng.choice(("hiss", "clip", "clicks"))
        noise = np.random.default_rng(rng.randrange(2**32))
        if fault == "hiss":
            signal = signal + noise.normal(0, 0.08, signal.shape)
        elif fault == "clip":
            signal = np.clip(signal * 3.5, -0.9, 0.9)
        else:
            for at in noise.integers(0, len(signal) - 40, 6):
                signal[at:at + 40] = 0.95
    return wav_bytes(signal)


def text_to_audio_rows(media: MediaFolder, *, seed: str = "t2a") -> list[PairRow]:
    """One pair per sound prompt: two synthesised WAV responses, rated on the two audio criteria."""
    rows = []
    for i, sound in enumerate(SOUNDS):
        rng = random.Random(f"{seed}:{i}")
        first, second = rng.sample(AUDIO_MODELS, 2)
        sides = [Side(m.name, [media.audio(render_sound(sound, m, random.Random(f"{seed}:{i}:{m.name}")),
                                           alt="generated audio")]) for m in (first, second)]
        rows.append(PairRow(
            pair_id=f"demo-t2a-{i + 1:03d}", prompt_id=f"demo-t2a-prompt-{i + 1:03d}", task="text-to-audio",
            prompt=[text(sound.prompt, "plain")], first=sides[0], second=sides[1], source="concord-demo-omni",
            metadata={"category": "music"}, criteria=AUDIO_CRITERIA,
        ))
    return rows


CONVERSATIONS = (
    ("Explain in three sentences what inter-annotator agreement measures, for a new annotator.",
     ("inter-annotator agreement explained", "Inter-annotator agreement measures how often independent annotators give "
      "the same rating to the same item. High agreement means the guidelines are clear and the labels can be trusted; "
      "low agreement means the task is ambiguous or the guidelines need work. It is usually reported with a statistic "
      "like Krippendorff's alpha, which corrects for agreement expected by chance."),
     ("agreement", "Agreement is a number between 0 and 1. Annotators should try to agree. It is computed by the "
      "platform automatically and you do not need to think about it, just rate quickly."),
     ["Accurate about what agreement measures", "Exactly three sentences, suited to a newcomer"]),
    ("Write a haiku about a rocket launch at dusk.",
     ("haiku", "Towers hold their breath —\nfire climbs the violet dusk,\na new star rising"),
     ("haiku", "The rocket goes up into the sky at dusk time\nit is very loud\nwe all watch it go"),
     ["Follows the 5-7-5 haiku form", "Vivid imagery"]),
    ("What is the capital of Australia? Answer in one word.",
     ("answer", "Canberra"), ("answer", "Sydney is the capital and largest city of Australia."),
     ["Correct answer", "Follows the one-word format"]),
    ("Give me a Python one-liner that reverses a string s.",
     ("snippet", "`s[::-1]` returns a new string with the characters of `s` in reverse order."),
     ("snippet", "You can use `reversed(s)`, which returns the reversed string."),
     ["Code is correct", "Explanation is accurate"]),
    ("Summarise the rule for keeping a pair in MMRB2's consensus step for generation tasks.",
     ("summary", "A pair is dropped when its three ratings spread by more than 4 points, when their mean lies between 3.0 "
      "and 4.0, or when the majority rating is a tie (3 or 4); otherwise the response preferred by the mean is kept "
      "as chosen."),
     ("summary", "A pair is kept when at least one annotator preferred a response strongly."),
     ["Faithful to the actual rule", "Concise"]),
    ("My espresso tastes sour. Suggest two things to change, briefly.",
     ("advice", "1. Grind finer so the water extracts more slowly.\n2. Raise the brew temperature slightly (for example "
      "from 90 to 93 °C). Change one thing at a time and taste again."),
     ("advice", "Sour espresso is usually caused by many different factors, including beans, water, grinder, machine, "
      "humidity and technique. You should consult a barista or experiment until it tastes right."),
     ["Actionable suggestions", "Brevity as requested"]),
    ("Translate 'The cat is sleeping on the warm laundry' into French.",
     ("translation", "Le chat dort sur le linge chaud."), ("translation", "Le chat est dormir sur la lessive chaude."),
     ["Grammatically correct French", "Faithful meaning"]),
    ("List three checks to do before riding a motorcycle.",
     ("checklist", "- Tyre pressure and tread\n- Brakes, front and rear\n- Lights, indicators and horn"),
     ("checklist", "- Make sure you have fuel\n- Wear a jacket\n- Have fun on the ride!"),
     ["Safety relevance", "Follows the requested format"]),
)
TEXT_MODELS = ("clearwriter-70b", "fastchat-lite-8b")


def text_to_text_rows(*, seed: str = "t2t") -> list[PairRow]:
    """Short conversations where one answer follows the request and the criteria better than the other."""
    rows = []
    for i, (prompt, better, worse, criteria) in enumerate(CONVERSATIONS):
        rng = random.Random(f"{seed}:{i}")
        strong, weak = TEXT_MODELS if rng.random() < 0.8 else TEXT_MODELS[::-1]
        rows.append(PairRow(
            pair_id=f"demo-t2t-{i + 1:03d}", prompt_id=f"demo-t2t-prompt-{i + 1:03d}", task="text-to-text",
            prompt=[text(prompt, "plain")], first=Side(strong, [text(better[1])]), second=Side(weak, [text(worse[1])]),
            source="concord-demo-omni", metadata={"category": better[0]}, criteria=criteria,
        ))
    return rows
