"""Give the ratings imported from MMRB2 and Omni-RewardBench files a per-pair anonymous rater.

Those files name no rater: MMRB2's three ratings per pair are anonymous per pair, Omni's one rating
is a dataset label. They were imported as ``mmrb2-rater-1..3`` and ``omni-reward-annotator``, the same
labels on every pair, which per-rater statistics, Dawid–Skene and release pseudonyms read as three (or
one) people. Each becomes ``catalogue.importers.records.anonymous_rater_label`` of its pair, as a new
import now writes it. The reverse step is a no-op: the old labels claimed an identity nobody had.
"""

import hashlib
import re

from django.db import migrations

PREFIX = "anonymous:"
OLD_LABEL = re.compile(r"^(?:mmrb2-rater-(\d+)|omni-reward-annotator)$")
BATCH = 5_000


def anonymous_label(pair_key: str, slot: int) -> str:
    # frozen copy of catalogue.importers.records.anonymous_rater_label, as migrations must not follow the code
    return f"{PREFIX}{hashlib.sha256(pair_key.encode()).hexdigest()[:16]}:{slot}"


def relabel(apps, schema_editor):
    Annotation = apps.get_model("annotation", "Annotation")
    imported = (
        Annotation.objects.filter(source="imported", annotator__isnull=True)
        .filter(rater_label__regex=r"^(mmrb2-rater-[0-9]+|omni-reward-annotator)$")
        .values_list("id", "rater_label", "pair__external_id")
        .order_by("id")
    )
    changed = []
    for pk, label, pair_key in list(imported):  # read first: SQLite cannot update a table mid-read
        slot = OLD_LABEL.match(label).group(1)
        changed.append(Annotation(pk=pk, rater_label=anonymous_label(pair_key, int(slot) if slot else 1)))
        if len(changed) >= BATCH:
            Annotation.objects.bulk_update(changed, ["rater_label"])
            changed = []
    Annotation.objects.bulk_update(changed, ["rater_label"])


class Migration(migrations.Migration):
    dependencies = [("annotation", "0008_assignment_bounded_lookups")]

    operations = [migrations.RunPython(relabel, migrations.RunPython.noop)]
