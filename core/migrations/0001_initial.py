import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """Jobs and the database cache's table, moved out of the ``annotation`` label when the apps were split.

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
                    name='CacheEntry',
                    fields=[
                        ('cache_key', models.CharField(max_length=255, primary_key=True, serialize=False)),
                        ('value', models.TextField()),
                        ('expires', models.DateTimeField(db_index=True)),
                    ],
                    options={
                        'db_table': 'concord_cache',
                    },
                ),
                migrations.CreateModel(
                    name='Job',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(max_length=32)),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='queued', max_length=16)),
                        ('params', models.JSONField(blank=True, default=dict)),
                        ('progress_done', models.PositiveBigIntegerField(default=0)),
                        ('progress_total', models.PositiveBigIntegerField(blank=True, null=True)),
                        ('result', models.JSONField(blank=True, null=True)),
                        ('error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('task_name', models.CharField(blank=True, max_length=100)),
                        ('task_args', models.JSONField(blank=True, default=list)),
                        ('task_id', models.CharField(blank=True, max_length=64)),
                        ('dispatches', models.PositiveSmallIntegerField(default=0)),
                        ('dispatched_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('campaign', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to='catalogue.campaign')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_job',
                        'indexes': [models.Index(fields=['campaign', 'kind', '-created_at'], name='job_campaign_kind_idx'), models.Index(condition=models.Q(('status__in', ['queued', 'running'])), fields=['status'], name='job_unfinished_idx')],
                    },
                ),
            ],
        ),
    ]
