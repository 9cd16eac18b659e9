"""A build whose worker died: marked failed with a retry hint once its lock is gone, then retried to completion."""

import json
import shutil

import psycopg
import pytest
from django.db import connection

from annotation.jobs.models import Job
from core.errors import ApplicationError
from curation.models import Release
from curation.services.releases import LOCK_CLASS, release_publish, release_reap_stalled, release_request

pytestmark = pytest.mark.django_db


def other_connection():
    settings = connection.settings_dict
    return psycopg.connect(host=settings["HOST"] or "127.0.0.1", port=settings["PORT"] or 5432, user=settings["USER"],
                           dbname=settings["NAME"], autocommit=True)


def started_build(name="fox-bench", version="1.0.0") -> Release:
    release = release_request(name=name, version=version, campaign_slugs=["t2i-wave"])
    Job.objects.filter(pk=release.job_id).update(status=Job.Status.RUNNING)
    return release


def test_a_build_whose_worker_died_is_marked_failed_and_a_retry_completes_it(release_data, releases_root, postgres_only):
    release = started_build()
    assert release_reap_stalled() == 1
    release.refresh_from_db()
    assert release.status == Release.Status.FAILED and "worker lost" in release.error
    assert release.job.status == Job.Status.FAILED
    retried = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave"])
    assert (retried.pk, retried.status) == (release.pk, Release.Status.PUBLISHED)
    assert (releases_root / "fox-bench" / "1.0.0" / "manifest.json").is_file()


def test_a_build_in_progress_elsewhere_is_neither_reaped_nor_started_twice(release_data, releases_root, postgres_only):
    release = started_build()
    with other_connection() as worker:
        worker.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_CLASS, release.pk])
        assert release_reap_stalled() == 0
        with pytest.raises(ApplicationError, match="is being built right now"):
            release_request(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave"])
    release.refresh_from_db()
    assert release.status == Release.Status.BUILDING


def test_a_retry_must_name_the_campaigns_of_the_first_attempt(release_data, releases_root, postgres_only):
    started_build()
    release_reap_stalled()
    with pytest.raises(ApplicationError, match="a retry must name the same campaigns"):
        release_request(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave", "reasoning-wave"])


@pytest.mark.parametrize("damage", ["deleted", "corrupt"])
def test_a_new_version_whose_predecessor_cannot_be_read_publishes_with_a_changelog_that_says_so(
    release_data, releases_root, damage
):
    release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave"])
    old = releases_root / "fox-bench" / "1.0.0"
    if damage == "deleted":
        shutil.rmtree(old)
    else:
        for parquet in old.rglob("*.parquet"):
            parquet.write_bytes(b"not parquet")
    release = release_publish(name="fox-bench", version="1.1.0", campaign_slugs=["t2i-wave"])
    assert release.status == Release.Status.PUBLISHED
    log = (releases_root / "fox-bench" / "1.1.0" / "CHANGELOG.md").read_text()
    cause = "FileNotFoundError" if damage == "deleted" else "ArrowInvalid"
    assert f"The previous version, fox-bench@1.0.0, could not be read ({cause}: " in log
    assert "are not known; 3 pairs in all." in log
    manifest = json.loads((releases_root / "fox-bench" / "1.1.0" / "manifest.json").read_text())
    assert manifest["changelog"]["previous"] == "fox-bench@1.0.0"
    assert manifest["changelog"]["previous_unreadable"].startswith(cause)
    card = (releases_root / "fox-bench" / "1.1.0" / "README.md").read_text()
    assert "Changes since fox-bench@1.0.0 are not known: its files could not be read" in card


def test_a_failed_version_is_retried_with_other_campaigns_after_an_explicit_discard(
    release_data, releases_root, postgres_only, client
):
    """Issue 36: a failed NAME@VERSION could be retried only with its first campaigns, so it could never be
    published from others. A discard deletes what the attempt stored and opens the version again."""
    from django.core.management import call_command
    from django.urls import reverse

    from tests.factories import CuratorFactory

    started_build()
    release_reap_stalled()
    stray = releases_root / "fox-bench" / "1.0.0" / "data" / "left-by-the-failed-attempt.parquet"
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"partial")
    client.force_login(CuratorFactory())
    discarded = client.post(reverse("api-release-discard", args=["fox-bench", "1.0.0"]))
    assert discarded.status_code == 200, discarded.content
    assert not stray.exists()
    release = Release.objects.get(name="fox-bench", version="1.0.0")
    assert release.params["discarded"][0]["campaigns"] == ["t2i-wave"]
    assert release.params["discarded"][0]["files_deleted"] == 1
    published = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave", "reasoning-wave"])
    assert (published.pk, published.status) == (release.pk, Release.Status.PUBLISHED)
    assert sorted(published.campaigns.values_list("slug", flat=True)) == ["reasoning-wave", "t2i-wave"]
    manifest = json.loads((releases_root / "fox-bench" / "1.0.0" / "manifest.json").read_text())
    assert "discarded" not in json.dumps(manifest)
    refused = client.post(reverse("api-release-discard", args=["fox-bench", "1.0.0"]))
    assert (refused.status_code, refused.json()["code"]) == (409, "release_immutable")
    with pytest.raises(Exception, match="immutable"):
        call_command("publish_release", "--discard", "--name", "fox-bench", "--version", "1.0.0")


def test_duplicate_pair_ids_across_campaigns_are_refused_before_anything_is_built(release_data, releases_root):
    """Issue 36: duplicates were found only at step 2,000 of 4,005 of the build; now the request refuses them,
    naming the ids and their campaigns, and no release row or job is left."""
    from annotation.catalogue.services.campaigns import rating_schema_for_preset
    from tests.curation.releases.conftest import image_pair, kept
    from tests.factories import CampaignFactory

    red, green, _ = release_data["media"]
    second = CampaignFactory(slug="t2i-second", kind="text-to-image",
                             rating_schema=rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image"))
    for external_id in ("t2i-1", "t2i-3"):
        kept(image_pair(second, external_id, red, green), "A")
    with pytest.raises(ApplicationError) as refused:
        release_request(name="dupes", version="1.0.0", campaign_slugs=["t2i-wave", "t2i-second"])
    assert refused.value.code == "release_duplicate_pair"
    assert "2 pair id(s)" in refused.value.message
    assert "'t2i-1' in t2i-second, t2i-wave" in refused.value.message
    assert not Release.objects.filter(name="dupes").exists()
    assert not Job.objects.filter(kind="release").exists()
