"""Every import records the dataset it came from, with its licence and citation, on the campaign."""

import io
import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.catalogue.models import Campaign, SourceDataset
from annotation.jobs.models import Job
from tests.catalogue.import_helpers import concord_pair, run_import, run_import_json, write_jsonl
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db


def mmrb2_file(path):
    pair = {"id": "p1", "prompt_source": "oneigbench", "prompt_metadata": {"id": "1"},
            "prompt_content": [["text", "Draw a fox"]],
            "response_a": {"model_name": "m1", "response_content": [["text", "a fox"]]},
            "response_b": {"model_name": "m2", "response_content": [["text", "a dog"]]},
            "chosen": "A", "human_annotations": [6, 5, 6]}
    path.write_text(json.dumps({"pairs": [pair]}))
    return path


def test_an_mmrb2_import_records_mmrb2_under_cc_by_nc_with_its_citation(tmp_path):
    code, result = run_import_json(mmrb2_file(tmp_path / "t2i.json"), "--campaign", "mm", "--format", "mmrb2",
                                   "--task", "text-to-image")
    assert code == 0 and result["created"] == 1
    source = Campaign.objects.get(slug="mm").sources.get()
    assert (source.name, source.license) == ("mmrb2", "cc-by-nc-4.0")
    assert source.citation.startswith("@article{hu2025multimodalrewardbench2,")
    assert "arXiv:2512.16899" in source.citation


def test_a_concord_file_records_the_source_its_importer_names(tmp_path):
    citation = tmp_path / "hpd.bib"
    citation.write_text("@article{wu2023hpdv2, title={HPDv2}}")
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    code, _ = run_import(path, "--campaign", "hpd", "--format", "concord", "--task", "text-to-text",
                         "--source-name", "hpdv2", "--source-title", "Human Preference Dataset v2",
                         "--source-license", "Apache-2.0", "--source-citation", str(citation))
    assert code == 0
    source = SourceDataset.objects.get(name="hpdv2")
    assert (source.title, source.license, source.citation) == ("Human Preference Dataset v2", "apache-2.0",
                                                               "@article{wu2023hpdv2, title={HPDv2}}")
    assert list(Campaign.objects.get(slug="hpd").sources.all()) == [source]


def test_a_concord_file_without_a_source_records_none(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    assert run_import(path, "--campaign", "plain", "--format", "concord", "--task", "text-to-text")[0] == 0
    assert not Campaign.objects.get(slug="plain").sources.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source-license", "cc-by-4.0"], "name the source dataset"),
        (["--source-name", "hpdv2"], "give the licence of source 'hpdv2'"),
        (["--source-name", "HPD v2", "--source-license", "mit"], "source name 'HPD v2' must be lowercase"),
        (["--source-name", "mmrb2", "--source-license", "cc-by-4.0"],
         "source 'mmrb2' is recorded under licence cc-by-nc-4.0; this import names cc-by-4.0"),
    ],
)
def test_a_source_given_badly_is_refused_and_nothing_is_imported(tmp_path, args, message):
    SourceDataset.objects.create(name="mmrb2", title="Multimodal RewardBench 2", license="cc-by-nc-4.0")
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    code, result = run_import_json(path, "--campaign", "bad", "--format", "concord", "--task", "text-to-text", *args)
    assert code == 1
    assert message in result["errors"][0]["message"]
    assert not Campaign.objects.filter(slug="bad", pairs__isnull=False).exists()
    assert SourceDataset.objects.count() == 1


def test_the_upload_page_takes_the_source_and_the_job_records_it(django_capture_on_commit_callbacks):
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    body = {"campaign": "uploaded", "format": "concord", "task": "text-to-text", "source_name": "pickapic",
            "source_license": "mit", "source_title": "Pick-a-Pic", "source_citation": "@misc{pickapic}",
            "file": io.BytesIO(json.dumps(concord_pair(0)).encode() + b"\n")}
    body["file"].name = "pairs.jsonl"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("api-import-create"), body, format="multipart")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.SUCCEEDED, job.error
    source = Campaign.objects.get(slug="uploaded").sources.get()
    assert (source.name, source.title, source.license, source.citation) == ("pickapic", "Pick-a-Pic", "mit",
                                                                           "@misc{pickapic}")


def test_the_upload_form_asks_for_the_source_dataset(client):
    client.force_login(CuratorFactory())
    page = client.get(reverse("imports-upload")).content.decode()
    for field in ("source_name", "source_title", "source_license", "source_url", "source_citation"):
        assert f'name="{field}"' in page
