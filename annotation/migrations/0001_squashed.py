import annotation.catalogue.models
import django.contrib.auth.models
import django.contrib.auth.validators
import django.db.models.deletion
import django.db.models.expressions
import django.db.models.lookups
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

# Full-text search over prompts (PostgreSQL): a stored search document per prompt and a GIN index on it, as
# 0009_prompt_text_search made them. ``concord_prompt_text(content)`` is the ``simple``-configuration tsvector of
# every ``text`` value of the content blocks; PostgreSQL generates the column, the ORM never writes it. On SQLite
# nothing is created and the pair browser falls back to a substring match.
PROMPT_TEXT_FUNCTION = """
CREATE OR REPLACE FUNCTION concord_prompt_text(content jsonb) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT to_tsvector('simple'::regconfig, coalesce(jsonb_path_query_array(content, '$[*].text')::text, '')) $$
"""


def prompt_search_create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = apps.get_model("annotation", "Prompt")._meta.db_table
    schema_editor.execute(PROMPT_TEXT_FUNCTION)
    schema_editor.execute(f'ALTER TABLE "{table}" ADD COLUMN IF NOT EXISTS "search_document" tsvector '
                          "GENERATED ALWAYS AS (concord_prompt_text(content)) STORED")
    schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "prompt_text_search_idx" ON "{table}" USING gin ("search_document")')


def prompt_search_drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = apps.get_model("annotation", "Prompt")._meta.db_table
    schema_editor.execute('DROP INDEX IF EXISTS "prompt_text_search_idx"')
    schema_editor.execute(f'ALTER TABLE "{table}" DROP COLUMN IF EXISTS "search_document"')
    schema_editor.execute("DROP FUNCTION IF EXISTS concord_prompt_text(jsonb)")


