"""A release with a private held-out split: labels that never leave the server, judges scored on them by team token
within a daily limit, exactly as evaluate_judge scores, and only aggregate figures shown."""

import hashlib
import io
import json
import re
import zipfile
from collections import Counter
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.catalogue.services.media import media_store
from curation.models import HeldoutPair, Release, Submission
from curation.releases import heldout, scoring
from curation.services.heldout import release_private_gold
from curation.services.releases import release_archive, release_gold
from tests.catalogue.import_helpers import write_jsonl
from tests.curation.releases.conftest import image_pair, kept, png, rate
from tests.curation.releases.test_release_omni import import_omni, omni_text_rows
from tests.factories import CampaignFactory, CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

LABEL_KEYS = {"chosen", "ratings", "human_annotations", "agreement", "criteria_preference"}
SOURCES = {"oneigbench": 12, "wise": 8}


@pytest.fixture
def campaigns(tmp_path, releases_root):
    """t2i: 20 kept pairs from two prompt sources, rated by two accounts; omni-t2t: 16 Omni text pairs, 5 ties."""
    media = [media_store(data=png(color)) for color in ((255, 0, 0), (0, 255, 0), (0, 0, 255))]
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    t2i = CampaignFactory(slug="t2i-held", kind="text-to-image",
                          rating_schema=rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image"))
    labels = {}
    n = 0
    for source, count in SOURCES.items():
        for _ in range(count):
            pair_id = f"t2i-{n:03d}"
            pair = image_pair(t2i, pair_id, media[n % 3], media[(n + 1) % 3], prompt_text=f"Draw fox number {n}")
            pair.prompt.source = source
            pair.prompt.save(update_fields=["source"])
            chosen = "A" if n % 3 else "B"
            rate(pair, {alice: 6, bob: 5} if chosen == "A" else {alice: 1, bob: 2})
            kept(pair, chosen)
            labels[pair_id] = chosen
            n += 1
    code, summary = import_omni(write_jsonl(tmp_path / "t2t.jsonl", omni_text_rows()), "omni-t2t", "text-to-text")
    assert (code, summary["created"]) == (0, 16)
    call_command("apply_consensus", "--campaign", "omni-t2t", stdout=StringIO())
    return {"labels": labels, "slugs": ["t2i-held", "omni-t2t"]}


def publish(name: str, version: str = "1.0.0", *extra) -> Release:
    call_command("publish_release", "--campaign", "t2i-held,omni-t2t", "--name", name, "--version", version, *extra,
                 stdout=StringIO())
    return Release.objects.get(name=name, version=version)


@pytest.fixture
def split_release(campaigns):
    return publish("heldout-bench", "1.0.0", "--private-split", "0.25", "--private-seed", "7")


@pytest.fixture
def curator():
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    return client


def release_folder(release: Release) -> Path:
    return Path(release.location.removeprefix("file:"))


def private_ids(release: Release) -> set[str]:
    return set(HeldoutPair.objects.filter(release=release).values_list("item_id", flat=True))


def id_pattern(ids) -> re.Pattern:
    """Any of the ids as a whole token: t2t-1 is not found inside t2t-10."""
    return re.compile(r"(?<![A-Za-z0-9_-])(" + "|".join(map(re.escape, sorted(ids))) + r")(?![A-Za-z0-9_])")


def records(value):
    """Every object nested in a JSON value."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from records(item)
    elif isinstance(value, list):
        for item in value:
            yield from records(item)


def readable(path: str, data: bytes) -> tuple[str, list]:
    """A file's text as a reader sees it, and its JSON objects: Parquet decoded (media bytes dropped)."""
    if path.endswith(".parquet"):
        rows = pq.read_table(io.BytesIO(data)).to_pylist()
        rows = json.loads(json.dumps(rows, default=lambda value: None))
        return json.dumps(rows), rows
    text = data.decode("utf-8", errors="replace")
    if path.endswith(".jsonl"):
        return text, [json.loads(line) for line in text.splitlines() if line.strip()]
    if path.endswith(".json"):
        return text, [json.loads(text)]
    return text, []


def assert_no_private_label(files: dict[str, bytes], private: set[str], *, omitted: bool) -> None:
    """No file outside private/ names a private item, no private row carries a label, and with ``omitted`` no byte
    of any file names one."""
    pattern = id_pattern(private)
    seen_private_rows = 0
    for path, data in files.items():
        text, values = readable(path, data)
        in_private_folder = path.startswith(f"{heldout.FOLDER}/")
        if omitted or not in_private_folder:
            assert not pattern.search(text), f"{path} names private item {pattern.search(text).group(0)}"
            continue
        for record in records(values):
            if str(record.get("id")) in private:
                seen_private_rows += 1
                assert not LABEL_KEYS & set(record), f"{path}: private row {record['id']} carries {LABEL_KEYS & set(record)}"
    if not omitted:
        assert seen_private_rows >= len(private), "every private item ships unlabelled under private/"


def folder_files(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def zip_files(release: Release) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(b"".join(release_archive(release=release).chunks))) as whole:
        root = f"{release.name}-{release.version}/"
        return {name[len(root):]: whole.read(name) for name in whole.namelist() if not name.endswith("/")}


def test_the_split_holds_a_share_of_each_task_and_source_and_the_same_seed_draws_it_again(split_release, campaigns):
    """Stratified by (task, prompt source), round(0.25 × n) of each; the seed is in the manifest and draws the same
    items again; another seed draws others."""
    gold = release_private_gold(release=split_release)
    strata = Counter((g.task, g.source) for g in gold)
    t2t_source = HeldoutPair.objects.filter(release=split_release, task="text-to-text").values_list(
        "source", flat=True).first()
    assert strata == {("text-to-image", "oneigbench"): 3, ("text-to-image", "wise"): 2,
                      ("text-to-text", t2t_source): 4}
    assert all(g.chosen == campaigns["labels"][g.id] for g in gold if g.task == "text-to-image")
    manifest = json.loads((release_folder(split_release) / "manifest.json").read_text())
    assert manifest["heldout"] == {**manifest["heldout"], "fraction": 0.25, "seed": 7, "items": 9,
                                   "stratified_by": ["task", "prompt_source"], "private_rows": "unlabelled"}
    assert manifest["counts"]["pairs"] == split_release.pairs_count == 36 - 9
    again = publish("heldout-bench", "1.0.1", "--private-split", "0.25", "--private-seed", "7")
    assert private_ids(again) == private_ids(split_release)
    other = publish("heldout-bench", "1.0.2", "--private-split", "0.25", "--private-seed", "8")
    assert private_ids(other) != private_ids(split_release)
    assert Counter((g.task, g.source) for g in release_private_gold(release=other)) == strata


def test_the_draw_is_a_pure_function_of_pairs_fraction_and_seed():
    candidates = [heldout.Candidate(i, f"p-{i}", "text-to-image" if i % 2 else "interleaved", f"s{i % 3}")
                  for i in range(300)]
    first = heldout.draw(candidates, fraction=0.1, seed=3)
    assert heldout.draw(list(reversed(candidates)), fraction=0.1, seed=3) == first
    assert len(first) == 6 * round(0.1 * 50)
    with pytest.raises(ValueError, match="between 0 and 1"):
        heldout.draw(candidates, fraction=1.0, seed=3)


@pytest.mark.parametrize("rows", ["unlabelled", "omit"])
def test_no_private_label_is_in_any_public_file_archive_or_response(campaigns, curator, rows):
    """Walk every file of the folder and of the zip, and the release API's answers: a private item is named only by
    its unlabelled row under private/ (and nowhere with --private-rows omit)."""
    release = publish("leak-check", "1.0.0", "--private-split", "0.25", "--private-seed", "11", "--private-rows", rows)
    private = private_ids(release)
    assert len(private) == 9
    folder = folder_files(release_folder(release))
    assert_no_private_label(folder, private, omitted=rows == "omit")
    archived = zip_files(release)
    assert set(archived) == set(folder)
    assert_no_private_label(archived, private, omitted=rows == "omit")
    assert any(p.startswith("private/") for p in folder) == (rows == "unlabelled")
    if rows == "unlabelled":
        shipped = {json.loads(line)["id"] for path, data in folder.items() if path.endswith(".jsonl")
                   and path.startswith("private/") for line in data.decode().splitlines()}
        assert shipped == private
        mmrb2 = json.loads(folder["private/mmrb2/t2i.json"])["pairs"]
        for pair in mmrb2:
            image = next(value for kind, value in pair["response_a"]["response_content"] if kind == "image")
            assert (release_folder(release) / "private" / "mmrb2" / image).resolve().is_file()
    else:
        media = {p for p in folder if p.startswith("media/")}
        public_media = {m for data in (folder[p] for p in folder if p.startswith("data/") and p.endswith(".jsonl"))
                        for line in data.decode().splitlines() for m in json.loads(line)["media"]}
        assert media == public_media, "no media of an omitted pair ships"
    ref = {"name": release.name, "version": release.version}
    answers = [curator.get(reverse(route, kwargs=ref)) for route in
               ("api-release-detail", "api-release-leaderboard", "api-release-download", "api-release-heldout",
                "api-release-teams")]
    answers.append(curator.get(reverse("api-release-list")))
    pattern = id_pattern(private)
    for answer in answers:
        assert answer.status_code == 200
        assert not pattern.search(answer.content.decode()), answer.request["PATH_INFO"]
    assert release_gold(release=release) and not {g.id for g in release_gold(release=release)} & private


def mmrb2_predictions(labels: dict[str, str]) -> dict:
    """Right on two pairs of three, wrong on the third, forward and reverse."""
    out = {}
    for i, (pair_id, chosen) in enumerate(sorted(labels.items())):
        side = chosen if i % 3 else {"A": "B", "B": "A"}[chosen]
        out[pair_id] = {"forward": [{"judgement": side}], "reverse": [{"judgement": {"A": "B", "B": "A"}[side]}]}
    return out


def omni_predictions() -> list[dict]:
    return [{"id": row["id"], "predicted": row["criteria_preference"] if i % 4 else "response1"}
            for i, row in enumerate(omni_text_rows())]


def issue(curator, release, team, **extra):
    answer = curator.post(reverse("api-release-teams", kwargs={"name": release.name, "version": release.version}),
                          {"team": team, **extra}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()["token"]


def submit(release, token, predictions, fmt, **extra):
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    upload = io.BytesIO(json.dumps(predictions).encode())
    upload.name = f"{fmt}-predictions.json"
    return client.post(f"/api/v1/releases/{release}/submissions/", {"format": fmt, "predictions": upload, **extra},
                       format="multipart")


def assert_aggregate_only(scores: dict, private: set[str]) -> None:
    assert not id_pattern(private).search(json.dumps(scores))
    assert set(scores) <= {*heldout.PUBLIC_OVERALL, *heldout.PUBLIC_FIGURES, "per_task"}
    for figures in scores["per_task"].values():
        assert set(figures) <= set(heldout.PUBLIC_FIGURES)


FIGURES = ("accuracy", "ci95", "verdicts", "correct", "with_ties", "without_ties", "without_ties_ci95")


def test_two_teams_are_scored_on_the_private_labels_exactly_as_evaluate_judge_scores_them(
        split_release, campaigns, curator, tmp_path):
    """Team A (MMRB2 file) equals evaluate_judge on the same release published without a split, its predictions
    restricted to the private items; team B (Omni labels) equals Omni's scoring of the full labels restricted to
    them. Each sees aggregate figures only, and every submission is audited."""
    full = publish("full-bench")
    private = private_ids(split_release)
    t2i_private = {pid: campaigns["labels"][pid] for pid in private if pid.startswith("t2i-")}
    predictions = mmrb2_predictions(campaigns["labels"])
    token_a = issue(curator, split_release, "team-a")
    out = StringIO()
    call_command("submission_token", "--release", str(split_release), "--team", "team-b", stdout=out, stderr=StringIO())
    token_b = out.getvalue().strip()
    assert token_b.startswith("cst_") and token_a != token_b

    answer = submit(split_release, token_a, predictions, "mmrb2", judge="judge-a")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["team"], body["judge"], body["status"], body["published"]) == ("team-a", "judge-a", "scored", False)
    restricted = tmp_path / "restricted.json"
    restricted.write_text(json.dumps({pid: predictions[pid] for pid in t2i_private}))
    out = StringIO()
    call_command("evaluate_judge", "--release", str(full), "--predictions", str(restricted), "--format", "mmrb2",
                 "--json", stdout=out)
    reference = json.loads(out.getvalue())
    scores = body["scores"]
    assert scores["accuracy"] is not None and 0 < scores["accuracy"] < 1
    for key in FIGURES:
        assert scores.get(key) == reference.get(key), key
    assert scores["per_task"]["text-to-image"]["accuracy"] == reference["per_task"]["text-to-image"]["accuracy"]
    assert scores["per_task"]["text-to-image"]["ci95"] == reference["per_task"]["text-to-image"]["ci95"]
    assert scores["evaluated"] == len(t2i_private)
    assert_aggregate_only(scores, private)

    labels = omni_predictions()
    answer = submit(split_release, token_b, labels, "omnireward")
    assert answer.status_code == 201, answer.content
    scores_b = answer.json()["scores"]
    reference_b = scoring.score_omnireward([g for g in release_gold(release=full) if g.id in private],
                                           scoring.parse_omnireward(labels))
    for key in FIGURES:
        assert scores_b.get(key) == reference_b.get(key), key
    assert scores_b["per_task"]["text-to-text"] == {k: v for k, v in reference_b["per_task"]["text-to-text"].items()
                                                   if k in heldout.PUBLIC_FIGURES}
    assert_aggregate_only(scores_b, private)

    audit = list(Submission.objects.order_by("id").values_list("team__name", "predictions_sha256", "status",
                                                               "published"))
    assert audit == [("team-a", hashlib.sha256(json.dumps(predictions).encode()).hexdigest(), "scored", False),
                     ("team-b", hashlib.sha256(json.dumps(labels).encode()).hexdigest(), "scored", False)]

    submission_b = Submission.objects.get(team__name="team-b")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_a}")
    assert client.post(f"/api/v1/releases/{split_release}/submissions/{submission_b.pk}/publish/").status_code == 404
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_b}")
    published = client.post(f"/api/v1/releases/{split_release}/submissions/{submission_b.pk}/publish/",
                            {"judge": "omni-judge"}, format="json")
    assert published.status_code == 200 and published.json()["published"]
    own = client.get(f"/api/v1/releases/{split_release}/submissions/")
    assert [s["team"] for s in own.json()] == ["team-b"], "a team sees its own submissions only"
    board = curator.get(reverse("api-release-heldout", kwargs={"name": split_release.name,
                                                               "version": split_release.version})).json()
    assert [(r["team"], r["judge"], r["accuracy"]) for r in board["results"]] == [
        ("team-b", "omni-judge", scores_b["accuracy"])]
    page = APIClient()
    page.force_login(CuratorFactory())
    html = page.get(reverse("release-leaderboard", kwargs={"name": split_release.name,
                                                           "version": split_release.version})).content.decode()
    assert 'id="heldout-leaderboard"' in html and 'data-team="team-b"' in html and "omni-judge" in html
    assert 'data-team="team-a"' not in html, "an unpublished result stays off the page"


