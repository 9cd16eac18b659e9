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
    assert "9 human ratings in the released pairs" in section
    assert section.index("| 1 | imagen4 |") < section.index("| 2 | gpt-image |")
    assert "| 9 | 72.2% |" in section
    manifest = json.loads((folder / "manifest.json").read_text())
    models = manifest["model_leaderboard"]["models"]
    assert [(m["model"], m["comparisons"]) for m in models] == [("imagen4", 9), ("gpt-image", 9)]
    assert "alice" not in section and "ext-7" not in section