class Migration(migrations.Migration):
    """The ``annotation`` app's schema: accounts, catalogue, work queue and jobs, as 23 + 2 + 1 + 1 migrations left it."""

    initial = True

    # Every migration this one stands for: a database that applied them all records this one as applied and
    # runs nothing (the schema is the same); a new database runs this one only.
    replaces = [
        ("annotation", "0001_initial"),
        ("annotation", "0002_assignment"),
        ("annotation", "0002_importers"),
        ("annotation", "0003_merge_0002_assignment_0002_importers"),
        ("annotation", "0004_drop_covered_fk_indexes"),
        ("annotation", "0005_drop_write_path_fk_indexes"),
        ("annotation", "0006_user_session"),
        ("annotation", "0007_pair_fresh_idx"),
        ("annotation", "0008_assignment_bounded_lookups"),
        ("annotation", "0009_anonymous_rater_slots"),
        ("annotation", "0009_invitation"),
        ("annotation", "0009_job_dispatch_and_cache_fallback"),
        ("annotation", "0009_prompt_text_search"),
        ("annotation", "0009_renditions_self_identification_revisions"),
        ("annotation", "0009_source_datasets"),
        ("annotation", "0010_merge_slots_and_invitations"),
        ("annotation", "0011_merge_source_datasets"),
        ("annotation", "0012_merge_renditions"),
        ("annotation", "0013_merge_prompt_text_search"),
        ("annotation", "0014_media_played_and_full_playback"),
        ("annotation", "0014_merge_job_dispatch"),
        ("annotation", "0015_merge_media_played"),
        ("annotation", "0016_split_apps"),
        ("catalogue", "0001_initial"),
        ("catalogue", "0002_pair_browse_priority_idx"),
        ("workqueue", "0001_initial"),
        ("core", "0001_initial"),
    ]

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
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
        ),
        migrations.CreateModel(
            name='User',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('password', models.CharField(max_length=128, verbose_name='password')),
                ('last_login', models.DateTimeField(blank=True, null=True, verbose_name='last login')),
                ('is_superuser', models.BooleanField(default=False, help_text='Designates that this user has all permissions without explicitly assigning them.', verbose_name='superuser status')),
                ('username', models.CharField(error_messages={'unique': 'A user with that username already exists.'}, help_text='Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.', max_length=150, unique=True, validators=[django.contrib.auth.validators.UnicodeUsernameValidator()], verbose_name='username')),
                ('first_name', models.CharField(blank=True, max_length=150, verbose_name='first name')),
                ('last_name', models.CharField(blank=True, max_length=150, verbose_name='last name')),
                ('email', models.EmailField(blank=True, max_length=254, verbose_name='email address')),
                ('is_staff', models.BooleanField(default=False, help_text='Designates whether the user can log into this admin site.', verbose_name='staff status')),
                ('is_active', models.BooleanField(default=True, help_text='Designates whether this user should be treated as active. Unselect this instead of deleting accounts.', verbose_name='active')),
                ('date_joined', models.DateTimeField(default=django.utils.timezone.now, verbose_name='date joined')),
                ('role', models.CharField(choices=[('annotator', 'Annotator'), ('curator', 'Curator'), ('admin', 'Admin')], default='annotator', max_length=16)),
                ('groups', models.ManyToManyField(blank=True, help_text='The groups this user belongs to. A user will get all permissions granted to each of their groups.', related_name='user_set', related_query_name='user', to='auth.group', verbose_name='groups')),
                ('user_permissions', models.ManyToManyField(blank=True, help_text='Specific permissions for this user.', related_name='user_set', related_query_name='user', to='auth.permission', verbose_name='user permissions')),
            ],
            options={
                'verbose_name': 'user',
                'verbose_name_plural': 'users',
                'abstract': False,
            },
            managers=[
                ('objects', django.contrib.auth.models.UserManager()),
            ],
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
                ('orientation_seed', models.CharField(default=annotation.catalogue.models._orientation_seed, help_text='Seeds the left/right order shown per pair and annotator.', max_length=32)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('members', models.ManyToManyField(blank=True, related_name='campaigns', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='Invitation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('token_sha256', models.CharField(max_length=64, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('expires_at', models.DateTimeField()),
                ('used_at', models.DateTimeField(blank=True, null=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to=settings.AUTH_USER_MODEL)),
            ],
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
                ('self_identification', models.JSONField(blank=True, db_default=models.Value([], output_field=models.JSONField()), default=list, help_text='Where a response names a model or its maker (annotation.catalogue.self_identification); masked for annotators.')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='pairs', to='annotation.campaign')),
                ('media', models.ManyToManyField(blank=True, help_text='Every file the pair shows.', related_name='pairs', to='annotation.media')),
            ],
        ),
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
                ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to='annotation.campaign')),
                ('pair', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to='annotation.pair')),
            ],
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
                ('assignment', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='annotation.assignment')),
                ('pair', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='annotations', to='annotation.pair')),
            ],
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
                ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='prompts', to='annotation.campaign')),
            ],
        ),
        migrations.AddField(
            model_name='pair',
            name='prompt',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pairs', to='annotation.prompt'),
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
                'constraints': [models.UniqueConstraint(fields=('slug', 'version'), name='rating_schema_slug_version')],
            },
        ),
        migrations.AddField(
            model_name='campaign',
            name='rating_schema',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='campaigns', to='annotation.ratingschema'),
        ),
        migrations.CreateModel(
            name='Response',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('model_name', models.CharField(help_text='Visible to curators only.', max_length=200)),
                ('content', models.JSONField(help_text='Ordered content blocks.')),
                ('content_sha256', models.CharField(max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('prompt', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='responses', to='annotation.prompt')),
            ],
        ),
        migrations.AddField(
            model_name='pair',
            name='response_a',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation.response'),
        ),
        migrations.AddField(
            model_name='pair',
            name='response_b',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation.response'),
        ),
        migrations.AddField(
            model_name='campaign',
            name='sources',
            field=models.ManyToManyField(blank=True, help_text="Datasets this campaign's pairs were imported from.", related_name='campaigns', to='annotation.sourcedataset'),
        ),
        migrations.CreateModel(
            name='UserSession',
            fields=[
                ('session_key', models.CharField(max_length=40, primary_key=True, serialize=False, verbose_name='session key')),
                ('session_data', models.TextField(verbose_name='session data')),
                ('expire_date', models.DateTimeField(db_index=True, verbose_name='expire date')),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'session',
                'verbose_name_plural': 'sessions',
                'abstract': False,
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
                ('assignment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='annotation.assignment')),
            ],
            options={
                'indexes': [models.Index(fields=['assignment', 'at'], name='annotation_revision_idx')],
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
                ('assignment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='events', to='annotation.assignment')),
                ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='assignment_events', to='annotation.campaign')),
            ],
            options={
                'indexes': [models.Index(fields=['annotator', 'kind', 'at'], name='assignment_event_annotator_idx'), models.Index(fields=['campaign', 'kind', 'at'], name='assignment_event_campaign_idx')],
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
                ('campaign', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to='annotation.campaign')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['campaign', 'kind', '-created_at'], name='job_campaign_kind_idx'), models.Index(condition=models.Q(('status__in', ['queued', 'running'])), fields=['status'], name='job_unfinished_idx')],
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
            index=models.Index(fields=['campaign', 'priority', 'id'], name='pair_browse_priority_idx'),
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
        # Full-text search over prompts, on PostgreSQL only.
        migrations.RunPython(prompt_search_create, prompt_search_drop, elidable=False),
    ]