def test_a_team_is_refused_past_its_daily_limit_with_when_the_next_is_allowed(split_release, campaigns, curator):
    token = issue(curator, split_release, "team-limited", daily_limit=2)
    predictions = mmrb2_predictions(campaigns["labels"])
    bad = submit(split_release, token, {"t2i-000": "A"}, "mmrb2")
    assert bad.status_code == 400 and bad.json()["code"] == "predictions_invalid"
    for _ in range(2):
        assert submit(split_release, token, predictions, "mmrb2").status_code == 201
    refused = submit(split_release, token, predictions, "mmrb2")
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "submission_limit" and body["extra"]["daily_limit"] == 2
    assert 0 < int(refused["Retry-After"]) <= 24 * 3600
    first = Submission.objects.filter(status="scored").order_by("created_at").first()
    assert body["extra"]["next_allowed_at"] == (first.created_at + timedelta(hours=24)).isoformat()
    assert Counter(Submission.objects.values_list("status", flat=True)) == {"scored": 2, "invalid": 1}
    Submission.objects.filter(pk=first.pk).update(created_at=first.created_at - timedelta(hours=25))
    assert submit(split_release, token, predictions, "mmrb2").status_code == 201
    split_release.delete()  # a team with submissions does not stop its release from being deleted
    assert not Submission.objects.exists() and not HeldoutPair.objects.exists()


