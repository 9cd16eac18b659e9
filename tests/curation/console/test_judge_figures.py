"""Judge–human agreement and swap consistency by MMRB2's rule, on the dashboard, its CSV, the API and the page.

A failed call (an HTTP 500, a timeout) or an unreadable answer is no verdict: it leaves the denominator and is
counted beside it, as MMRB2's compute_accuracy.py skips a missing judgement. Swap consistency is over the
pairs with a verdict in both orders. Every figure below is counted by hand from the calls made here.
"""

import csv
import io

import pytest
from django.urls import reverse

from annotation.accounts.models import Role
from annotation.catalogue.models import Pair
from annotation.catalogue.services.campaigns import rating_schema_for_preset
from curation import quality
from curation.models import ConsensusRecord, Judge, JudgeVerdict
from curation.selectors.dashboards import dashboard_figure
from tests.curation.console.world import make_pair
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

HTTP_500 = "HTTP 500: internal server error (gave up after 3 attempts)"
TIMEOUT = "ReadTimeout: timed out (gave up after 3 attempts)"


def call(pair, judge, order, verdict, error=""):
    JudgeVerdict.objects.create(pair=pair, judge=judge, order=order, verdict=verdict, error=error,
                                raw_output="" if error else f'{{"better_response": "{verdict}"}}')


@pytest.fixture
def campaign():
    from annotation.catalogue.models import Campaign

    schema = rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image")
    campaign = Campaign.objects.create(slug="judge-figures", name="Judge figures", kind="text-to-image",
                                       rating_schema=schema, overlap=3, max_overlap=5)
    pairs = [make_pair(campaign, f"p{i}", status=Pair.Status.COMPLETE) for i in range(40)]
    for pair in pairs:
        ConsensusRecord.objects.create(pair=pair, policy="mmrb2-generation", decision="kept", chosen="A")
    flaky, down, garbled = (Judge.objects.create(name=name, backend="python") for name in ("flaky", "down", "garbled"))
    # flaky: forward A on pairs 0–29 and B on 30–39; swapped: HTTP 500 on pairs 0–3 (5 % of its 80 calls),
    # A on 4–27, B on 28–39.
    for i, pair in enumerate(pairs):
        call(pair, flaky, "forward", "A" if i < 30 else "B")
        if i < 4:
            call(pair, flaky, "swapped", "invalid", error=HTTP_500)
        else:
            call(pair, flaky, "swapped", "A" if i < 28 else "B")
    # down: every call timed out.
    for pair in pairs[:3]:
        call(pair, down, "forward", "invalid", error=TIMEOUT)
        call(pair, down, "swapped", "invalid", error=TIMEOUT)
    # garbled: unreadable answers both ways on pairs 0–1; A/A on pair 2; A/B on pairs 3–4.
    for pair in pairs[:2]:
        call(pair, garbled, "forward", "invalid")
        call(pair, garbled, "swapped", "invalid")
    call(pairs[2], garbled, "forward", "A")
    call(pairs[2], garbled, "swapped", "A")
    for pair in pairs[3:5]:
        call(pair, garbled, "forward", "A")
        call(pair, garbled, "swapped", "B")
    return campaign


def rows(name, campaign):
    return {r["judge"]: r for r in dashboard_figure(name=name, campaign=campaign).rows}


def test_failed_calls_leave_the_denominator_and_are_counted_beside_it(campaign):
    """54 of flaky's 76 verdicts match (0.7105), not 54 of its 80 calls (0.675): 4 calls failed."""
    flaky = rows("judge-human-agreement", campaign)["flaky"]
    assert (flaky["n"], flaky["successes"], flaky["rate"]) == (76, 54, 0.7105)
    assert (flaky["failed"], flaky["invalid"]) == (4, 0)
    low, high = quality.wilson_interval(54, 76)
    assert (flaky["low"], flaky["high"]) == (round(low, 4), round(high, 4))


