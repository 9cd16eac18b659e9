import catalogue.models
import django.db.models.deletion
import django.db.models.expressions
import django.db.models.lookups
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """The catalogue's models, moved out of the ``annotation`` label when the apps were split.

    State only: the tables exist already (``annotation`` 0001–0015 made them) and keep their names.
    """

    initial = True

    dependencies = [
        ("annotation", "0015_merge_media_played"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Media',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('sha256', models.CharField(max_length=64, unique=True)),
                        ('kind', models.CharField(choices=[('image', 'Image'), ('video', 'Video'), ('audio', 'Audio'), ('model3d', '3D model')], max_length=16)),
                        ('mime_type', models.CharField(max_length=100)),
                        ('size', models.PositiveBigIntegerField()),
                        ('width', models.PositiveIntegerField(blank=True, null=True)),
                        ('height', models.PositiveIntegerField(blank=True, null=True)),
                        ('file', models.FileField(max_length=200, upload_to='')),
                        ('render_error', models.CharField(blank=True, db_default='', default='', help_text='Why no rendition could be made (annotators then get nothing).', max_length=300)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'verbose_name_plural': 'media',
                        'db_table': 'annotation_media',
                    },
                ),
                migrations.CreateModel(
                    name='SourceDataset',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.SlugField(help_text='Short id, e.g. mmrb2.', max_length=100, unique=True)),
                        ('title', models.CharField(max_length=200)),
                        ('license', models.CharField(help_text="Hugging Face licence id, e.g. cc-by-nc-4.0; 'other' if unknown.", max_length=64)),
                        ('url', models.CharField(blank=True, max_length=500)),
                        ('citation', models.TextField(blank=True, help_text='BibTeX.')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'annotation_sourcedataset',
                    },
                ),
                migrations.CreateModel(
                    name='Campaign',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('slug', models.SlugField(max_length=100, unique=True)),
                        ('name', models.CharField(max_length=200)),
                        ('kind', models.CharField(choices=[('text-to-image', 'Text to image'), ('image-editing', 'Image editing'), ('interleaved', 'Interleaved text and images'), ('reasoning', 'Thinking with images'), ('text-to-text', 'Text to text'), ('image-to-text', 'Image to text'), ('video-to-text', 'Video to text'), ('audio-to-text', 'Audio to text'), ('text-to-video', 'Text to video'), ('text-to-audio', 'Text to audio'), ('text-to-3d', 'Text to 3D')], max_length=32)),
                        ('overlap', models.PositiveSmallIntegerField(default=3)),
                        ('max_overlap', models.PositiveSmallIntegerField(default=5)),
                        ('lease_minutes', models.PositiveIntegerField(default=30)),
                        ('gold_rate', models.FloatField(default=0.0)),
                        ('requires_prefilter', models.BooleanField(default=False)),
                        ('requires_full_playback', models.BooleanField(default=False, help_text="A submit is refused until each response's (or the prompt's) audio or video was played to the end (98 %, for players that stop short).")),
                        ('prefilter_rule', models.JSONField(blank=True, default=dict)),
                        ('consensus_policy', models.CharField(blank=True, max_length=64)),
                        ('consensus_params', models.JSONField(blank=True, default=dict)),
                        ('instructions', models.TextField(blank=True)),
                        ('status', models.CharField(choices=[('draft', 'Draft'), ('active', 'Active'), ('paused', 'Paused'), ('archived', 'Archived')], default='active', max_length=16)),
                        ('orientation_seed', models.CharField(default=catalogue.models._orientation_seed, help_text='Seeds the left/right order shown per pair and annotator.', max_length=32)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('members', models.ManyToManyField(blank=True, related_name='campaigns', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_campaign',
                    },
                ),
                migrations.CreateModel(
                    name='Prompt',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('external_id', models.CharField(max_length=300)),
                        ('source', models.CharField(blank=True, help_text='Source benchmark, e.g. oneigbench.', max_length=100)),
                        ('source_task', models.CharField(blank=True, max_length=100)),
                        ('content', models.JSONField(blank=True, default=list, help_text='Ordered content blocks.')),
                        ('metadata', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='prompts', to='catalogue.campaign')),
                    ],
                    options={
                        'db_table': 'annotation_prompt',
                    },
                ),
                migrations.CreateModel(
                    name='RatingSchema',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('slug', models.SlugField(max_length=64)),
                        ('version', models.PositiveIntegerField(default=1)),
                        ('preset', models.CharField(blank=True, max_length=64)),
                        ('definition', models.JSONField()),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'annotation_ratingschema',
                        'constraints': [models.UniqueConstraint(fields=('slug', 'version'), name='rating_schema_slug_version')],
                    },
                ),
                migrations.AddField(
                    model_name='campaign',
                    name='rating_schema',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='campaigns', to='catalogue.ratingschema'),
                ),
                migrations.CreateModel(
                    name='Response',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('model_name', models.CharField(help_text='Visible to curators only.', max_length=200)),
                        ('content', models.JSONField(help_text='Ordered content blocks.')),
                        ('content_sha256', models.CharField(max_length=64)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('prompt', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='responses', to='catalogue.prompt')),
                    ],
                    options={
                        'db_table': 'annotation_response',
                    },
                ),
                migrations.CreateModel(
                    name='Pair',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('external_id', models.CharField(max_length=300)),
                        ('criteria', models.JSONField(blank=True, default=list, help_text='Free-form criteria, as in Omni-Reward.')),
                        ('metadata', models.JSONField(blank=True, default=dict, help_text="Curator-only facts from the source release, e.g. MMRB2's chosen side.")),
                        ('status', models.CharField(choices=[('pending', 'Awaiting pre-filter'), ('dropped_easy', 'Dropped by pre-filter'), ('queued', 'In the annotation queue'), ('complete', 'Fully annotated'), ('adjudication', 'Awaiting adjudication'), ('excluded', 'Excluded by a curator')], default='queued', max_length=16)),
                        ('status_reason', models.CharField(blank=True, max_length=200)),
                        ('priority', models.SmallIntegerField(default=0)),
                        ('required_annotations', models.PositiveSmallIntegerField(default=3)),
                        ('active_claims', models.PositiveSmallIntegerField(default=0)),
                        ('annotations_done', models.PositiveSmallIntegerField(default=0)),
                        ('is_gold', models.BooleanField(default=False)),
                        ('gold_answer', models.JSONField(blank=True, null=True)),
                        ('self_identification', models.JSONField(blank=True, db_default=models.Value([], output_field=models.JSONField()), default=list, help_text='Where a response names a model or its maker (catalogue.self_identification); masked for annotators.')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='pairs', to='catalogue.campaign')),
                        ('media', models.ManyToManyField(blank=True, help_text='Every file the pair shows.', related_name='pairs', to='catalogue.media')),
                        ('prompt', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pairs', to='catalogue.prompt')),
                        ('response_a', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='catalogue.response')),
                        ('response_b', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='catalogue.response')),
                    ],
                    options={
                        'db_table': 'annotation_pair',
                    },
                ),
                migrations.AddField(
                    model_name='campaign',
                    name='sources',
                    field=models.ManyToManyField(blank=True, help_text="Datasets this campaign's pairs were imported from.", related_name='campaigns', to='catalogue.sourcedataset'),
                ),
                migrations.AddConstraint(
                    model_name='prompt',
                    constraint=models.UniqueConstraint(fields=('campaign', 'external_id'), name='prompt_campaign_external_id'),
                ),
                migrations.AddConstraint(
                    model_name='response',
                    constraint=models.UniqueConstraint(fields=('prompt', 'model_name', 'content_sha256'), name='response_unique_content'),
                ),
                migrations.AddIndex(
                    model_name='pair',
                    index=models.Index(fields=['campaign', 'status', '-priority', 'id'], name='pair_queue_idx'),
                ),
                migrations.AddIndex(
                    model_name='pair',
                    index=models.Index(models.F('campaign'), models.F('is_gold'), models.OrderBy(models.F('priority'), descending=True), models.OrderBy(django.db.models.expressions.CombinedExpression(models.F('active_claims'), '+', models.F('annotations_done')), descending=True), models.F('id'), condition=models.Q(('status', 'queued'), django.db.models.lookups.LessThan(django.db.models.expressions.CombinedExpression(models.F('active_claims'), '+', models.F('annotations_done')), models.F('required_annotations'))), name='pair_claim_idx'),
                ),
                migrations.AddIndex(
                    model_name='pair',
                    index=models.Index(models.F('campaign'), models.F('is_gold'), models.OrderBy(models.F('priority'), descending=True), models.F('id'), condition=models.Q(('status', 'queued'), django.db.models.lookups.LessThan(django.db.models.expressions.CombinedExpression(models.F('active_claims'), '+', models.F('annotations_done')), models.F('required_annotations')), ('active_claims', 0), ('annotations_done', 0)), name='pair_fresh_idx'),
                ),
                migrations.AddConstraint(
                    model_name='pair',
                    constraint=models.UniqueConstraint(fields=('campaign', 'external_id'), name='pair_campaign_external_id'),
                ),
                migrations.AddConstraint(
                    model_name='pair',
                    constraint=models.CheckConstraint(condition=models.Q(('response_a', models.F('response_b')), _negated=True), name='pair_distinct_responses'),
                ),
                migrations.AddConstraint(
                    model_name='pair',
                    constraint=models.CheckConstraint(condition=models.Q(('active_claims__lte', django.db.models.expressions.CombinedExpression(models.F('required_annotations'), '-', models.F('annotations_done'))), ('active_claims', 0), _connector='OR'), name='pair_claims_within_overlap'),
                ),
                migrations.AddConstraint(
                    model_name='campaign',
                    constraint=models.CheckConstraint(condition=models.Q(('overlap__gte', 1)), name='campaign_overlap_positive'),
                ),
                migrations.AddConstraint(
                    model_name='campaign',
                    constraint=models.CheckConstraint(condition=models.Q(('max_overlap__gte', models.F('overlap'))), name='campaign_max_overlap_ge_overlap'),
                ),
                migrations.AddConstraint(
                    model_name='campaign',
                    constraint=models.CheckConstraint(condition=models.Q(('gold_rate__gte', 0), ('gold_rate__lte', 1)), name='campaign_gold_rate_share'),
                ),
            ],
        ),
    ]
