"""The soft warnings a rater confirmed before submitting (issue 31: consistency warnings before submit)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0010_qualify_calibration'),
    ]

    operations = [
        migrations.AddField(
            model_name='annotation',
            name='confirmed_warnings',
            field=models.JSONField(
                blank=True, null=True,
                help_text='The soft warnings (annotation.workqueue.consistency) the rater was shown before submitting '
                'and confirmed, submitting the answers as they were; worded as shown. Empty when none was shown.',
            ),
        ),
    ]
