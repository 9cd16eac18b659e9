"""The model leaderboard read from the database, over the API, as CSV and in the console."""

import csv
import io

import numpy as np
import pytest
from django.urls import reverse

from curation.selectors.leaderboard import leaderboard_campaigns, leaderboard_csv, model_comparisons, model_leaderboard
from tests.curation.leaderboard.world import make_leaderboard_world
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_every_counted_preference_is_one_comparison_with_its_side_shown_left():
    """Seven ratings count (the excluded pair's does not); the first was shown A-left, the rest B-left."""
    campaign = make_leaderboard_world()
    data = model_comparisons(campaigns=[campaign])
    c = data.comparisons
    assert c.models == ["alpha", "beta", "gamma"]
    assert len(c) == 7
    # (pair, outcome for A, side shown left, source), whatever order the rows streamed in
    first = campaign.pairs.get(external_id="lb-t2i-p0").pk
    rows = sorted(zip((c.pair - first).tolist(), c.outcome.tolist(), c.left.tolist(), data.source.tolist(), strict=True))
    assert [r[1:] for r in rows] == [(1.0, 1.0, "oneig"), (1.0, -1.0, "oneig"), (1.0, -1.0, "oneig"), (0.0, -1.0, "oneig"),
                                     (1.0, -1.0, "wise"), (1.0, -1.0, "wise"), (0.5, -1.0, "wise")]
    assert set(data.kind.tolist()) == {"text-to-image"}


def test_the_leaderboard_ranks_alpha_beta_gamma_and_counts_comparisons_per_pair_of_models():
    """alpha beat beta 3–1, beta beat gamma 2–0 with a tie: the order and the matrices follow."""
    make_leaderboard_world()
    report = model_leaderboard(campaigns=leaderboard_campaigns(), bootstrap=50)
    board = report["leaderboard"]
    assert [m["model"] for m in board["models"]] == ["alpha", "beta", "gamma"]
    assert [m["comparisons"] for m in board["models"]] == [4, 7, 3]
    assert board["pair_comparisons"]["rows"] == [[0, 4, 0], [4, 0, 3], [0, 3, 0]]
    assert board["win_rate"]["rows"][0][1] == pytest.approx(0.75)
    assert board["win_rate"]["rows"][1][2] == pytest.approx(2.5 / 3)
    assert report["campaigns_without_preference"] == ["lb-nopref"]
    assert report["sources"] == ["oneig", "wise"]


def test_a_source_or_kind_split_counts_only_its_own_ratings():
    """Source oneig holds alpha against beta only; no campaign with a preference question is image editing."""
    campaign = make_leaderboard_world()
    board = model_leaderboard(campaigns=[campaign], source="oneig", bootstrap=10)["leaderboard"]
    assert [m["model"] for m in board["models"]] == ["alpha", "beta"]
    assert board["comparisons"] == 4
    assert model_leaderboard(campaigns=[campaign], kind="image-editing", bootstrap=10)["leaderboard"] is None


def test_the_release_scope_counts_only_the_pairs_given():
    """Limited to the released pairs (here the two wise pairs beta won), only those ratings count."""
    campaign = make_leaderboard_world()
    wise = list(campaign.pairs.filter(prompt__source="wise").order_by("id").values_list("id", flat=True))[:2]
    board = model_leaderboard(campaigns=[campaign], pair_ids=np.asarray(wise), bootstrap=10)["leaderboard"]
    assert board["comparisons"] == 2
    assert [m["model"] for m in board["models"]] == ["beta", "gamma"]


def test_unknown_campaigns_and_an_oversized_bootstrap_are_refused_by_name():
    """A typo in a slug is an error naming it, not an empty leaderboard."""
    from core.errors import ApplicationError

    make_leaderboard_world()
    with pytest.raises(ApplicationError, match="no campaign lb-typo"):
        leaderboard_campaigns(slugs=["lb-t2i", "lb-typo"])
    with pytest.raises(ApplicationError, match="bootstrap must be a whole number from 0 to 2000"):
        model_leaderboard(campaigns=leaderboard_campaigns(), bootstrap=5000)


def test_the_csv_has_a_row_per_model_and_per_ordered_pair_and_neutralises_formulas():
    """Model names that look like spreadsheet formulas are quoted; the method is named in the first line."""
    campaign = make_leaderboard_world()
    from annotation.catalogue.models import Response

    Response.objects.filter(model_name="gamma").update(model_name="=HYPERLINK(1)")
    text = leaderboard_csv(model_leaderboard(campaigns=[campaign], bootstrap=10))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][0].startswith("# Bradley-Terry maximum likelihood")
    ratings = [r for r in rows if r[0] == "rating"]
    assert [r[2] for r in ratings] == ["alpha", "beta", "'=HYPERLINK(1)"]
    pairs = [r for r in rows if r[0] == "pair"]
    assert len(pairs) == 4
    assert ["alpha", "beta", "4", "0.7500"] == [pairs[0][2], pairs[0][3], pairs[0][7], pairs[0][8]]


