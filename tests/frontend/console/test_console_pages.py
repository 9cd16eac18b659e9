"""Console pages and API, through Django's test client: what curators see and what they can do."""

import csv
import io

import pytest
from django.urls import reverse

from annotation.catalogue.models import Pair
from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make_world()


@pytest.fixture
def curator_client(client, world):
    client.force_login(world.curator)
    return client


def test_the_campaign_page_shows_the_funnel(curator_client, world):
    html = curator_client.get(reverse("console-campaign", args=[world.campaign.slug])).content.decode()
    assert "60.0%" in html and "9 / 15 annotations" in html
    assert "1 dropped as easy" in html and "1 disputed" in html


def test_the_campaign_page_shows_the_work_queue_from_assignment_events(curator_client, world):
    from annotation.workqueue.services.assignments import assignment_claim, assignment_skip

    assignment_claim(campaign=world.campaign, annotator=world.bob)
    carol = assignment_claim(campaign=world.campaign, annotator=world.carol)
    assignment_skip(assignment=carol, annotator=world.carol, reason="image does not load")
    html = curator_client.get(reverse("console-campaign", args=[world.campaign.slug])).content.decode()
    assert "1 open lease · last 24 h:\n      0 submitted, 1 skipped, 0 expired" in html
    funnel = curator_client.get(f"/api/v1/console/campaigns/{world.campaign.slug}/funnel/").json()
    assert funnel["work"] == {"open_leases": 1, "last_24h": {"claimed": 2, "submitted": 0, "skipped": 1, "expired": 0}}


def test_the_pair_browser_filters_and_pages_with_a_next_link(curator_client, world):
    url = reverse("console-pairs", args=[world.campaign.slug])
    page = curator_client.get(url, {"source": "wise"}).content.decode()
    assert "console-t2i-split" in page and "console-t2i-dropped" in page and "console-t2i-kept" not in page
    for i in range(60):
        Pair.objects.create(
            campaign=world.campaign, prompt=world.pairs["kept"].prompt, response_a=world.pairs["kept"].response_a,
            response_b=world.pairs["kept"].response_b, external_id=f"bulk-{i:03}",
        )
    first = curator_client.get(url)
    assert first.context["next_query"] and len(first.context["rows"]) == 50
    second = curator_client.get(url + "?" + first.context["next_query"])
    assert len(second.context["rows"]) == 18
    assert not ({r["id"] for r in first.context["rows"]} & {r["id"] for r in second.context["rows"]})


@pytest.mark.parametrize("query", [{"judge_agreement_min": "lots"}, {"gold": "maybe"}, {"cursor": "garbage"}, {"sort": "x"}])
def test_bad_browser_input_is_a_400_page_with_the_reason(curator_client, world, query):
    response = curator_client.get(reverse("console-pairs", args=[world.campaign.slug]), query)
    assert response.status_code == 400
    assert response.context["error"]


def test_the_pair_page_shows_model_names_verdicts_and_rationales(curator_client, world):
    html = curator_client.get(reverse("console-pair", args=[world.pairs["split"].pk])).content.decode()
    for needle in ("secret-model-split-a", "secret-model-split-b", "judge-2", "rationale by console-t2i-bob on console-t2i-split",
                   "&quot;better_response&quot;: &quot;B&quot;", "Disputed"):
        assert needle in html


def test_the_pair_page_shows_the_share_each_rater_heard_or_watched(curator_client, world):
    from annotation.workqueue.models import Annotation

    pair = world.pairs["split"]
    first, *rest = Annotation.objects.filter(pair=pair).order_by("created_at", "id")
    Annotation.objects.filter(pk=first.pk).update(media_played={"A": 1.0, "B": 0.8})
    html = curator_client.get(reverse("console-pair", args=[pair.pk])).content.decode()
    row = html[html.index("<tr data-played>"):]
    row = row[:row.index("</tr>")]
    assert "A 100 %, B 80 %" in row
    assert row.count("<td>—</td>") == len(rest)


def test_a_curator_action_from_the_page_changes_the_pair_and_says_so(curator_client, world):
    pair = world.pairs["dropped"]
    response = curator_client.post(reverse("console-pair-action", args=[pair.pk, "restore"]), {"note": "judges too sure"},
                                   follow=True)
    assert "Restored." in response.content.decode()
    pair.refresh_from_db()
    assert pair.status == Pair.Status.QUEUED


def test_a_refused_action_shows_the_reason_and_changes_nothing(curator_client, world):
    pair = world.pairs["kept"]
    response = curator_client.post(reverse("console-pair-action", args=[pair.pk, "extend-overlap"]), {"by": "9"}, follow=True)
    assert "exceeds the campaign&#x27;s maximum of 5" in response.content.decode()
    pair.refresh_from_db()
    assert pair.required_annotations == 3


