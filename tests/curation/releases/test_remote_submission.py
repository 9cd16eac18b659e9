"""submit_predictions --remote: a team scores its judge on another Concord server's private split over HTTP, with
its token only, and sees the server's own refusals (wrong token, past the daily limit) as they are."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from curation.models import Submission
from curation.services.heldout import submission_team_issue
from tests.curation.releases import test_private_split as split_tests
from tests.curation.releases.test_private_split import assert_aggregate_only, mmrb2_predictions, private_ids

pytestmark = pytest.mark.django_db(transaction=True)

campaigns, split_release = split_tests.campaigns, split_tests.split_release


def submit(*args: str) -> dict:
    out = StringIO()
    call_command("submit_predictions", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def predictions(campaigns, tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(mmrb2_predictions(campaigns["labels"])))
    return path


def test_a_remote_submission_is_scored_by_the_server_as_a_local_one_and_published(
        split_release, predictions, live_server, client):
    _, here = submission_team_issue(release=split_release, name="team-here")
    _, away = submission_team_issue(release=split_release, name="team-away")
    common = ["--release", str(split_release), "--predictions", str(predictions), "--format", "mmrb2"]
    local = submit(*common, "--token", here)
    remote = submit(*common, "--token", away, "--remote", f"{live_server.url}/", "--judge", "remote-judge",
                    "--publish")
    assert (remote["team"], remote["judge"], remote["status"], remote["published"]) == (
        "team-away", "remote-judge", "scored", True)
    assert remote["scores"] == local["scores"] and remote["scores"]["evaluated"] > 0
    assert_aggregate_only(remote["scores"], private_ids(split_release))
    row = Submission.objects.get(team__name="team-away")
    assert (row.published, row.file_name, row.format) == (True, "predictions.json", "mmrb2")
    page = client.get(f"/releases/{split_release.name}/{split_release.version}/heldout/").content.decode()
    assert 'data-judge="remote-judge"' in page

    out = StringIO()
    call_command("submit_predictions", *common, "--token", away, "--remote", live_server.url, stdout=out)
    assert out.getvalue().startswith("submission ") and "of team 'team-away'" in out.getvalue()
    assert "text-to-image:" in out.getvalue()


def test_the_servers_refusals_come_back_as_it_gave_them(split_release, predictions, live_server, monkeypatch):
    _, token = submission_team_issue(release=split_release, name="team-once", daily_limit=1)
    common = ["--release", str(split_release), "--predictions", str(predictions), "--format", "mmrb2", "--remote",
              live_server.url]
    monkeypatch.delenv("CONCORD_SUBMISSION_TOKEN", raising=False)
    with pytest.raises(CommandError, match="--token or \\$CONCORD_SUBMISSION_TOKEN"):
        submit(*common)
    with pytest.raises(CommandError, match="answered 403: this token is not a submission token of"):
        submit(*common, "--token", "cst_not-a-token")
    monkeypatch.setenv("CONCORD_SUBMISSION_TOKEN", token)
    assert submit(*common)["status"] == "scored"
    with pytest.raises(CommandError, match=r"answered 429: .*next is allowed at .*\(retry after \d+ s\)"):
        submit(*common)
    with pytest.raises(CommandError, match="answered 404: no release nobody@1.0.0"):
        submit(*common[:-4], "--format", "mmrb2", "--remote", live_server.url, "--release", "nobody@1.0.0",
               "--predictions", str(predictions))
    assert Submission.objects.filter(team__name="team-once").count() == 1
