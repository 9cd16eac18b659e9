"""Release API and pages for curators: list, publish with a job, downloads, predictions upload, leaderboard."""

import hashlib
import html as htmllib
import io
import json
import posixpath
import re
from io import StringIO

import pytest
from django.core import signing
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.jobs.models import Job
from curation.models import JudgeEvaluation, Release
from curation.releases.storage import DOWNLOAD_SALT
from curation.services.releases import release_publish
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

PERFECT = {
    "t2i-1": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "B"}]},
    "t2i-2": {"forward": [{"judgement": "B"}], "reverse": [{"judgement": "A"}]},
    "t2i-3": {"forward": [{"judgement": "A"}], "reverse": [{"judgement": "A"}]},
    "reason-1": {"forward": [{"judgement": "A"}]},
}


@pytest.fixture
def curator():
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    return client


@pytest.fixture
def published(release_data, releases_root):
    return release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave", "reasoning-wave"])


def test_the_release_list_shows_every_release_in_a_fixed_number_of_queries(published, curator, django_assert_num_queries):
    release_publish(name="fox-bench", version="1.1.0", campaign_slugs=["t2i-wave"])
    with django_assert_num_queries(2):  # releases joined with their jobs, then their campaigns prefetched
        answer = curator.get("/api/v1/releases/")
    assert answer.status_code == 200
    assert [(r["name"], r["version"], r["status"], r["pairs"]) for r in answer.json()] == [
        ("fox-bench", "1.1.0", "published", 3), ("fox-bench", "1.0.0", "published", 4)
    ]
    assert answer.json()[1]["campaigns"] == ["reasoning-wave", "t2i-wave"]