def test_an_unknown_action_is_a_404(curator_client, world):
    response = curator_client.post(reverse("console-pair-action", args=[world.pairs["kept"].pk, "delete-everything"]))
    assert response.status_code == 404


def test_every_figure_downloads_as_csv_with_its_rows(curator_client, world):
    response = curator_client.get(reverse("console-figure-csv", args=["annotators"]), {"campaign": world.campaign.slug})
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="annotators-console-t2i.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["annotator"] for r in rows] == ["console-t2i-alice", "console-t2i-bob", "console-t2i-carol"]
    assert rows[0]["flagged"] == "True"
    assert curator_client.get(reverse("console-figure-csv", args=["nope"])).status_code == 404


def test_csv_cells_that_look_like_formulas_are_neutralised(curator_client, world):
    world.alice.username = "=HYPERLINK(1)"
    world.alice.save()
    rows = list(csv.DictReader(io.StringIO(
        curator_client.get(reverse("console-figure-csv", args=["annotations-per-annotator"])).content.decode()
    )))
    assert "'=HYPERLINK(1)" in [r["annotator"] for r in rows]


def test_the_dashboards_page_embeds_every_figure(curator_client, world):
    response = curator_client.get(reverse("console-dashboards"), {"campaign": world.campaign.slug})
    assert set(response.context["charts"]) >= {"annotations-per-day", "agreement-over-time", "judge-position-bias"}
    assert "chart.umd.min.js" in response.content.decode()


def test_the_annotator_page_lists_recent_work(curator_client, world):
    html = curator_client.get(reverse("console-annotator", args=[world.alice.pk])).content.decode()
    assert html.count("console-t2i-extra") >= 2 and "✓" in html


def test_the_api_pages_by_cursor_and_refuses_bad_filters(curator_client, world):
    url = reverse("api-console-pairs", args=[world.campaign.slug])
    first = curator_client.get(url, {"limit": 3}).json()
    assert len(first["results"]) == 3 and first["next_cursor"]
    second = curator_client.get(url, {"limit": 3, "cursor": first["next_cursor"]}).json()
    assert second["results"][0]["id"] > first["results"][-1]["id"]
    bad = curator_client.get(url, {"judge_agreement_min": 7})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    forged = curator_client.get(url, {"cursor": "AAAA"})
    assert forged.status_code == 400 and forged.json()["code"] == "invalid_cursor"


def test_api_actions_return_the_pair_or_a_precise_error(curator_client, world):
    pair = world.pairs["kept"]
    ok = curator_client.post(
        reverse("api-console-pair-mark-gold", args=[pair.pk]), {"side": "A"}, content_type="application/json"
    )
    assert ok.status_code == 200 and ok.json()["gold_answer"]["side"] == "A"
    conflict = curator_client.post(reverse("api-console-pair-restore", args=[pair.pk]), {}, content_type="application/json")
    assert conflict.status_code == 409 and conflict.json()["code"] == "invalid_status"
    missing = curator_client.post(reverse("api-console-pair-exclude", args=[10**9]), {"reason": "x"},
                                  content_type="application/json")
    assert missing.status_code == 404


def test_the_api_pair_detail_and_figures(curator_client, world):
    detail = curator_client.get(reverse("api-console-pair", args=[world.pairs["split"].pk])).json()
    assert detail["response_a"]["model_name"] == "secret-model-split-a"
    assert [a["side"] for a in detail["annotations"]] == ["A", "B", "tie"]
    figure = curator_client.get(reverse("api-console-figure", args=["prefilter-drop-rate"]), {"campaign": world.campaign.slug})
    assert figure.json()["rows"][1]["rate"] == 0.5
    assert curator_client.get(reverse("api-console-figure", args=["nope"])).status_code == 404


def test_the_pair_detail_draws_content_with_the_workspace_renderer(curator_client, world):
    """Markdown, highlighted code, a reasoning step and an image, as the annotator's page draws them; markup is sanitised."""
    import io

    from PIL import Image

    from annotation.catalogue.services.media import media_store

    png = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 10, 10)).save(png, "PNG")
    media = media_store(data=png.getvalue(), name="picture.png")
    pair = world.pairs["kept"]
    response = pair.response_a
    response.content = [
        {"type": "text", "text": "**Bold** claim <script>alert(1)</script>", "format": "markdown"},
        {"type": "code", "code": "def f():\n    return 1", "language": "python"},
        {"type": "reasoning", "blocks": [{"type": "image", "media": media.sha256, "alt": "a red square"}]},
    ]
    response.save(update_fields=["content"])
    pair.media.add(media)
    html = curator_client.get(reverse("console-pair", args=[pair.pk])).content.decode()
    assert "<strong>Bold</strong> claim" in html and "<script>alert(1)</script>" not in html
    assert '<div class="highlight">' in html and '<span class="k">def</span>' in html
    assert 'class="block step"' in html and f'src="/media/{media.sha256}.png" alt="a red square"' in html
    assert "frontend/workspace/pygments.css" in html
