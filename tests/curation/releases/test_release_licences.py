"""A release carries its sources' most restrictive licence; a more permissive one needs --force-license."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.catalogue.services.sources import source_dataset_link
from annotation.importers import mmrb2, omnireward
from curation.models import Release
from curation.releases.licences import LicenceTooPermissive, release_licence

pytestmark = pytest.mark.django_db


def test_the_most_restrictive_source_licence_wins_and_an_unknown_one_counts_as_most_restrictive():
    decide = release_licence
    assert decide(sources={"a": "cc-by-4.0", "b": "cc-by-nc-4.0"}, override="", force=False, default="cc-by-4.0").licence \
        == "cc-by-nc-4.0"
    assert decide(sources={"a": "cc-by-nc-4.0", "b": "mystery-licence"}, override="", force=False,
                  default="cc-by-4.0").licence == "other"
    assert decide(sources={}, override="", force=False, default="cc-by-4.0").licence == "cc-by-4.0"
    stricter = decide(sources={"a": "cc-by-nc-4.0"}, override="cc-by-nc-sa-4.0", force=False, default="")
    assert (stricter.licence, stricter.forced) == ("cc-by-nc-sa-4.0", False)
    with pytest.raises(LicenceTooPermissive, match="cc-by-4.0 is more permissive than cc-by-nc-4.0, the licence of "
                                                   "source 'a'"):
        decide(sources={"a": "cc-by-nc-4.0", "b": "cc0-1.0"}, override="cc-by-4.0", force=False, default="")
    forced = decide(sources={"a": "cc-by-nc-4.0"}, override="cc-by-4.0", force=True, default="")
    assert (forced.licence, forced.required, forced.forced) == ("cc-by-4.0", "cc-by-nc-4.0", True)
    with pytest.raises(LicenceTooPermissive, match="'cc-by-5.0' is not a known licence id"):
        decide(sources={}, override="cc-by-5.0", force=False, default="")


def publish(*args):
    out = __import__("io").StringIO()
    call_command("publish_release", "--campaign", "t2i-wave,reasoning-wave", "--name", "fox-bench", "--version", "1.0.0",
                 *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_a_release_of_mmrb2_pairs_is_cc_by_nc_and_cites_mmrb2(release_data, releases_root):
    source_dataset_link(campaign=release_data["t2i"], source=mmrb2.SOURCE)
    publish()
    folder = releases_root / "fox-bench" / "1.0.0"
    card = (folder / "README.md").read_text()
    assert "\nlicense: cc-by-nc-4.0\n" in card
    assert "- https://huggingface.co/datasets/rl-research/multimodal-rewardbench-2" in card
    assert "@article{hu2025multimodalrewardbench2," in card
    assert "3 ratings imported from Multimodal RewardBench 2" in card
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["license"] == "cc-by-nc-4.0"
    assert manifest["licence"] == {"licence": "cc-by-nc-4.0", "required": "cc-by-nc-4.0", "forced": False}
    assert [s["name"] for s in manifest["sources"]] == ["mmrb2"]


def test_a_more_permissive_override_is_refused_without_force_and_nothing_is_published(release_data, releases_root):
    source_dataset_link(campaign=release_data["t2i"], source=mmrb2.SOURCE)
    with pytest.raises(CommandError, match="licence cc-by-4.0 is more permissive than cc-by-nc-4.0, the licence of source "
                                           "'mmrb2'.*--force-license"):
        publish("--license", "cc-by-4.0")
    assert not Release.objects.exists()
    assert not (releases_root / "fox-bench").exists()


def test_the_api_refusal_names_the_force_license_field_and_only_the_command_line_names_the_option(release_data,
                                                                                                 releases_root):
    from rest_framework.test import APIClient

    from tests.factories import CuratorFactory

    source_dataset_link(campaign=release_data["t2i"], source=mmrb2.SOURCE)
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    body = {"name": "fox-bench", "version": "1.0.0", "campaigns": ["t2i-wave", "reasoning-wave"],
            "license": "cc-by-4.0"}
    answer = client.post("/api/v1/releases/", body, format="json").json()
    assert answer["code"] == "release_license_too_permissive"
    assert answer["extra"] == {"field": "force_license"}
    assert answer["message"] == ("licence cc-by-4.0 is more permissive than cc-by-nc-4.0, the licence of source "
                                 "'mmrb2'; a release keeps its sources' terms")
    unknown = client.post("/api/v1/releases/", {**body, "license": "cc-by-5.0"}, format="json").json()
    assert "extra" not in unknown, "forcing cannot make an unknown licence id known"
    with pytest.raises(CommandError) as refused:
        publish("--license", "cc-by-4.0")
    assert str(refused.value).endswith("a release keeps its sources' terms (pass --force-license only if you hold the "
                                       "rights to relicense)")


def test_a_forced_override_is_taken_and_the_card_says_so(release_data, releases_root):
    source_dataset_link(campaign=release_data["t2i"], source=mmrb2.SOURCE)
    publish("--license", "cc-by-4.0", "--force-license")
    card = (releases_root / "fox-bench" / "1.0.0" / "README.md").read_text()
    assert "\nlicense: cc-by-4.0\n" in card
    assert "overrode the sources' most restrictive licence `cc-by-nc-4.0` with `cc-by-4.0` (--force-license)" in card


def test_omni_rewardbench_pairs_keep_a_release_at_other_until_a_curator_decides(release_data, releases_root):
    source_dataset_link(campaign=release_data["reasoning"], source=omnireward.SOURCE)
    publish()
    card = (releases_root / "fox-bench" / "1.0.0" / "README.md").read_text()
    assert "\nlicense: other\n" in card
    assert "the licence was not recorded at import: check the source's terms" in card


def test_the_publish_api_refuses_a_too_permissive_licence_and_takes_a_forced_one(release_data, releases_root,
                                                                                  django_capture_on_commit_callbacks):
    from rest_framework.test import APIClient

    from tests.factories import CuratorFactory

    source_dataset_link(campaign=release_data["t2i"], source=mmrb2.SOURCE)
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    body = {"name": "fox-bench", "version": "1.0.0", "campaigns": ["t2i-wave"], "license": "cc0-1.0"}
    refused = client.post("/api/v1/releases/", body, format="json")
    assert refused.status_code == 400
    assert "more permissive than cc-by-nc-4.0, the licence of source 'mmrb2'" in refused.json()["message"]
    assert not Release.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        taken = client.post("/api/v1/releases/", {**body, "force_license": True}, format="json")
    assert taken.status_code == 202
    assert Release.objects.get().params["licence"] == {"licence": "cc0-1.0", "required": "cc-by-nc-4.0", "forced": True}


def test_ratings_collected_in_concord_keep_the_publishers_terms_beside_a_more_permissive_source(release_data,
                                                                                               releases_root, settings):
    from annotation.catalogue.records import SourceInfo

    settings.CONCORD_RELEASES_LICENSE = "cc-by-sa-4.0"
    public = SourceInfo(name="public-prompts", title="Public prompts", license="cc0-1.0")
    source_dataset_link(campaign=release_data["t2i"], source=public)
    source_dataset_link(campaign=release_data["reasoning"], source=public)
    with pytest.raises(CommandError, match="licence cc0-1.0 is more permissive than cc-by-sa-4.0, the licence of source "
                                           "'ratings collected in Concord'"):
        publish("--license", "cc0-1.0")
    publish()
    assert "\nlicense: cc-by-sa-4.0\n" in (releases_root / "fox-bench" / "1.0.0" / "README.md").read_text()