def test_submissions_need_a_token_of_the_release(split_release, campaigns, curator):
    predictions = mmrb2_predictions(campaigns["labels"])
    missing = submit(split_release, None, predictions, "mmrb2")
    assert missing.status_code == 401 and missing.json()["code"] == "submission_token_missing"
    assert missing["WWW-Authenticate"].startswith("Bearer")
    wrong = submit(split_release, "cst_not-a-token", predictions, "mmrb2")
    assert wrong.status_code == 403 and wrong.json()["code"] == "submission_token_invalid"
    other = publish("other-bench", "1.0.0", "--private-split", "0.5")
    elsewhere = issue(curator, other, "team-a")
    assert submit(split_release, elsewhere, predictions, "mmrb2").status_code == 403
    old = issue(curator, split_release, "team-a")
    assert curator.post(reverse("api-release-teams", kwargs={"name": split_release.name,
                                                             "version": split_release.version}),
                        {"team": "team-a"}, format="json").status_code == 409
    limited = curator.post(reverse("api-release-teams", kwargs={"name": split_release.name,
                                                                "version": split_release.version}),
                           {"team": "team-a", "daily_limit": 3}, format="json")
    assert limited.status_code == 200 and limited.json()["token"] is None and limited.json()["daily_limit"] == 3
    new = issue(curator, split_release, "team-a", rotate=True)
    assert submit(split_release, old, predictions, "mmrb2").status_code == 403
    assert submit(split_release, new, predictions, "mmrb2").status_code == 201
    assert not Submission.objects.exclude(team__name="team-a").exists()
    teams = curator.get(reverse("api-release-teams", kwargs={"name": split_release.name,
                                                             "version": split_release.version}))
    assert "token" not in json.dumps(teams.json()).replace("token_issued_at", "")
    anonymous = APIClient().post(reverse("api-release-teams", kwargs={"name": split_release.name,
                                                                      "version": split_release.version}),
                                 {"team": "sneaky"}, format="json")
    assert anonymous.status_code in (401, 403)


