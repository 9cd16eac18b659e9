"""Anonymous rater slots stay anonymous: ratings imported without a stable rater are never counted as people.

MMRB2's three ratings per pair are anonymous per pair. Imported, each is a slot of its pair; per-rater
figures (the agreement report's annotators, the dashboards, Dawid–Skene) leave them out and say so,
while the figures that do not need identities (alpha, MMRB2's pairwise agreement) are unchanged.
"""

import io

import pytest
from django.core.management import CommandError, call_command

from annotation.catalogue import schemas
from annotation.workqueue.models import Annotation
from curation.agreement.report import agreement_report
from curation.agreement.table import table_from_answers
from curation.agreement.variables import variables_of_schema
from curation.selectors.dashboards import annotations_per_annotator, annotator_quality, human_position_bias
from tests.catalogue.import_helpers import concord_pair, run_import_json, write_jsonl
from tests.curation.agreement.mmrb2_files import PUBLISHED
from tests.curation.agreement.test_mmrb2_end_to_end import import_release, run_json
from tests.factories import AnnotationFactory, CampaignFactory, CuratorFactory, PairFactory

pytestmark = pytest.mark.django_db

ANONYMOUS_NOTE = ("Concord accounts only; left out: 3,000 ratings of anonymous slots (imported without a stable rater "
                  "identity: each is one rating of one pair, not a person).")


@pytest.mark.slow
def test_the_mmrb2_t2i_file_gives_no_rater_row_for_its_slots_and_the_same_alpha_and_pairwise_agreement(
        mmrb2_dir, tmp_path, client):
    slug = import_release(mmrb2_dir, tmp_path, "t2i", "text-to-image", "mmrb2-generation")
    labels = list(Annotation.objects.filter(pair__campaign__slug=slug).values_list("rater_label", flat=True))
    assert len(labels) == len(set(labels)) == 3000 and all(label.startswith("anonymous:") for label in labels)

    report = run_json("compute_agreement", "--campaign", slug, "--bootstrap", "50", "--no-slices")
    assert round(report["alpha"]["ordinal"], 4) == PUBLISHED["t2i"]["ordinal"] == 0.7162
    assert round(report["pairwise_agreement_excluding_ties"], 2) == PUBLISHED["t2i"]["pairwise"] == 95.34
    assert report["annotators"] == [] and report["raters"] == 0
    assert report["rater_identities"] == {
        "stable_raters": 0, "anonymous_slots": 3000, "anonymous_ratings": 3000, "left_out_of_per_rater_figures": 3000,
        "why": "imported without a stable rater identity: each is one rating slot of one pair (e.g. MMRB2's three "
               "anonymous ratings), never a person"}
    assert report["measured"] == {
        "alpha": {"nominal": "overall: nominal on A/B/tie", "ordinal": "overall: ordinal on 1..6",
                  "interval": "overall: interval on 1..6"},
        "percent_agreement": "overall: nominal on A/B/tie", "fleiss_kappa": "overall: nominal on A/B/tie",
        "pairwise_agreement_excluding_ties": "overall: nominal on A/B (ties excluded)"}

    campaign = Annotation.objects.filter(pair__campaign__slug=slug).first().pair.campaign
    for figure in (annotations_per_annotator(campaign=campaign), annotator_quality(campaign=campaign),
                   human_position_bias(campaign=campaign)):
        assert figure.rows == [] and figure.note == ANONYMOUS_NOTE, figure.name
    client.force_login(CuratorFactory())
    page = client.get(f"/console/dashboards/?campaign={slug}").content.decode()
    assert page.count(ANONYMOUS_NOTE) >= 3 and "anonymous:" not in page

    with pytest.raises(CommandError, match=r"dawid-skene weighs raters by identity, but 1,000 pair\(s\) have ratings "
                                           r"only from anonymous slots \(3,000 ratings"):
        call_command("apply_consensus", "--campaign", slug, "--policy", "dawid-skene", stdout=io.StringIO(),
                     stderr=io.StringIO())
    assert not campaign.pairs.filter(consensus__isnull=False).exists()

    out = io.StringIO()
    call_command("compute_agreement", "--campaign", slug, "--bootstrap", "20", "--no-slices", stdout=out,
                 stderr=io.StringIO())
    text = out.getvalue()
    assert "1,000 items, 3,000 annotations, 0 raters with a stable identity" in text
    assert "3,000 ratings of 3,000 anonymous slots left out of per-rater figures" in text
    assert "alpha [overall: ordinal on 1..6]: 0.7162" in text
    assert "pairwise agreement [overall: nominal on A/B (ties excluded)]: 95.34%" in text
    assert "Fleiss' kappa [overall: nominal on A/B/tie]:" in text