# Transactional: the fit job is sent when the request's transaction commits and, with eager tasks (the embedded
# default), has run when the request looks again.
@pytest.mark.django_db(transaction=True)
def test_the_api_serves_curators_json_and_csv_and_refuses_annotators(client):
    """GET /api/v1/leaderboard/models/: 200 JSON for a curator, CSV beside it, 403 for an annotator, 404 for a typo."""
    make_leaderboard_world()
    client.force_login(UserFactory(username="lb-annotator"))
    assert client.get(reverse("api-model-leaderboard")).status_code == 403
    client.force_login(CuratorFactory())
    response = client.get(reverse("api-model-leaderboard"), {"campaign": "lb-t2i", "bootstrap": 20})
    assert response.status_code == 200
    assert [m["model"] for m in response.json()["leaderboard"]["models"]] == ["alpha", "beta", "gamma"]
    assert response.json()["leaderboard"]["bootstrap"] == 20
    csv_response = client.get(reverse("api-model-leaderboard-csv"), {"campaign": "lb-t2i", "bootstrap": 0})
    assert csv_response["Content-Type"].startswith("text/csv")
    assert b"rating,1,alpha" in csv_response.content
    missing = client.get(reverse("api-model-leaderboard"), {"campaign": "lb-typo"})
    assert missing.status_code == 404
    assert "no campaign lb-typo" in missing.content.decode()
    assert client.get(reverse("api-model-leaderboard"), {"bootstrap": 99999}).status_code == 400


# Transactional: the fit job is sent when the request's transaction commits and, with eager tasks (the embedded
# default), has run when the request looks again.
@pytest.mark.django_db(transaction=True)
def test_the_console_page_shows_the_ranking_matrix_and_method_and_links_its_csv(client):
    """The page lists the models best first with intervals, the win-rate matrix and the method it used."""
    make_leaderboard_world()
    client.force_login(CuratorFactory())
    page = client.get(reverse("console-leaderboard"), {"campaign": "lb-t2i"}).content.decode()
    assert page.index('data-model="alpha"') < page.index('data-model="beta"') < page.index('data-model="gamma"')
    assert "tie model (a tie is its own outcome" in page and "position-controlled" in page, "a rating is a tie"
    assert 'id="win-rate-matrix"' in page and "n=4" in page
    assert reverse("console-leaderboard-csv") + "?campaign=lb-t2i" in page
    assert "<script>" not in page.replace('<script type="module"', "").replace("<script src=", "")
    csv_response = client.get(reverse("console-leaderboard-csv"), {"campaign": "lb-t2i"})
    assert csv_response["Content-Disposition"] == 'attachment; filename="model-leaderboard-lb-t2i.csv"'
    assert client.get(reverse("console-leaderboard"), {"kind": "nonsense"}).status_code == 400
    empty = client.get(reverse("console-leaderboard"), {"kind": "image-editing"}).content.decode()
    assert 'id="no-leaderboard"' in empty


def test_campaigns_of_several_kinds_get_one_board_per_kind_never_one_pooled_board(client):
    """Over all campaigns, text-to-image models were ranked against image-editing models never compared with them
    (#1 at 2745 with the interval 2745-2745). The API asks for a kind; the page shows one kind's board and links
    to the others."""
    from annotation.catalogue.models import Campaign
    from annotation.catalogue.services.campaigns import rating_schema_for_preset
    from annotation.workqueue.models import Annotation
    from core.errors import ApplicationError
    from tests.curation.leaderboard.world import make_pair

    make_leaderboard_world()
    editing = Campaign.objects.create(slug="lb-edit", name="Editing", kind="image-editing",
                                      rating_schema=rating_schema_for_preset(preset="mmrb2-generation",
                                                                             kind="image-editing"))
    rater = UserFactory(username="lb-editor")
    for i, overall in enumerate((6, 5, 2, 6)):
        Annotation.objects.create(pair=make_pair(editing, f"e{i}", "imgedit", "edit-x", "edit-y"), annotator=rater,
                                  source=Annotation.Source.CONCORD, values={"overall": overall}, shown_swapped=i > 1)
    with pytest.raises(ApplicationError, match=r"2 task kinds \(image-editing: \d+ ratings, text-to-image") as refused:
        model_leaderboard(campaigns=leaderboard_campaigns(), bootstrap=10)
    assert refused.value.code == "kind_required" and refused.value.extra["kinds"] == ["image-editing", "text-to-image"]
    board = model_leaderboard(campaigns=leaderboard_campaigns(), kind="image-editing", bootstrap=10)["leaderboard"]
    assert board["comparisons"] == model_leaderboard(campaigns=[editing], bootstrap=10)["leaderboard"]["comparisons"]
    client.force_login(CuratorFactory())
    answer = client.get(reverse("api-model-leaderboard"))
    assert answer.status_code == 400 and answer.json()["code"] == "kind_required"
    page = client.get(reverse("console-leaderboard")).content.decode()
    assert 'id="one-board-per-kind"' in page and "Showing <strong>image-editing</strong>" in page
    assert 'kind=text-to-image">text-to-image</a>' in page
