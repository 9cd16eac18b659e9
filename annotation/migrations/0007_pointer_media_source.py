"""Where each media file was first imported from (source dataset and path as imported), for pointer releases."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0006_user_email_unique'),
    ]

    operations = [
        migrations.AddField(
            model_name='media',
            name='source_dataset',
            field=models.CharField(
                blank=True, db_default='', default='', max_length=100,
                help_text='The source dataset (SourceDataset name) of the import that first brought the file; empty if none.'),
        ),
        migrations.AddField(
            model_name='media',
            name='source_path',
            field=models.CharField(
                blank=True, db_default='', default='', max_length=1024,
                help_text="The file's path as that import named it (relative to its media root or zip)."),
        ),
    ]