def test_a_judge_whose_every_call_timed_out_has_no_verdicts_not_zero(campaign):
    down = rows("judge-human-agreement", campaign)["down"]
    assert (down["n"], down["rate"], down["low"], down["high"]) == (0, None, None, None)
    assert (down["failed"], down["invalid"], down["no_verdicts"]) == (6, 0, True)
    position = rows("judge-position-bias", campaign)["down"]
    assert (position["n"], position["first_position_share"], position["consistent_after_swap"]) == (0, None, None)
    assert (position["swap_pairs"], position["swap_left_out"]) == (0, 3)


def test_unreadable_answers_are_no_verdict_and_invalid_twice_is_not_consistent(campaign):
    garbled = rows("judge-human-agreement", campaign)["garbled"]
    assert (garbled["n"], garbled["successes"], garbled["rate"]) == (6, 4, 0.6667)
    assert (garbled["invalid"], garbled["failed"]) == (4, 0)
    position = rows("judge-position-bias", campaign)
    assert position["garbled"]["consistent_after_swap"] == 0.3333
    assert (position["garbled"]["swap_pairs"], position["garbled"]["swap_left_out"]) == (3, 2)
    # flaky: the same verdict both ways on pairs 4–27 and 30–39, 34 of the 36 pairs with two verdicts.
    assert position["flaky"]["consistent_after_swap"] == 0.9444
    assert (position["flaky"]["swap_pairs"], position["flaky"]["swap_left_out"]) == (36, 4)


def test_the_api_and_the_csv_carry_the_same_figures(campaign, client):
    curator = UserFactory(username="judge-figures-curator", role=Role.CURATOR)
    client.force_login(curator)
    body = client.get(reverse("api-console-figure", args=["judge-human-agreement"]), {"campaign": campaign.slug}).json()
    by_judge = {r["judge"]: r for r in body["rows"]}
    assert (by_judge["flaky"]["rate"], by_judge["flaky"]["n"]) == (0.7105, 76)
    assert by_judge["down"]["rate"] is None
    assert {"failed", "invalid"} <= set(body["columns"]) and by_judge["down"]["failed"] == 6
    response = client.get(reverse("console-figure-csv", args=["judge-position-bias"]), {"campaign": campaign.slug})
    table = {r["judge"]: r for r in csv.DictReader(io.StringIO(response.content.decode()))}
    assert (table["garbled"]["consistent_after_swap"], table["garbled"]["swap_pairs"]) == ("0.3333", "3")


def test_the_dashboard_page_says_no_verdicts_instead_of_zero(campaign, client):
    curator = UserFactory(username="judge-figures-curator", role=Role.CURATOR)
    client.force_login(curator)
    html = client.get(reverse("console-dashboards"), {"campaign": campaign.slug}).content.decode()
    start = html.index('data-testid="judge-agreement-table"')
    table = html[start:html.index("</table>", start)]
    down = table[table.index('data-judge="down"'):]
    down = down[:down.index("</tr>")]
    assert "no verdicts" in down and "0.00" not in down
    flaky = table[table.index('data-judge="flaky"'):]
    assert "0.71" in flaky[:flaky.index("</tr>")]


def test_judge_figures_is_the_one_rule_over_counts():
    figures = quality.judge_figures(quality.JudgeTally(verdicts=76, agree=54, failed=4, sides=76, first=40,
                                                       swap_pairs=36, swap_same=34, swap_left_out=4))
    assert (figures["rate"], figures["failed"], figures["consistent_after_swap"], figures["swap_pairs"]) == (
        0.7105, 4, 0.9444, 36)
    assert figures["position_bias"] == round(40 / 76 - 0.5, 4)
    empty = quality.judge_figures(quality.JudgeTally(failed=6, swap_left_out=3))
    assert (empty["rate"], empty["no_verdicts"], empty["consistent_after_swap"], empty["first_position_share"]) == (
        None, True, None, None)