def test_publishing_through_the_api_runs_a_job_whose_progress_ends_succeeded(
    release_data, releases_root, curator, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        answer = curator.post("/api/v1/releases/", {"name": "fox-bench", "version": "2.0.0", "campaigns": ["t2i-wave"]},
                              format="json")
    assert answer.status_code == 202
    job = curator.get(f"/api/v1/jobs/{answer.json()['job']}/").json()
    assert (job["kind"], job["status"], job["percent"]) == ("release", "succeeded", 100.0)
    assert job["result"]["pairs"] == 3 and job["result"]["release"] == "fox-bench"
    assert Release.objects.get(name="fox-bench", version="2.0.0").status == Release.Status.PUBLISHED


def test_the_api_refuses_a_published_version_and_non_curators(published, curator):
    again = curator.post("/api/v1/releases/", {"name": "fox-bench", "version": "1.0.0",
                                               "campaigns": ["t2i-wave", "reasoning-wave"]}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "release_immutable"
    annotator = APIClient()
    annotator.force_authenticate(UserFactory())
    assert annotator.get("/api/v1/releases/").status_code == 403
    assert annotator.get("/api/v1/releases/fox-bench/1.0.0/download/").status_code == 403


def test_local_download_links_serve_the_manifest_files_and_refuse_forged_or_expired_tokens(published, curator, client):
    links = curator.get("/api/v1/releases/fox-bench/1.0.0/download/?media=1").json()
    paths = [f["path"] for f in links["files"]]
    assert paths[0] == "manifest.json" and any(p.startswith("media/") for p in paths)
    for link in links["files"]:
        answer = client.get(link["url"].replace("http://testserver", ""))
        assert answer.status_code == 200
        assert hashlib.sha256(b"".join(answer.streaming_content)).hexdigest() == link["sha256"]
    forged = signing.dumps({"key": "fox-bench/1.0.0/../../../etc/passwd", "max_age": 60}, salt="wrong", compress=True)
    assert client.get(reverse("release-download", kwargs={"token": forged})).status_code == 404
    outside = signing.dumps({"key": "fox-bench/1.0.0/../1.0.0/manifest.json.bak", "max_age": 60}, salt=DOWNLOAD_SALT)
    assert client.get(reverse("release-download", kwargs={"token": outside})).status_code == 404
    expired = signing.dumps({"key": "fox-bench/1.0.0/manifest.json", "max_age": -1}, salt=DOWNLOAD_SALT)
    assert client.get(reverse("release-download", kwargs={"token": expired})).status_code == 404


def test_verify_through_the_api_is_a_job_whose_result_holds_the_check(published, curator,
                                                                      django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        answer = curator.post("/api/v1/releases/fox-bench/1.0.0/verify/")
    assert answer.status_code == 202
    job = Job.objects.get(pk=answer.json()["id"])
    assert (job.kind, job.task_name, job.params["release"]) == ("release_verify", "curation.release_verify",
                                                               "fox-bench@1.0.0")
    detail = curator.get(f"/api/v1/jobs/{job.pk}/").json()
    assert detail["status"] == "succeeded" and detail["percent"] == 100.0
    assert detail["result"]["ok"] is True and detail["result"]["files_checked"] == published.files_count
    assert detail["progress_done"] == detail["progress_total"] == published.files_count


def test_verify_of_a_release_with_a_missing_file_succeeds_as_a_job_and_names_the_file(published, curator, releases_root,
                                                                                     django_capture_on_commit_callbacks):
    (releases_root / "fox-bench" / "1.0.0" / "README.md").unlink()
    with django_capture_on_commit_callbacks(execute=True):
        answer = curator.post("/api/v1/releases/fox-bench/1.0.0/verify/")
    result = Job.objects.get(pk=answer.json()["id"]).result
    assert result["ok"] is False and result["mismatches"] == [{"path": "README.md", "problem": "missing"}]


def test_predictions_uploaded_through_the_api_are_scored_and_appear_on_the_leaderboard(published, curator):
    upload = io.BytesIO(json.dumps(PERFECT).encode())
    upload.name = "judge.json"
    answer = curator.post("/api/v1/releases/fox-bench/1.0.0/evaluations/",
                          {"judge": "gpt-judge", "format": "mmrb2", "predictions": upload}, format="multipart")
    assert answer.status_code == 201
    scores = answer.json()["scores"]
    # t2i-3 reverse "A" flips to B against chosen A: the only wrong verdict of seven.
    assert scores["accuracy"] == pytest.approx(6 / 7)
    assert scores["per_task"]["reasoning"]["accuracy"] == 1.0
    curator.post("/api/v1/releases/fox-bench/1.0.0/evaluations/",
                 {"judge": "coin", "format": "mmrb2", "predictions": {"t2i-1": {"forward": [{"judgement": "B"}]}}},
                 format="json")
    board = curator.get("/api/v1/releases/fox-bench/1.0.0/leaderboard/").json()
    assert [j["judge"] for j in board["judges"]] == ["gpt-judge", "coin"]
    assert board["tasks"] == ["reasoning", "text-to-image"]
    assert board["human_agreement"]["text-to-image"]["agreement"] == pytest.approx(5 / 7)


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"judge": "j", "format": "mmrb2", "predictions": b"{not json"}, "predictions_not_json"),
        ({"judge": "j", "format": "mmrb2", "predictions": b'{"t2i-1": "A"}'}, "predictions_invalid"),
        ({"judge": "j", "format": "elo", "predictions": b"{}"}, "invalid"),
    ],
)
def test_malformed_predictions_are_refused_precisely_and_nothing_is_stored(published, curator, payload, code):
    upload = io.BytesIO(payload["predictions"])
    upload.name = "p.json"
    answer = curator.post("/api/v1/releases/fox-bench/1.0.0/evaluations/", {**payload, "predictions": upload},
                          format="multipart")
    assert answer.status_code == 400 and answer.json()["code"] == code
    assert not JudgeEvaluation.objects.exists()


def test_oversized_predictions_are_refused(published, curator, settings):
    settings.CONCORD_MAX_PREDICTIONS_BYTES = 10
    upload = io.BytesIO(json.dumps(PERFECT).encode())
    upload.name = "p.json"
    answer = curator.post("/api/v1/releases/fox-bench/1.0.0/evaluations/",
                          {"judge": "j", "format": "mmrb2", "predictions": upload}, format="multipart")
    assert answer.status_code == 413 and "exceed the limit of 10" in answer.json()["message"]


