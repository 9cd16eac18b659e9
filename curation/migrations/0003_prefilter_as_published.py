"""The pre-filter as MMRB2 published it: each verdict counts its requests, and stored rules drop min_votes.

``majority`` now counts planned votes and takes no ``min_votes`` (the valid-votes rule is named
``majority-of-valid``). Every rule stored before carried ``min_votes`` because the rule's serialiser
wrote the default back, whether or not a curator chose it; a campaign (or an unfinished run) whose rule
is ``majority`` keeps its threshold and loses ``min_votes``, so it applies the published rule, as
curators named it. Finished runs keep the rule they were decided with, for the record.
"""

from django.db import migrations, models


def _published(rule):
    if isinstance(rule, dict) and rule.get("rule", "majority") == "majority" and "min_votes" in rule:
        return {key: value for key, value in rule.items() if key != "min_votes"}
    return None


def strip_min_votes(apps, schema_editor):
    Campaign = apps.get_model("annotation", "Campaign")
    Job = apps.get_model("annotation", "Job")
    for campaign in Campaign.objects.exclude(prefilter_rule={}).only("pk", "prefilter_rule"):
        rule = _published(campaign.prefilter_rule)
        if rule is not None:
            Campaign.objects.filter(pk=campaign.pk).update(prefilter_rule=rule)
    for job in Job.objects.filter(kind="prefilter").exclude(status="succeeded").only("pk", "params"):
        rule = _published((job.params or {}).get("rule"))
        if rule is not None:
            Job.objects.filter(pk=job.pk).update(params={**job.params, "rule": rule})


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0008_assignment_bounded_lookups'),
        ('curation', '0002_releases'),
    ]

    operations = [
        migrations.AddField(
            model_name='judgeverdict',
            name='requests',
            field=models.PositiveSmallIntegerField(default=0, help_text='Requests sent to the judge for this verdict, retries included.'),
        ),
        migrations.RunPython(strip_min_votes, migrations.RunPython.noop),
    ]
