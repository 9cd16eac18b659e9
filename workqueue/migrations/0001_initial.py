import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """The work queue's models, moved out of the ``annotation`` label when the apps were split.

    State only: the tables exist already (``annotation`` 0001–0015 made them) and keep their names.
    """

    initial = True

    dependencies = [
        ("annotation", "0015_merge_media_played"),
        ("catalogue", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Assignment',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('active', 'Active'), ('submitted', 'Submitted'), ('skipped', 'Skipped'), ('expired', 'Expired'), ('withdrawn', 'Withdrawn by the annotator')], default='active', max_length=16)),
                        ('swapped', models.BooleanField(help_text='Response B was shown on the left.')),
                        ('claimed_at', models.DateTimeField()),
                        ('expires_at', models.DateTimeField()),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('skip_reason', models.CharField(blank=True, max_length=500)),
                        ('draft', models.JSONField(blank=True, default=dict)),
                        ('draft_saved_at', models.DateTimeField(blank=True, null=True)),
                        ('annotator', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to=settings.AUTH_USER_MODEL)),
                        ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to='catalogue.campaign')),
                        ('pair', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to='catalogue.pair')),
                    ],
                    options={
                        'db_table': 'annotation_assignment',
                    },
                ),
                migrations.CreateModel(
                    name='AnnotationRevision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('submitted', 'Submitted'), ('corrected', 'Corrected'), ('withdrawn', 'Withdrawn')], max_length=16)),
                        ('values', models.JSONField(help_text='The answers of this version, canonical orientation; empty on a withdrawal.')),
                        ('rationale', models.TextField(blank=True)),
                        ('at', models.DateTimeField()),
                        ('assignment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='workqueue.assignment')),
                    ],
                    options={
                        'db_table': 'annotation_annotationrevision',
                    },
                ),
                migrations.CreateModel(
                    name='Annotation',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('source', models.CharField(choices=[('concord', 'Rated in Concord'), ('imported', 'Imported'), ('adjudication', 'Curator adjudication')], default='concord', max_length=16)),
                        ('rater_label', models.CharField(blank=True, help_text='Pseudonymous rater of an imported rating.', max_length=100)),
                        ('values', models.JSONField(help_text='Answers keyed by question id, canonical orientation.')),
                        ('shown_swapped', models.BooleanField(blank=True, null=True)),
                        ('rationale', models.TextField(blank=True)),
                        ('time_on_item_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('media_played', models.JSONField(blank=True, help_text='Share of each medium heard or watched, canonical orientation, e.g. {"A": 1.0, "B": 0.8}; empty when the pair has no audio or video.', null=True)),
                        ('gold_correct', models.BooleanField(blank=True, help_text='On a gold pair: whether the answer matched the expected one; else empty.', null=True)),
                        ('idempotency_key', models.CharField(blank=True, max_length=100, null=True, unique=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('annotator', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='annotations', to=settings.AUTH_USER_MODEL)),
                        ('pair', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='annotations', to='catalogue.pair')),
                        ('assignment', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='workqueue.assignment')),
                    ],
                    options={
                        'db_table': 'annotation_annotation',
                    },
                ),
                migrations.CreateModel(
                    name='AssignmentEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('claim', 'Claimed'), ('draft', 'Draft saved'), ('submit', 'Submitted'), ('skip', 'Skipped'), ('expire', 'Lease expired'), ('correct', 'Corrected'), ('withdraw', 'Withdrawn')], max_length=16)),
                        ('at', models.DateTimeField()),
                        ('detail', models.JSONField(blank=True, default=dict, help_text='Skip reason, time on item, gold outcome.')),
                        ('annotator', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignment_events', to=settings.AUTH_USER_MODEL)),
                        ('assignment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='events', to='workqueue.assignment')),
                        ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignment_events', to='catalogue.campaign')),
                    ],
                    options={
                        'db_table': 'annotation_assignmentevent',
                    },
                ),
                migrations.AddIndex(
                    model_name='assignment',
                    index=models.Index(fields=['status', 'expires_at'], name='assignment_lease_idx'),
                ),
                migrations.AddIndex(
                    model_name='assignment',
                    index=models.Index(condition=models.Q(('status', 'active')), fields=['campaign', 'expires_at'], name='assignment_campaign_lease_idx'),
                ),
                migrations.AddIndex(
                    model_name='assignment',
                    index=models.Index(condition=models.Q(('status__in', ['submitted', 'skipped'])), fields=['annotator', 'finished_at'], name='assignment_annotator_done_idx'),
                ),
                migrations.AddConstraint(
                    model_name='assignment',
                    constraint=models.UniqueConstraint(fields=('pair', 'annotator'), name='assignment_once_per_annotator'),
                ),
                migrations.AddConstraint(
                    model_name='assignment',
                    constraint=models.UniqueConstraint(condition=models.Q(('status', 'active')), fields=('annotator', 'campaign'), name='assignment_one_active_per_campaign'),
                ),
                migrations.AddIndex(
                    model_name='annotationrevision',
                    index=models.Index(fields=['assignment', 'at'], name='annotation_revision_idx'),
                ),
                migrations.AddIndex(
                    model_name='annotation',
                    index=models.Index(fields=['pair', 'created_at'], name='annotation_pair_idx'),
                ),
                migrations.AddConstraint(
                    model_name='annotation',
                    constraint=models.UniqueConstraint(condition=models.Q(('annotator__isnull', False)), fields=('pair', 'annotator'), name='annotation_once_per_annotator'),
                ),
                migrations.AddConstraint(
                    model_name='annotation',
                    constraint=models.UniqueConstraint(condition=models.Q(('rater_label', ''), _negated=True), fields=('pair', 'rater_label'), name='annotation_once_per_imported_rater'),
                ),
                migrations.AddIndex(
                    model_name='assignmentevent',
                    index=models.Index(fields=['annotator', 'kind', 'at'], name='assignment_event_annotator_idx'),
                ),
                migrations.AddIndex(
                    model_name='assignmentevent',
                    index=models.Index(fields=['campaign', 'kind', 'at'], name='assignment_event_campaign_idx'),
                ),
            ],
        ),
    ]
