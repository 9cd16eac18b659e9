"""Audio is embedded as a datasets Audio feature; video and 3D stay files named by relative-path columns."""

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.catalogue.services.media import media_store
from annotation.workqueue.models import Annotation
from curation.services.releases import release_publish
from tests.catalogue.import_helpers import mp4_bytes, wav_bytes
from tests.curation.releases.conftest import kept
from tests.factories import CampaignFactory, PairFactory, PromptFactory, ResponseFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_audio_prompts_are_embedded_and_videos_are_release_paths(releases_root):
    sound, clip_a, clip_b = media_store(data=wav_bytes(1)), media_store(data=mp4_bytes(1)), media_store(data=mp4_bytes(2))
    campaign = CampaignFactory(slug="av", kind="text-to-video",
                               rating_schema=rating_schema_for_preset(preset="ab-tie", kind="text-to-video"))
    prompt = PromptFactory(campaign=campaign, external_id="p-av", source="omni-rewardbench",
                           content=[{"type": "text", "text": "Film this tune:", "format": "plain"},
                                    {"type": "audio", "media": sound.sha256, "alt": ""}])
    pair = PairFactory(campaign=campaign, prompt=prompt, external_id="av-1", status="complete",
                       response_a=ResponseFactory(prompt=prompt, model_name="veo",
                                                  content=[{"type": "video", "media": clip_a.sha256, "alt": ""}]),
                       response_b=ResponseFactory(prompt=prompt, model_name="sora",
                                                  content=[{"type": "video", "media": clip_b.sha256, "alt": ""}]))
    Annotation.objects.create(pair=pair, annotator=UserFactory(), values={"preference": "A"},
                              media_played={"A": 1.0, "B": 0.75})
    kept(pair, "A", {"policy": "majority", "params": {}})
    release_publish(name="av-bench", version="1.0.0", campaign_slugs=["av"])
    folder = releases_root / "av-bench" / "1.0.0"
    row = pq.read_table(folder / "data" / "text-to-video" / "test-00000-of-00001.parquet").to_pylist()[0]
    assert row["chosen"] == "A"
    assert row["ratings"][0]["media_played"] == '{"A":1.0,"B":0.75}'  # the share each video was watched
    assert row["prompt_text"] == "Film this tune:\n<audio_0>"
    assert row["prompt_audio"] == [{"bytes": Path(sound.file.path).read_bytes(), "path": f"{sound.sha256}.wav"}]
    assert (row["response_a_text"], row["response_a_images"], row["response_a_audio"]) == ("<video_0>", [], [])
    assert row["response_a_files"] == [f"media/{clip_a.sha256}.mp4"]
    assert (folder / row["response_b_files"][0]).read_bytes() == Path(clip_b.file.path).read_bytes()
    schema = pq.read_schema(folder / "data" / "text-to-video" / "test-00000-of-00001.parquet")
    assert b'"prompt_audio": {"feature": {"_type": "Audio"}' in schema.metadata[b"huggingface"]
    assert not (folder / "mmrb2").exists(), "MMRB2's files exist only for MMRB2's four tasks"


def test_embedded_media_are_read_once_while_they_fit_the_cache_and_checked_against_their_address(tmp_path):
    from curation.releases.builder import MediaReader, MediaRef
    from curation.releases.writers import MediaUnreadable

    first, second = media_store(data=wav_bytes(7)), media_store(data=wav_bytes(8))
    refs = [MediaRef(path="", sha256=m.sha256, size=m.size, storage_name=m.file.name, mime_type=m.mime_type)
            for m in (first, second)]
    reader = MediaReader(limit=16 * first.size)
    original = reader.read(refs[0])
    saved = Path(first.file.path).read_bytes()
    Path(first.file.path).unlink()
    try:
        assert reader.read(refs[0]) == original, "the second read comes from the cache"
        small = MediaReader(limit=16 * first.size - 1)
        with pytest.raises(MediaUnreadable, match=f"media {first.sha256} cannot be read from the media store"):
            small.read(refs[0])
    finally:
        Path(first.file.path).write_bytes(saved)
    kept_bytes = Path(second.file.path).read_bytes()
    Path(second.file.path).write_bytes(b"X" * second.size)
    try:
        with pytest.raises(MediaUnreadable, match=f"media {second.sha256} in the media store no longer matches its sha256"):
            MediaReader().read(refs[1])
    finally:
        Path(second.file.path).write_bytes(kept_bytes)


def test_editing_and_interleaved_pairs_load_with_their_images_in_reading_order(releases_root):
    from datasets import load_dataset

    from tests.curation.releases.conftest import png

    red, green, blue, white = (media_store(data=png(c)) for c in ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)))
    rater = UserFactory()
    for kind, slug in (("image-editing", "edit-wave"), ("interleaved", "story-wave")):
        campaign = CampaignFactory(slug=slug, kind=kind,
                                   rating_schema=rating_schema_for_preset(preset="mmrb2-generation", kind=kind))
        prompt = PromptFactory(campaign=campaign, external_id=f"p-{slug}", source="emu_edit",
                               content=[{"type": "image", "media": red.sha256, "alt": ""},
                                        {"type": "image", "media": green.sha256, "alt": ""},
                                        {"type": "text", "text": "Swap the colours.", "format": "plain"}])
        story = [{"type": "text", "text": "Once,", "format": "markdown"}, {"type": "image", "media": blue.sha256, "alt": ""},
                 {"type": "text", "text": "then", "format": "markdown"}, {"type": "image", "media": white.sha256, "alt": ""}]
        pair = PairFactory(campaign=campaign, prompt=prompt, external_id=f"{slug}-1", status="complete",
                           response_a=ResponseFactory(prompt=prompt, model_name="m1", content=story),
                           response_b=ResponseFactory(prompt=prompt, model_name="m2",
                                                      content=[{"type": "image", "media": red.sha256, "alt": ""}]))
        Annotation.objects.create(pair=pair, annotator=rater, values={"overall": 6, "rationale": "x", "prompt_valid": True})
        kept(pair, "A", {"policy": "mmrb2-generation", "params": {}})
    release_publish(name="kinds", version="1.0.0", campaign_slugs=["edit-wave", "story-wave"])
    folder = releases_root / "kinds" / "1.0.0"
    assert sorted(p.name for p in (folder / "mmrb2").iterdir()) == ["edit.json", "interleaved.json"]
    for config in ("image-editing", "interleaved"):
        row = load_dataset(str(folder), config, split="test")[0]
        assert row["prompt_text"] == "<image_0>\n<image_1>\nSwap the colours."
        assert [i.convert("RGB").getpixel((0, 0)) for i in row["prompt_images"]] == [(255, 0, 0), (0, 255, 0)]
        assert row["response_a_text"] == "Once,\n<image_0>\nthen\n<image_1>"
        assert [i.convert("RGB").getpixel((0, 0)) for i in row["response_a_images"]] == [(0, 0, 255), (255, 255, 255)]
        assert (row["task"], row["chosen"], row["ratings"][0]["side"]) == (config, "A", "A")
