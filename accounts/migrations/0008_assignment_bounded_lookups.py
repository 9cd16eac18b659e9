"""Drop the plain indexes on assignment.annotator_id and .campaign_id; index an annotator's finished work instead.

Each was a second way into the claim's lookups that reads without bound: "had this annotator this pair"
through annotator_id reads every assignment the annotator ever had, "any lease due in the campaign" through
campaign_id every assignment of the campaign. PostgreSQL chose it when the two ways looked alike (a small
table without statistics yet) and kept that plan for the connection's prepared statement: seen in the load
bench as one worker's claims taking 20–56 ms, growing with the annotator's history. The
lookups that remain each have one bounded index: (pair_id, annotator_id), the active-lease indexes, and the
new one below for an annotator's statistics. As in 0005, only the indexes change (AlterField would drop and
re-validate the foreign keys).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

INDEXES = [
    ("annotation_assignment_annotator_id_5d071d66", "annotation_assignment", "annotator_id"),
    ("annotation_assignment_campaign_id_88239973", "annotation_assignment", "campaign_id"),
]


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0007_pair_fresh_idx"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(f'DROP INDEX IF EXISTS "{name}"', f'CREATE INDEX "{name}" ON "{table}" ("{column}")')
                for name, table, column in INDEXES
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="assignment",
                    name="campaign",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="assignments", to="annotation.campaign"),
                ),
                migrations.AlterField(
                    model_name="assignment",
                    name="annotator",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="assignments", to=settings.AUTH_USER_MODEL),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(
                fields=["annotator", "finished_at"],
                condition=models.Q(("status__in", ["submitted", "skipped"])),
                name="assignment_annotator_done_idx",
            ),
        ),
    ]
