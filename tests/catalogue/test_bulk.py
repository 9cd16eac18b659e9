"""Bulk inserts (COPY on PostgreSQL, the ORM elsewhere) store every value exactly as given."""

import pytest
from django.db import connection
from django.utils import timezone

from annotation.catalogue.models import Media, Prompt
from annotation.catalogue.services import bulk
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

AWKWARD = ["tab\there", "new\nline", "carriage\rreturn", "back\\slash \\N not null", "", "ünïcödé 中文 🙂",
           'quote " and \\" escaped', "\\.", "end\\"]


@pytest.mark.parametrize("use_copy", [True, False])
def test_text_and_json_with_every_special_character_survive(use_copy, monkeypatch):
    monkeypatch.setattr(bulk, "USE_COPY", use_copy)
    campaign = CampaignFactory()
    now = timezone.now()
    rows = [(campaign.pk, f"p-{i}", text, "", [{"type": "text", "text": text, "format": "plain"}],
             {"note": text, "big": 2**70, "none": None, "flag": True, "x": 1.5}, now) for i, text in enumerate(AWKWARD)]
    rows.append((campaign.pk, "p-json-ahead", "s", "t", bulk.Json.of([{"type": "text", "text": "a\tb\\c\n"}]),
                 bulk.Json.of({"k": "v\\"}), now))
    ids = bulk.insert_returning_ids(
        Prompt, ["campaign_id", "external_id", "source", "source_task", "content", "metadata", "created_at"], rows)
    stored = {p.id: p for p in Prompt.objects.filter(id__in=ids)}
    for pk, (_, external_id, source, _, content, metadata, created_at) in zip(ids, rows, strict=True):
        prompt = stored[pk]
        assert (prompt.external_id, prompt.source) == (external_id, source)
        # COPY (PostgreSQL only) stores the given time; the ORM, used elsewhere, stamps auto_now_add fields itself.
        assert prompt.created_at == created_at or not (use_copy and connection.vendor == "postgresql")
        expected_content = content if not isinstance(content, bulk.Json) else [{"type": "text", "text": "a\tb\\c\n"}]
        expected_metadata = metadata if not isinstance(metadata, bulk.Json) else {"k": "v\\"}
        assert (prompt.content, prompt.metadata) == (expected_content, expected_metadata)


def test_conflicting_rows_are_skipped_and_the_rest_inserted():
    columns = ["sha256", "kind", "mime_type", "size", "width", "height", "file"]
    first = ("a" * 64, "image", "image/png", 10, 2, 3, "media/aa/a.png")
    bulk.insert_ignoring_conflicts(Media, columns, [first])
    bulk.insert_ignoring_conflicts(Media, columns, [first, ("b" * 64, "audio", "audio/wav", 20, None, None, "media/bb/b.wav")])
    assert sorted(Media.objects.values_list("sha256", "width", "file")) == [
        ("a" * 64, 2, "media/aa/a.png"), ("b" * 64, None, "media/bb/b.wav")]
    assert Media.objects.get(sha256="b" * 64).created_at is not None
