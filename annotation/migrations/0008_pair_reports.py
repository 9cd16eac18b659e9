"""Pair reports: a rater's word that a pair is broken, and the curator's answer (issue 31)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0007_pointer_media_source'),
    ]

    operations = [
        migrations.CreateModel(
            name='PairReport',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.CharField(choices=[('media_broken', 'An image, video or audio is broken or does not load'), ('prompt_invalid', 'The prompt is invalid, unanswerable or offensive'), ('leaks_model', 'A response or the prompt gives away which model made it'), ('cannot_judge', 'The pair cannot be judged as asked'), ('other', 'Something else (say what)')], max_length=20)),
                ('note', models.TextField(blank=True)),
                ('status', models.CharField(choices=[('open', 'Open'), ('answered', 'Answered'), ('closed', 'Closed')], default='open', max_length=10)),
                ('answer', models.TextField(blank=True, help_text="The curator's answer, shown to the rater in My work.")),
                ('action', models.CharField(choices=[('none', 'No change to the pair'), ('excluded', 'Pair excluded'), ('fixed', 'Marked fixed')], default='none', max_length=10)),
                ('created_at', models.DateTimeField()),
                ('answered_at', models.DateTimeField(blank=True, null=True)),
                ('answered_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='pair_reports_answered', to=settings.AUTH_USER_MODEL)),
                ('assignment', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='report', to='annotation.assignment')),
                ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='pair_reports', to='annotation.campaign')),
                ('pair', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reports', to='annotation.pair')),
                ('reporter', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pair_reports', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['campaign', 'status', 'created_at'], name='pair_report_queue_idx')],
                'constraints': [models.CheckConstraint(condition=models.Q(('reason__in', ['media_broken', 'prompt_invalid', 'leaks_model', 'cannot_judge', 'other'])), name='pair_report_known_reason'), models.CheckConstraint(condition=models.Q(models.Q(('answered_at__isnull', True), ('status', 'open')), models.Q(models.Q(('status', 'open'), _negated=True), ('answered_at__isnull', False)), _connector='OR'), name='pair_report_answered_when_not_open')],
            },
        ),
    ]