def test_concord_rows_with_rater_stay_stable_and_rows_without_one_become_slots_of_their_pair(tmp_path):
    def rated(i, *raters):
        return concord_pair(i, annotations=[{"values": {"overall": 6}, **({"rater": r} if r else {})} for r in raters])

    path = write_jsonl(tmp_path / "pairs.jsonl", [rated(0, "rater-07", None), rated(1, "rater-07", None)])
    code, summary = run_import_json(path, "--campaign", "mixed", "--format", "concord", "--task", "text-to-image",
                                    "--schema", "mmrb2-generation", "--with-annotations")
    assert (code, summary["annotations_imported"]) == (0, 4)
    report = run_json("compute_agreement", "--campaign", "mixed", "--bootstrap", "0", "--no-slices")
    assert [(row["rater"], row["ratings"], row["loo_compared"]) for row in report["annotators"]] == [
        ("imported:rater-07", 2, 2)], "the slots count in rater-07's consensus but get no row"
    assert report["rater_identities"]["anonymous_slots"] == 2 and report["raters"] == 1


def test_a_concord_rater_may_not_claim_the_anonymous_prefix(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0, annotations=[
        {"rater": "anonymous:x:1", "values": {"overall": 6}}])])
    code, summary = run_import_json(path, "--campaign", "c", "--format", "concord", "--task", "text-to-image",
                                    "--with-annotations")
    assert code == 1 and summary["errors"][0]["message"] == (  # nothing imported: the import failed
        "annotations[0].rater: the prefix 'anonymous:' is reserved for ratings without a stable rater; "
        "leave rater out instead")
    assert not Annotation.objects.exists()


def test_dawid_skene_models_the_stable_raters_and_says_how_many_slot_ratings_it_left_out():
    campaign = CampaignFactory(consensus_policy="dawid-skene")
    alice, bob = CuratorFactory(), CuratorFactory()
    for i in range(4):
        pair = PairFactory(campaign=campaign, required_annotations=3, annotations_done=3, status="complete")
        for user in (alice, bob):
            AnnotationFactory(pair=pair, source="concord", rater_label="", annotator=user, values={"overall": 6})
        AnnotationFactory(pair=pair, rater_label=f"anonymous:{i:016x}:1", values={"overall": 1})
    summary = run_json("apply_consensus", "--campaign", campaign.slug, "--params", '{"threshold": 0.6}')
    assert summary["ratings_left_out"] == {
        "anonymous_slots": 4,
        "why": "imported without a stable rater identity: each is one rating slot of one pair (e.g. MMRB2's three "
               "anonymous ratings), never a person"}
    assert summary["kept"] == 4 and summary["chosen"] == {"A": 4, "B": 0}


def test_per_rater_figures_of_a_plain_table_leave_out_the_raters_named_anonymous():
    variables = variables_of_schema(schemas.preset("mmrb2-generation", "text-to-image"))
    table = table_from_answers(variables=variables, pair_ids=[0, 0, 1, 1], raters=["ann", "s0", "ann", "s1"],
                               answers=[{"overall": 6}, {"overall": 6}, {"overall": 1}, {"overall": 2}],
                               anonymous=frozenset({"s0", "s1"}))
    report = agreement_report(table, bootstrap=0)
    assert [row["rater"] for row in report["annotators"]] == ["ann"]
    assert report["annotators"][0]["loo_agreement"] == 1.0
    assert report["rater_identities"]["left_out_of_per_rater_figures"] == 2
