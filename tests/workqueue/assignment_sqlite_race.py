"""Run as a program: annotators in separate processes race to claim and submit on one SQLite file.

``python -m tests.workqueue.assignment_sqlite_race DB_PATH PROCESSES`` prints a JSON summary. The
settings are the embedded default's (``config.settings.local`` with ``DATABASE_URL`` pointing at
the file), so claims are serialized by SQLite's write lock taken at ``BEGIN IMMEDIATE``.
"""

import json
import multiprocessing
import os
import sys


def _setup(db_path: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["DATABASE_URL"] = f"sqlite:///{db_path}"
    import django

    django.setup()


def _annotate(db_path: str, username: str, slug: str, barrier) -> list[int]:
    _setup(db_path)
    from annotation.accounts.models import User
    from annotation.catalogue.models import Campaign
    from annotation.workqueue.services.assignments import annotation_submit, assignment_claim

    rater = User.objects.get(username=username)
    campaign = Campaign.objects.get(slug=slug)
    barrier.wait()
    seen = []
    while (assignment := assignment_claim(campaign=campaign, annotator=rater)) is not None:
        seen.append(assignment.pair_id)
        annotation_submit(
            assignment=assignment, annotator=rater, values={"preference": "B"}, time_on_item_ms=10,
            idempotency_key=f"{assignment.pk}",
        )
    return seen


def main(db_path: str, processes: int) -> dict:
    _setup(db_path)
    from django.core.management import call_command
    from django.db import connections
    from django.db.models import Count

    from annotation.accounts.models import User
    from annotation.catalogue import schemas
    from annotation.catalogue.models import Campaign, Pair, Prompt, RatingSchema, Response
    from annotation.workqueue.models import Annotation

    call_command("migrate", verbosity=0)
    schema = RatingSchema.objects.create(slug="ab", definition=schemas.preset("ab-tie", "text-to-text"))
    campaign = Campaign.objects.create(slug="race", name="Race", kind="text-to-text", rating_schema=schema, overlap=3)
    for i in range(10):
        prompt = Prompt.objects.create(campaign=campaign, external_id=f"p{i}")
        a, b = (
            Response.objects.create(prompt=prompt, model_name=m, content=[], content_sha256=f"{m}{i}") for m in "xy"
        )
        Pair.objects.create(campaign=campaign, prompt=prompt, response_a=a, response_b=b, external_id=f"p{i}",
                            required_annotations=3)
    names = [f"rater{i}" for i in range(processes)]
    campaign.members.add(*(User.objects.create(username=name) for name in names))
    connections.close_all()

    context = multiprocessing.get_context("fork")
    barrier = context.Manager().Barrier(processes)
    with context.Pool(processes) as pool:
        seen = pool.starmap(_annotate, [(db_path, name, "race", barrier) for name in names])
    per_pair = dict(Annotation.objects.values("pair_id").annotate(n=Count("pk")).values_list("pair_id", "n"))
    return {
        "claims_per_rater": [len(s) for s in seen],
        "repeats": sum(len(s) - len(set(s)) for s in seen),
        "annotations_per_pair": sorted(per_pair.values()),
        "counters": sorted(Pair.objects.values_list("annotations_done", "active_claims", "status")),
        "transaction_mode": connections["default"].settings_dict["OPTIONS"].get("transaction_mode"),
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]))))