def test_submit_predictions_scores_as_the_token_s_team_and_can_publish(split_release, campaigns, tmp_path,
                                                                        monkeypatch):
    out = StringIO()
    call_command("submission_token", "--release", str(split_release), "--team", "cli-team", "--daily-limit", "1",
                 "--json", stdout=out)
    token = json.loads(out.getvalue())["token"]
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(mmrb2_predictions(campaigns["labels"])))
    args = ["--release", str(split_release), "--predictions", str(path), "--format", "mmrb2"]
    with pytest.raises(CommandError, match="CONCORD_SUBMISSION_TOKEN"):
        call_command("submit_predictions", *args, stdout=StringIO())
    monkeypatch.setenv("CONCORD_SUBMISSION_TOKEN", token)
    out = StringIO()
    call_command("submit_predictions", *args, "--publish", "--judge", "cli-judge", stdout=out)
    assert "text-to-image:" in out.getvalue() and "published" in out.getvalue()
    assert Submission.objects.get().published
    with pytest.raises(CommandError, match="next is allowed at"):
        call_command("submit_predictions", *args, stdout=StringIO())
    with pytest.raises(CommandError, match="already has a token"):
        call_command("submission_token", "--release", str(split_release), "--team", "cli-team", stdout=StringIO())


def test_bad_split_options_are_refused_before_anything_is_built(campaigns):
    with pytest.raises(CommandError, match="between 0 and 1"):
        publish("bad-split", "1.0.0", "--private-split", "1.5")
    with pytest.raises(CommandError, match="go with --private-split"):
        publish("bad-split", "1.0.0", "--private-rows", "omit")
    assert not Release.objects.filter(name="bad-split", status="published").exists()
    plain = publish("no-split")
    with pytest.raises(Exception, match="no private split"):
        call_command("submission_token", "--release", str(plain), "--team", "x", stdout=StringIO())


