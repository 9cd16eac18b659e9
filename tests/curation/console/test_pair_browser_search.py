"""The pair browser worth browsing: prompt text, thumbnails, model names, full-text search, bulk actions."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.catalogue.models import Pair, Prompt
from annotation.catalogue.services.media import media_store
from curation.selectors.console import PairFilters, pair_browse
from curation.selectors.pair_columns import PromptDocument
from curation.services.bulk_actions import MAX_SELECTION, pairs_bulk_apply
from tests.curation.console.world import make_world
from tests.curation.releases.conftest import png
from tests.factories import ResponseFactory

pytestmark = pytest.mark.django_db


def with_prompt(pair: Pair, text: str) -> Pair:
    Prompt.objects.filter(pk=pair.prompt_id).update(
        content=[{"type": "image", "media": "0" * 64, "alt": ""}, {"type": "text", "text": text, "format": "plain"}])
    return pair


@pytest.fixture
def world():
    world = make_world()
    with_prompt(world.pairs["kept"], "Draw a red fox jumping over a fence")
    with_prompt(world.pairs["split"], "Paint a blue whale under the sea")
    with_prompt(world.pairs["queued"], "A red kite over the fox's den")
    return world


def test_each_row_shows_the_prompt_text_both_models_and_each_responses_first_image(world):
    """The prompt's first text block, the model names and a media URL for a response whose content holds an image."""
    image = media_store(data=png((255, 0, 0)))
    pair = world.pairs["kept"]
    pair.response_b = ResponseFactory(prompt=pair.prompt, model_name="secret-model-painter",
                                      content=[{"type": "text", "text": "Here:", "format": "markdown"},
                                               {"type": "image", "media": image.sha256, "alt": ""}])
    pair.save(update_fields=["response_b"])
    rows = {r["external_id"]: r for r in pair_browse(campaign=world.campaign, filters=PairFilters()).rows}
    kept = rows["console-t2i-kept"]
    assert kept["prompt_text"] == "Draw a red fox jumping over a fence"
    assert (kept["model_a"], kept["model_b"]) == ("secret-model-kept-a", "secret-model-painter")
    assert kept["thumbnail_a"] is None
    assert kept["thumbnail_b"] == f"/media/{image.sha256}.png"


@pytest.mark.parametrize(("q", "expected"), [
    ("fox", {"kept", "queued"}),
    ("red fox", {"kept", "queued"}),
    ('"red fox"', {"kept"}),
    ("fox -kite", {"kept"}),
    ("whale", {"split"}),
    ("WHALE", {"split"}),
    ("zebra", set()),
])
def test_full_text_search_finds_pairs_by_their_prompts_words(world, q, expected, postgres_only):
    """Web-search syntax on PostgreSQL: every word, a "quoted phrase", -excluded; case does not matter."""
    rows = pair_browse(campaign=world.campaign, filters=PairFilters(q=q)).rows
    assert {r["external_id"].removeprefix("console-t2i-") for r in rows} == expected


def test_search_keeps_keyset_pages_and_one_query_per_page(world, postgres_only):
    """Two pages of one row each walk both fox pairs once, each page in one query (no thumbnails to look up), planned
    without parallel workers (core.planner: the two set_config statements around it)."""
    with CaptureQueriesContext(connection) as statements:
        first = pair_browse(campaign=world.campaign, filters=PairFilters(q="fox"), limit=1)
    sql = [statement["sql"] for statement in statements.captured_queries if "SAVEPOINT" not in statement["sql"]]
    assert len(sql) == 3 and "'max_parallel_workers_per_gather', '0'" in sql[0] and "set_config" in sql[2]
    assert "annotation_pair" in sql[1]
    second = pair_browse(campaign=world.campaign, filters=PairFilters(q="fox"), cursor=first.next_cursor, limit=1)
    assert [r["external_id"] for r in first.rows + second.rows] == ["console-t2i-kept", "console-t2i-queued"]
    assert second.next_cursor is None


def test_the_search_is_answered_by_the_prompt_text_index(world, postgres_only):
    """The plan of the search reads prompt_text_search_idx (sequential scans off, as on a large table)."""
    from django.contrib.postgres.search import SearchQuery

    query = Prompt.objects.alias(doc=PromptDocument("content")).filter(doc=SearchQuery("fox", config="simple",
                                                                                   search_type="websearch"))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = query.explain()
    assert "prompt_text_search_idx" in plan


def test_an_overlong_search_is_refused_precisely():
    from core.errors import ApplicationError

    with pytest.raises(ApplicationError, match="the search text is 201 characters; keep it under 200"):
        PairFilters(q="x" * 201)


def test_the_api_searches_and_returns_the_new_columns(world, postgres_only):
    client = APIClient()
    client.force_authenticate(world.curator)
    answer = client.get(reverse("api-console-pairs", args=[world.campaign.slug]), {"q": "whale"}).json()
    assert [(r["external_id"], r["prompt_text"], r["model_a"]) for r in answer["results"]] == [
        ("console-t2i-split", "Paint a blue whale under the sea", "secret-model-split-a")]