def test_evaluate_judge_prints_the_documented_json(published, tmp_path):
    path = tmp_path / "omni.json"
    path.write_text(json.dumps({"t2i-1": "response1", "t2i-2": "tie", "t2i-3": "response1"}))
    out = StringIO()
    call_command("evaluate_judge", "--release", "fox-bench@1.0.0", "--predictions", str(path), "--format", "omnireward",
                 "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert {"accuracy", "evaluated", "missing", "per_task", "with_ties", "without_ties"} <= set(result)
    # Four pairs, none a tie; reason-1 has no label, which Omni-RewardBench counts wrong.
    assert (result["accuracy"], result["with_ties"], result["without_ties"]) == (2 / 4,) * 3
    assert (result["evaluated"], result["missing"]) == (3, 1)
    assert JudgeEvaluation.objects.get().judge_name == "omni"


def test_a_reward_models_scores_are_scored_with_tie_calibrated_accuracy_on_the_command_and_the_page(published, tmp_path,
                                                                                                  client):
    """Chosen A, B, A, A; the scores get t2i-1 and t2i-2 right, t2i-3 wrong, reason-1 equal (wrong either way: no
    human tie in the release, so the calibrated threshold stays at 0)."""
    path = tmp_path / "rm.json"
    path.write_text(json.dumps({"t2i-1": [2.0, 1.0], "t2i-2": {"score_a": 0.1, "score_b": 0.9},
                                "t2i-3": [0.0, 1.5], "reason-1": [1, 1]}))
    out = StringIO()
    call_command("evaluate_judge", "--release", "fox-bench@1.0.0", "--predictions", str(path), "--format", "scores",
                 stdout=out)
    text = out.getvalue()
    assert "rm on fox-bench@1.0.0, reward-model scores: accuracy 50.00% (2/4 pairs humans did not call a tie" in text
    assert "tie-calibrated accuracy 50.00% over all 4 pairs" in text and "|score A - score B| <= 0 " in text
    scores = JudgeEvaluation.objects.get(judge_name="rm").scores
    assert (scores["tie_calibrated_accuracy"], scores["tie_epsilon"], scores["tie_pairs"]) == (0.5, 0.0, 0)
    client.force_login(CuratorFactory())
    page = client.get(reverse("release-leaderboard", kwargs={"name": "fox-bench", "version": "1.0.0"})).content.decode()
    assert '<td class="tie-calibrated">50.0%' in page and "ties: |A − B| ≤ 0" in page


def test_evaluate_judge_reports_unknown_prediction_ids_without_failing(published, tmp_path):
    path = tmp_path / "judge.json"
    path.write_text(json.dumps({**PERFECT, "no-such-pair": {"forward": [{"judgement": "A"}]}}))
    out = StringIO()
    call_command("evaluate_judge", "--release", "fox-bench@1.0.0", "--predictions", str(path), "--format", "mmrb2",
                 stdout=out)
    text = out.getvalue()
    assert "MMRB2 rules (compute_accuracy.py): accuracy 85.71% (6/7 judgements)" in text
    assert "1 prediction ids are not in the release (ignored), e.g. no-such-pair" in text
    assert JudgeEvaluation.objects.get().scores["unknown_ids"] == 1


def test_the_leaderboard_page_lists_judges_beside_human_agreement_and_takes_an_upload(published, client):
    client.force_login(CuratorFactory())
    url = reverse("release-leaderboard", kwargs={"name": "fox-bench", "version": "1.0.0"})
    upload = io.BytesIO(json.dumps(PERFECT).encode())
    upload.name = "p.json"
    answer = client.post(url, {"judge": "page-judge", "format": "mmrb2", "predictions": upload})
    assert answer.status_code == 302
    page = client.get(url).content.decode()
    assert "Human agreement" in page and "71.4%" in page
    assert 'data-judge="page-judge"' in page and "85.7%" in page
    bad = io.BytesIO(b"[]")
    bad.name = "bad.json"
    refused = client.post(url, {"judge": "bad", "format": "mmrb2", "predictions": bad})
    assert refused.status_code == 400
    assert "object keyed by pair id" in refused.content.decode()
    assert JudgeEvaluation.objects.count() == 1


def test_release_pages_are_for_curators_only(published, client):
    client.force_login(UserFactory())
    assert client.get(reverse("release-list")).status_code == 403
    client.force_login(CuratorFactory())
    page = client.get(reverse("release-list")).content.decode()
    assert 'data-release="fox-bench@1.0.0"' in page and 'id="publish-form"' in page
    assert Job.objects.filter(kind="release").count() == 1


def test_the_release_page_lists_signed_download_links_that_serve_each_file(published, client):
    """A local release is downloadable from its page: every non-media file has a signed link serving its bytes."""
    client.force_login(CuratorFactory())
    page = client.get(reverse("release-leaderboard", kwargs={"name": "fox-bench", "version": "1.0.0"}), {"published": "1"})
    html = page.content.decode()
    assert "file://" not in html
    assert "Published fox-bench@1.0.0: 4 pairs" in html
    links = page.context["downloads"]["files"]
    assert [link["path"] for link in links][:1] == ["manifest.json"] and len(links) > 3
    for link in links:
        assert f'href="{link["url"]}"' in html
        answer = client.get(link["url"])
        body = b"".join(answer.streaming_content)
        assert hashlib.sha256(body).hexdigest() == (link["sha256"] or published.manifest_sha256)


def _media_paths_named_in(value, folder: str) -> set[str]:
    """Every media path a downloaded JSON file names, resolved against the folder it sits in."""
    if isinstance(value, dict):
        return set().union(*(_media_paths_named_in(v, folder) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_media_paths_named_in(v, folder) for v in value))
    if isinstance(value, str) and re.fullmatch(r"(\.\./)?media/[0-9a-f]{64}\.\w+", value):
        return {posixpath.normpath(posixpath.join(folder, value))}
    return set()


def test_the_release_page_offers_the_media_the_data_files_point_at_and_says_where_they_go(published, client):
    """Every ../media/… path in the downloaded mmrb2/*.json has a signed link on the page; the page says to keep the
    release's layout, and its script fetches every file, media included, to its path."""
    client.force_login(CuratorFactory())
    page = client.get(reverse("release-leaderboard", kwargs={"name": "fox-bench", "version": "1.0.0"}))
    html = page.content.decode()
    downloads = page.context["downloads"]
    media = {link["path"]: link for link in downloads["media"]}
    assert media and all(path.startswith("media/") for path in media)
    assert not any(link["path"].startswith("media/") for link in downloads["files"])
    named = set()
    for link in downloads["files"]:
        if link["path"].startswith("mmrb2/"):
            named |= _media_paths_named_in(json.loads(b"".join(client.get(link["url"]).streaming_content)), "mmrb2")
    assert named and named <= set(media), "every picture the MMRB2 files name is offered"
    for link in media.values():
        assert f'href="{link["url"]}"' in html
        assert hashlib.sha256(b"".join(client.get(link["url"]).streaming_content)).hexdigest() == link["sha256"]
    layout = html[html.index('id="download-layout"'):html.index("</div>", html.index('id="download-layout"'))]
    assert "fox-bench/1.0.0/" in layout and "<code>../media/&lt;sha256&gt;.&lt;ext&gt;</code>" in layout
    script = htmllib.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", html, re.S).group(1)).splitlines()
    fetched = {}
    for line in script:
        path, url = re.fullmatch(r"curl -fsS --create-dirs -o '([^']+)' '(http://testserver/[^']+)'", line).groups()
        fetched[path] = url
    assert set(fetched) == {link["path"] for link in (*downloads["files"], *downloads["media"])}
    some_media = next(iter(media))
    assert client.get(fetched[some_media]).status_code == 200


def test_the_release_api_names_the_release_page(published, curator):
    """A client that published through the API can link the curator to the release's page."""
    answer = curator.get("/api/v1/releases/fox-bench/1.0.0/").json()
    assert answer["page"] == reverse("release-leaderboard", kwargs={"name": "fox-bench", "version": "1.0.0"})


def test_the_leaderboard_page_takes_omnis_no_tie_run_and_names_each_figures_file(published, client):
    """Four pairs, none a tie: the with-tie run says "tie" everywhere (0 %), the no-tie run is right on three."""
    client.force_login(CuratorFactory())
    url = reverse("release-leaderboard", kwargs={"name": "fox-bench", "version": "1.0.0"})
    with_tie = io.BytesIO(json.dumps({pid: "tie" for pid in ("t2i-1", "t2i-2", "t2i-3", "reason-1")}).encode())
    with_tie.name = "judge_preferences_with_tie.json"
    no_tie = io.BytesIO(json.dumps({"t2i-1": "response1", "t2i-2": "response2", "t2i-3": "response1",
                                    "reason-1": "response1"}).encode())
    no_tie.name = "judge_preferences.json"
    answer = client.post(url, {"judge": "omni-judge", "format": "omnireward", "predictions": with_tie,
                               "predictions_no_tie": no_tie})
    assert answer.status_code == 302
    scores = JudgeEvaluation.objects.get().scores
    assert scores["with_ties"] == 0 and scores["without_ties_from"] == "no-tie run"
    page = client.get(url).content.decode()
    row = page[page.index('data-judge="omni-judge"'):]
    row = row[:row.index("</tr>")]
    assert "from <code>judge_preferences_with_tie.json</code>; without ties from <code>judge_preferences.json</code>" in row
    assert f"{100 * scores['without_ties']:.1f}%" in row and "no-tie run" in row