def test_curators_publish_a_split_through_the_api_and_a_bad_fraction_is_refused(campaigns, curator,
                                                                               django_capture_on_commit_callbacks):
    body = {"name": "api-split", "version": "1.0.0", "campaigns": campaigns["slugs"]}
    refused = curator.post("/api/v1/releases/", {**body, "private_split": 0}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "release_bad_private_split"
    # A seed or rows without a share are refused as the command refuses them, not dropped.
    for alone in ({"private_seed": 7}, {"private_rows": "omit"}):
        refused = curator.post("/api/v1/releases/", {**body, **alone}, format="json")
        assert refused.status_code == 400, refused.content
        assert refused.json()["code"] == "release_bad_private_split", refused.json()
        assert "go with a share held out" in refused.json()["message"]
    assert not Release.objects.filter(name="api-split").exists()
    with django_capture_on_commit_callbacks(execute=True):
        answer = curator.post("/api/v1/releases/", {**body, "private_split": 0.5, "private_rows": "omit"},
                              format="json")
    assert answer.status_code == 202
    job = curator.get(f"/api/v1/jobs/{answer.json()['job']}/").json()
    assert job["status"] == "succeeded" and job["result"]["heldout"]["private_rows"] == "omit"
    release = Release.objects.get(name="api-split")
    assert release.summary["heldout"]["items"] == HeldoutPair.objects.filter(release=release).count() == 18
    assert release.pairs_count == 18


def test_a_reward_models_scores_are_scored_with_tie_calibration_on_the_private_labels(split_release, campaigns,
                                                                                       curator):
    """A team sends one score per response (`--format scores`): the held-out answer carries the tie-calibrated
    accuracy and its threshold, equal to ``score_scores`` on the private items, and nothing else of theirs."""
    private = private_ids(split_release)
    scores = {pid: {"score_a": 1.0 if chosen == "A" else 0.0, "score_b": 1.0 if chosen == "B" else 0.0}
              for pid, chosen in campaigns["labels"].items()}
    answer = submit(split_release, issue(curator, split_release, "team-rm"), scores, "scores", judge="rm-1")
    assert answer.status_code == 201, answer.content
    body = answer.json()["scores"]
    reference = scoring.score_scores(release_private_gold(release=split_release), scoring.parse_scores(scores))
    for key in ("accuracy", "tie_calibrated_accuracy", "tie_calibrated_ci95", "tie_epsilon", "format"):
        assert body[key] == reference[key], key
    assert body["format"] == "scores" and body["tie_calibrated_accuracy"] is not None
    assert_aggregate_only(body, private)
