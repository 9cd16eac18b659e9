import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """The curation app's schema as its eight migrations left it."""

    initial = True

    # Every migration this one stands for: a database that applied them all records this one as applied and
    # runs nothing (the schema is the same); a new database runs this one only.
    replaces = [
        ("curation", "0001_initial"),
        ("curation", "0002_releases"),
        ("curation", "0003_consensus_ties_and_staleness"),
        ("curation", "0003_prefilter_as_published"),
        ("curation", "0004_merge_ties_and_prefilter"),
        ("curation", "0005_follow_split_apps"),
        ("curation", "0006_consensus_per_criterion"),
        ("curation", "0007_consensus_disputed_idx"),
    ]

    dependencies = [
        ('annotation', '0001_squashed'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Judge',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.SlugField(max_length=100, unique=True)),
                ('backend', models.CharField(choices=[('openai-chat', 'OpenAI-compatible chat completions'), ('reward-model', 'Reward-model HTTP endpoint'), ('python', 'Python callable')], max_length=32)),
                ('settings', models.JSONField(blank=True, default=dict, help_text='Endpoint, model, limits; secrets by env var name.')),
                ('enabled', models.BooleanField(default=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.CreateModel(
            name='Release',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.SlugField(max_length=100)),
                ('version', models.CharField(max_length=32)),
                ('status', models.CharField(choices=[('building', 'Building'), ('published', 'Published'), ('failed', 'Failed')], default='building', max_length=16)),
                ('params', models.JSONField(blank=True, default=dict, help_text='The frozen policy and parameters.')),
                ('storage', models.CharField(choices=[('local', 'Local disk'), ('s3', 'S3-compatible object storage')], default='local', max_length=8)),
                ('location', models.CharField(blank=True, max_length=500)),
                ('manifest_sha256', models.CharField(blank=True, max_length=64)),
                ('pairs_count', models.PositiveIntegerField(default=0)),
                ('files_count', models.PositiveIntegerField(default=0)),
                ('summary', models.JSONField(blank=True, default=dict, help_text='Counts and human agreement, as in the manifest.')),
                ('error', models.TextField(blank=True)),
                ('attempts', models.PositiveSmallIntegerField(default=0)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('published_at', models.DateTimeField(blank=True, null=True)),
                ('campaigns', models.ManyToManyField(related_name='releases', to='annotation.campaign')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='annotation.job')),
            ],
        ),
        migrations.CreateModel(
            name='JudgeEvaluation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('judge_name', models.CharField(max_length=200)),
                ('format', models.CharField(choices=[('mmrb2', 'MMRB2 forward/reverse judgements'), ('omnireward', 'Omni-Reward labels')], max_length=32)),
                ('scores', models.JSONField()),
                ('predictions_sha256', models.CharField(blank=True, max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('release', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='evaluations', to='curation.release')),
            ],
        ),
        migrations.CreateModel(
            name='ReleaseFile',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('path', models.CharField(help_text='Path inside the release.', max_length=500)),
                ('kind', models.CharField(choices=[('data', 'Data split'), ('media', 'Media file'), ('card', 'Dataset card'), ('changelog', 'Changelog')], default='data', max_length=16)),
                ('sha256', models.CharField(max_length=64)),
                ('size', models.PositiveBigIntegerField()),
                ('release', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='files', to='curation.release')),
            ],
        ),
        migrations.CreateModel(
            name='AgreementReport',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slice_key', models.CharField(blank=True, help_text="'' for the whole campaign, else e.g. source=wise.", max_length=200)),
                ('params', models.JSONField(blank=True, default=dict)),
                ('report', models.JSONField()),
                ('computed_at', models.DateTimeField(auto_now_add=True)),
                ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='agreement_reports', to='annotation.campaign')),
                ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='annotation.job')),
            ],
            options={
                'indexes': [models.Index(fields=['campaign', 'slice_key', '-computed_at'], name='agreement_trend_idx')],
            },
        ),
        migrations.CreateModel(
            name='ConsensusRecord',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('policy', models.CharField(max_length=64)),
                ('params', models.JSONField(blank=True, default=dict)),
                ('decision', models.CharField(choices=[('kept', 'Kept'), ('dropped', 'Dropped'), ('disputed', 'Disputed')], max_length=16)),
                ('chosen', models.CharField(blank=True, help_text='A, B or tie when kept.', max_length=8)),
                ('reason', models.CharField(blank=True, help_text='Reason code for a drop or dispute.', max_length=64)),
                ('details', models.JSONField(blank=True, default=dict)),
                ('criteria', models.JSONField(blank=True, default=list, help_text="Criteria questions: each criterion's own decision, chosen side and reason, in the pair's order (empty for other questions, and for a curator's decision, which holds for every criterion).")),
                ('stale_reason', models.CharField(blank=True, help_text='The curator action that changed the pair since; empty while current.', max_length=64)),
                ('basis_annotations', models.PositiveIntegerField(blank=True, help_text="The pair's annotation count when decided (unknown for older records).", null=True)),
                ('decided_at', models.DateTimeField(auto_now=True)),
                ('pair', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='consensus', to='annotation.pair')),
            ],
            options={
                'indexes': [models.Index(condition=models.Q(('decision', 'disputed')), fields=['pair'], name='consensus_disputed_idx')],
                'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('decision', 'kept'), _negated=True), ('chosen__in', ['A', 'B', 'tie']), _connector='OR'), name='consensus_kept_has_side')],
            },
        ),
        migrations.CreateModel(
            name='JudgeVerdict',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('order', models.CharField(choices=[('forward', 'As shown (A, B)'), ('swapped', 'Swapped (B, A)')], max_length=8)),
                ('verdict', models.CharField(choices=[('A', 'A'), ('B', 'B'), ('tie', 'Tie'), ('invalid', 'Invalid')], help_text='In canonical orientation.', max_length=8)),
                ('score', models.FloatField(blank=True, null=True)),
                ('confidence', models.FloatField(blank=True, null=True)),
                ('raw_output', models.TextField(blank=True)),
                ('latency_ms', models.PositiveIntegerField(blank=True, null=True)),
                ('prompt_tokens', models.PositiveIntegerField(blank=True, null=True)),
                ('completion_tokens', models.PositiveIntegerField(blank=True, null=True)),
                ('error', models.TextField(blank=True)),
                ('requests', models.PositiveSmallIntegerField(default=0, help_text='Requests sent to the judge for this verdict, retries included.')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('judge', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='verdicts', to='curation.judge')),
                ('pair', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judge_verdicts', to='annotation.pair')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('pair', 'judge', 'order'), name='verdict_once_per_order')],
            },
        ),
        migrations.AddConstraint(
            model_name='release',
            constraint=models.UniqueConstraint(fields=('name', 'version'), name='release_name_version'),
        ),
        migrations.AddConstraint(
            model_name='release',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('status', 'published'), _negated=True), models.Q(models.Q(('manifest_sha256', ''), _negated=True), ('published_at__isnull', False)), _connector='OR'), name='release_published_has_manifest'),
        ),
        migrations.AddIndex(
            model_name='judgeevaluation',
            index=models.Index(fields=['release', 'judge_name', '-created_at'], name='judge_evaluation_latest_idx'),
        ),
        migrations.AddConstraint(
            model_name='releasefile',
            constraint=models.UniqueConstraint(fields=('release', 'path'), name='release_file_path'),
        ),
    ]
