from django.db import migrations, models

POOLED = "pooled_criteria"
BATCH = 5_000


def mark_pooled_decisions(apps, schema_editor):
    """Kept decisions of criteria pairs made before per-criterion consensus pooled every criterion's labels into
    one vote: mark them stale so no release publishes them, and the next consensus run decides each criterion.

    A pair that names exactly one criterion is left current: for it the pooled vote is that criterion's vote.
    A curator's decision stays current too: it holds for every criterion of the pair.
    """
    RatingSchema = apps.get_model("catalogue", "RatingSchema")
    ConsensusRecord = apps.get_model("curation", "ConsensusRecord")
    schemas = [schema.pk for schema in RatingSchema.objects.only("definition")
               if any(isinstance(q, dict) and q.get("type") == "criteria"
                      for q in (schema.definition or {}).get("questions", []))]
    records = (ConsensusRecord.objects.filter(pair__campaign__rating_schema_id__in=schemas, decision="kept",
                                              stale_reason="")
               .exclude(policy="adjudication").values_list("pk", "pair__criteria"))
    pooled = [pk for pk, criteria in records.iterator() if not (isinstance(criteria, list) and len(criteria) == 1)]
    for start in range(0, len(pooled), BATCH):
        ConsensusRecord.objects.filter(pk__in=pooled[start:start + BATCH]).update(stale_reason=POOLED)


class Migration(migrations.Migration):

    dependencies = [
        ("catalogue", "0001_initial"),
        ("curation", "0005_follow_split_apps"),
    ]

    operations = [
        migrations.AddField(
            model_name="consensusrecord",
            name="criteria",
            field=models.JSONField(blank=True, default=list, help_text="Criteria questions: each criterion's own decision, chosen side and reason, in the pair's order (empty for other questions, and for a curator's decision, which holds for every criterion)."),
        ),
        migrations.RunPython(mark_pooled_decisions, migrations.RunPython.noop),
    ]
