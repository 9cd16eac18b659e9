"""A published release's card and manifest carry the model leaderboard of the released pairs."""

import json

import pytest

from tests.curation.releases.conftest import release_data, releases_root  # noqa: F401 (fixtures)
from tests.curation.releases.test_release_publish import publish_both

pytestmark = pytest.mark.django_db


def test_the_card_ranks_the_models_of_the_released_pairs_only(release_data, releases_root):  # noqa: F811
    """Kept t2i pairs: imagen4 (A) scored 6 wins, 1 tie, 2 losses of 9 against gpt-image; the dropped pair is not counted."""
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    card = (folder / "README.md").read_text()
    section = card[card.index("## Which model wins? (human preferences)"):]
    assert "One board per task kind" in section
    section = section[section.index("### text-to-image"):]
    assert "9 human ratings in the released text-to-image pairs" in section
    assert section.index("| 1 | imagen4 |") < section.index("| 2 | gpt-image |")
    assert "| 9 | 72.2% |" in section
    manifest = json.loads((folder / "manifest.json").read_text())
    assert set(manifest["model_leaderboards"]) == {"text-to-image"}, "the reasoning schema asks no A/B preference"
    models = manifest["model_leaderboards"]["text-to-image"]["models"]
    assert [(m["model"], m["comparisons"]) for m in models] == [("imagen4", 9), ("gpt-image", 9)]
    assert "alice" not in section and "ext-7" not in section


def test_the_card_says_when_its_ratings_are_not_position_controlled_and_lists_unconnected_models_apart():
    from curation.leaderboard.bradley_terry import comparisons_from_names, leaderboard
    from curation.leaderboard.card import leaderboard_card_section

    board = leaderboard(comparisons_from_names(model_a=["x", "y", "x", "p"], model_b=["y", "x", "y", "q"],
                                               outcome=[1.0, 1.0, 0.0, 1.0]), bootstrap=5).as_dict()
    text = leaderboard_card_section({"text-to-image": board}, scope="the released pairs")
    assert "not position-controlled" in text and "the ratings are net of it" not in text
    assert "| p | q | 1 | 100.0% |" in text and "| q | p | 1 | 0.0% |" in text


def test_the_cards_reasoning_row_says_its_pairwise_agreement_was_not_measured(release_data, releases_root):  # noqa: F811
    """The reasoning schema rates each response's correctness and asks no A/B preference: the row said "Measured on:
    preference: nominal on A/B (ties excluded)", a question that schema does not have."""
    publish_both()
    card = (releases_root / "fox-bench" / "1.0.0" / "README.md").read_text()
    row = next(line for line in card.splitlines() if line.startswith("| reasoning |"))
    assert "not measured: the schema asks no A/B preference" in row and "rates each response on its own" in row
    assert "preference: nominal" not in row
    t2i = next(line for line in card.splitlines() if line.startswith("| text-to-image |"))
    assert t2i.endswith("overall: nominal on A/B (ties excluded) |")


def test_the_cards_agreement_figures_name_their_pair_set_and_show_both(release_data, releases_root):  # noqa: F811
    """Pairwise agreement came from the released pairs and alpha from the whole campaign, side by side, unsaid."""
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    card = (folder / "README.md").read_text()
    rows = [line for line in card.splitlines() if line.startswith("| `t2i-wave` |")]
    assert [row.split(" | ")[2] for row in rows] == ["all rated pairs", "released pairs"]
    pairs = [int(row.split(" | ")[3]) for row in rows]
    assert pairs[0] > pairs[1] > 0, "the campaign holds a dropped pair the release leaves out"
    assert "Human pairwise agreement over the released pairs" in card
    sets = json.loads((folder / "manifest.json").read_text())["agreement"]["pair_sets"]["t2i-wave"]
    assert [s["pair_set"] for s in sets] == ["all rated pairs", "released pairs"]
    assert sets[1]["pairwise_agreement_excluding_ties"] is not None
