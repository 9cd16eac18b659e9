"""No silent merge: rows sharing a prompt key but not its content are refused, or kept apart when asked."""

import json

import pytest
from django.core.management import CommandError

from annotation.catalogue.models import Pair, Prompt
from tests.catalogue.import_helpers import concord_pair, png_bytes, run_import_json, write_jsonl

pytestmark = pytest.mark.django_db

CONCORD = ("--campaign", "keys", "--format", "concord", "--task", "text-to-image", "--schema", "mmrb2-generation")


def retitled(record: dict, text: str) -> dict:
    """``record`` with its prompt's text replaced, the prompt key unchanged."""
    return {**record, "prompt": {**record["prompt"], "content": [{"type": "text", "text": text}]}}


def test_a_second_row_with_the_same_prompt_key_and_other_text_is_refused_with_its_line_and_the_first_stays(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0), retitled(concord_pair(1), "Draw something else")])
    code, summary = run_import_json(path, *CONCORD)
    assert (code, summary["created"], summary["errors"]) == (2, 1, [{
        "line": 2,
        "message": "prompt 'prompt-0' was imported with different content at line 1; its pairs would show that "
                   "prompt instead (import with --prompt-key content to keep both)",
    }])
    assert list(Prompt.objects.values_list("external_id", "content")) == [
        ("prompt-0", [{"type": "text", "text": "Draw thing 0", "format": "markdown"}])]
    assert list(Pair.objects.values_list("external_id", flat=True)) == ["pair-0"]


def test_a_row_whose_prompt_differs_from_one_stored_by_an_earlier_import_is_refused(tmp_path):
    run_import_json(write_jsonl(tmp_path / "first.jsonl", [concord_pair(0)]), *CONCORD)
    later = write_jsonl(tmp_path / "later.jsonl", [retitled(concord_pair(1), "Draw something else")])
    code, summary = run_import_json(later, *CONCORD)
    assert code == 1 and summary["created"] == 0
    assert summary["errors"][0]["message"].startswith(
        "prompt 'prompt-0' was imported with different content by an earlier import;")
    assert Prompt.objects.get().content[0]["text"] == "Draw thing 0"


def test_strict_imports_nothing_when_two_rows_share_a_prompt_key_but_not_its_content(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0), retitled(concord_pair(1), "Draw something else")])
    code, summary = run_import_json(path, *CONCORD, "--strict")
    assert code == 1 and summary["errors"][0]["line"] == 2
    assert not Pair.objects.exists() and not Prompt.objects.exists()


def test_keyed_by_content_both_rows_import_as_two_prompts_and_a_reimport_creates_nothing(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [
        concord_pair(0), retitled(concord_pair(1), "Draw something else"), concord_pair(2), concord_pair(3)])
    code, summary = run_import_json(path, *CONCORD, "--prompt-key", "content")
    assert (code, summary["created"], summary["errors"]) == (0, 4, [])
    first, second = (Pair.objects.get(external_id=f"pair-{i}").prompt for i in (0, 1))
    assert first.pk != second.pk and second.content[0]["text"] == "Draw something else"
    assert first.external_id.startswith("prompt-0#content-") and second.external_id.startswith("prompt-0#content-")
    assert Pair.objects.get(external_id="pair-3").prompt_id == Pair.objects.get(external_id="pair-2").prompt_id
    assert Prompt.objects.count() == 3
    code, again = run_import_json(path, *CONCORD, "--prompt-key", "content")
    assert (code, again["created"], again["duplicates"]) == (0, 0, 4) and Prompt.objects.count() == 3


def test_an_unknown_prompt_key_is_refused_by_the_command(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    with pytest.raises(CommandError, match=r"--prompt-key: invalid choice: 'title' \(choose from 'id', 'content'\)"):
        run_import_json(path, *CONCORD, "--prompt-key", "title")
    assert not Prompt.objects.exists()


def mmrb2_pair(pair_id: str, text: str, image: str) -> dict:
    return {"id": pair_id, "prompt_source": "oneigbench", "prompt_metadata": {"id": "124", "category": "Text_Rendering"},
            "prompt_content": [["text", text], ["image", image]], "chosen": "A",
            "response_a": {"model_name": "m1", "response_content": [["text", f"{pair_id} one"]]},
            "response_b": {"model_name": "m2", "response_content": [["text", f"{pair_id} two"]]}}


def test_mmrb2_rows_on_one_source_prompt_with_other_prompt_images_are_refused_by_the_prompt_key(tmp_path):
    for i in range(2):
        (tmp_path / f"in_{i}.png").write_bytes(png_bytes(i))
    path = tmp_path / "built.json"
    path.write_text(json.dumps({"pairs": [mmrb2_pair("p1", "Write EXIT", "in_0.png"),
                                          mmrb2_pair("p2", "Write EXIT", "in_0.png"),
                                          mmrb2_pair("p3", "Write EXIT", "in_1.png")]}, indent=1))
    code, summary = run_import_json(path, "--campaign", "built", "--format", "mmrb2", "--task", "image-editing")
    assert (code, summary["created"]) == (2, 2)
    [error] = summary["errors"]
    assert error["message"].startswith(
        "prompt 'oneigbench/category=Text_Rendering/id=124' was imported with different content at line 3;")
    assert path.read_text().splitlines()[error["line"] - 1].strip() == "{"
    code, summary = run_import_json(path, "--campaign", "built", "--format", "mmrb2", "--prompt-key", "content")
    assert (code, summary["created"], summary["duplicates"]) == (0, 1, 2)
    assert Pair.objects.get(external_id="p3").prompt.content[1]["media"] != Pair.objects.get(
        external_id="p1").prompt.content[1]["media"]
    assert Prompt.objects.count() == 2, "p1 and p2 share the first run's prompt; p3 got its own"


def test_response_lines_on_a_stored_prompt_with_an_image_import_again_as_duplicates(tmp_path):
    (tmp_path / "in.png").write_bytes(png_bytes(3))
    prompt = {"id": "p1", "content": [{"type": "text", "text": "Describe"}, {"type": "image", "file": "in.png"}]}
    path = write_jsonl(tmp_path / "responses.jsonl", [
        {"prompt": prompt, "response": {"model": f"m{i}", "content": [{"type": "text", "text": f"answer {i}"}]}}
        for i in range(2)])
    assert run_import_json(path, *CONCORD)[1]["created"] == 2
    code, again = run_import_json(path, *CONCORD)
    assert (code, again["created"], again["duplicates"], again["errors"]) == (0, 0, 2, [])
