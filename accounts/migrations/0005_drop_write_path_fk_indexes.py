"""Drop four single-column foreign-key indexes that every claim and submission maintained for nothing.

Each column leads a composite index that serves its lookups and its foreign-key cascades:
assignment.pair_id (assignment_once_per_annotator), annotation.pair_id (annotation_pair_idx),
assignmentevent.annotator_id and .campaign_id (assignment_event_annotator_idx, _campaign_idx).
Only the indexes are dropped: Django's AlterField would also drop and re-add (re-validate) the
foreign keys, a scan of each table under lock.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

INDEXES = [
    ("annotation_annotation_pair_id_4c47e4ae", "annotation_annotation", "pair_id"),
    ("annotation_assignment_pair_id_1e785fd7", "annotation_assignment", "pair_id"),
    ("annotation_assignmentevent_annotator_id_46a15b36", "annotation_assignmentevent", "annotator_id"),
    ("annotation_assignmentevent_campaign_id_154da394", "annotation_assignmentevent", "campaign_id"),
]


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0004_drop_covered_fk_indexes"),
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
                    model_name="annotation",
                    name="pair",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="annotations", to="annotation.pair"),
                ),
                migrations.AlterField(
                    model_name="assignment",
                    name="pair",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="assignments", to="annotation.pair"),
                ),
                migrations.AlterField(
                    model_name="assignmentevent",
                    name="annotator",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="assignment_events", to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name="assignmentevent",
                    name="campaign",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="assignment_events", to="annotation.campaign"),
                ),
            ],
        ),
    ]