def test_a_bulk_exclude_goes_through_the_single_pair_service_for_each_pair(world):
    """Both selected pairs are excluded with the curator's reason, as the pair page's button would."""
    ids = [world.pairs["extra1"].pk, world.pairs["extra2"].pk]
    result = pairs_bulk_apply(campaign=world.campaign, pair_ids=ids, action="exclude", actor=world.curator,
                              note="broken images")
    assert result.done == ids and result.refused == []
    for pair in Pair.objects.filter(pk__in=ids):
        assert pair.status == Pair.Status.EXCLUDED
        assert pair.status_reason == "excluded by console-t2i-curator: broken images"


def test_a_pair_the_action_does_not_apply_to_is_refused_with_the_services_reason_and_the_rest_proceed(world):
    """Restoring a queued pair is refused; the excluded one is restored; a pair of another campaign is not touched."""
    other = make_world("console-other")
    foreign = other.pairs["excluded"]
    ids = [world.pairs["excluded"].pk, world.pairs["queued"].pk, foreign.pk]
    result = pairs_bulk_apply(campaign=world.campaign, pair_ids=ids, action="restore", actor=world.curator)
    assert result.done == [world.pairs["excluded"].pk]
    refused = dict(result.refused)
    assert refused[foreign.pk] == "not a pair of console-t2i"
    assert world.pairs["queued"].pk in refused
    foreign.refresh_from_db()
    assert foreign.status == Pair.Status.EXCLUDED
    assert "1 pair(s) done; 2 refused" in result.summary()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"action": "delete", "pair_ids": [1]}, "unknown bulk action 'delete'"),
    ({"action": "exclude", "pair_ids": []}, "select at least one pair"),
    ({"action": "exclude", "pair_ids": list(range(1, MAX_SELECTION + 2))}, "201 pairs selected; act on at most 200"),
])
def test_bad_bulk_requests_are_refused_and_change_nothing(world, kwargs, message):
    from core.errors import ApplicationError

    before = list(Pair.objects.order_by("pk").values_list("pk", "status"))
    with pytest.raises(ApplicationError, match=message):
        pairs_bulk_apply(campaign=world.campaign, actor=world.curator, **kwargs)
    assert list(Pair.objects.order_by("pk").values_list("pk", "status")) == before


def test_the_browser_page_applies_a_bulk_action_and_returns_to_the_same_filtered_page(world, client):
    """Mark two pairs gold from the page: the redirect keeps the filters and the message says what happened."""
    client.force_login(world.curator)
    ids = [world.pairs["extra1"].pk, world.pairs["extra2"].pk]
    response = client.post(reverse("console-pairs-bulk", args=[world.campaign.slug]),
                           {"pair": ids, "action": "mark-gold", "side": "A", "back": "status=queued"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("console-pairs", args=[world.campaign.slug]) + "?status=queued"
    assert "mark gold: 2 pair(s) done." in response.content.decode()
    assert set(Pair.objects.filter(pk__in=ids).values_list("is_gold", flat=True)) == {True}
    page = client.get(reverse("console-pairs", args=[world.campaign.slug])).content.decode()
    assert f'name="pair" value="{ids[0]}"' in page and 'id="select-all"' in page


def test_pair_detail_shows_answers_per_question_and_each_rationale_with_its_orientation(world, client):
    """Alice saw the split pair swapped: her rationale's "A" is canonical B, and the page says so beside it."""
    from curation.selectors.console import format_answer, pair_detail

    detail = pair_detail(pair_id=world.pairs["split"].pk)
    who = [a["who"] for a in detail.annotations]
    overall = next(row for row in detail.answer_table if row["id"] == "overall")
    assert dict(zip(who, overall["cells"], strict=True)) == {
        "console-t2i-alice": "6 · A significantly better", "console-t2i-bob": "2 · B marginally better",
        "console-t2i-carol": "4 · Unsure / A negligibly better"}
    orientation = dict(zip(who, [a["orientation"] for a in detail.annotations], strict=True))
    assert orientation["console-t2i-alice"].startswith("written seeing B on the left: its “A” / left / first is canonical B")
    assert orientation["console-t2i-bob"] == "written seeing A on the left: its A and B are the canonical ones"
    client.force_login(world.curator)
    html = client.get(reverse("console-pair", args=[world.pairs["split"].pk])).content.decode()
    assert 'id="answer-table"' in html and "6 · A significantly better" in html
    assert "written seeing B on the left" in html and "rationale by console-t2i-alice" in html
    rubric = {"id": "image_quality", "scope": "response", "options": [{"value": 1, "label": "poor"}]}
    assert format_answer(rubric, {"A": 1, "B": 2}) == "A: 1 · poor · B: 2"
    assert format_answer({"id": "c", "type": "criteria"}, [{"criterion": "faithful", "label": "A"}]) == "faithful → A"
    assert format_answer({"id": "ok", "type": "boolean"}, False) == "no"
    assert format_answer({"id": "ok", "type": "boolean"}, None) == "—"
