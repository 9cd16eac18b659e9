from django.db import migrations, models


def complete_stranded_pairs(apps, schema_editor):
    """Queued pairs that already hold all their ratings (left so by an overlap raised on a pair rated more than it
    asked for) are complete: nobody could claim them. Done before the constraint that forbids them."""
    Pair = apps.get_model("annotation", "Pair")
    Pair.objects.filter(status="queued", annotations_done__gte=models.F("required_annotations")).update(
        status="complete")


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0004_job_status_partial'),
    ]

    operations = [
        migrations.RunPython(complete_stranded_pairs, migrations.RunPython.noop, elidable=True),
        migrations.AddConstraint(
            model_name='pair',
            constraint=models.CheckConstraint(
                condition=models.Q(('status', 'queued'), _negated=True)
                | models.Q(('annotations_done__lt', models.F('required_annotations'))),
                name='pair_queued_misses_a_rating',
            ),
        ),
    ]
