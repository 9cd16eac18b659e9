import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """Curation's foreign keys follow the models that moved to ``catalogue`` and ``core``.

    State only: the columns and their constraints already point at the same tables.
    """

    dependencies = [
        ("catalogue", "0001_initial"),
        ("core", "0001_initial"),
        ("curation", "0004_merge_ties_and_prefilter"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='agreementreport',
                    name='campaign',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='agreement_reports', to='catalogue.campaign'),
                ),
                migrations.AlterField(
                    model_name='agreementreport',
                    name='job',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='core.job'),
                ),
                migrations.AlterField(
                    model_name='consensusrecord',
                    name='pair',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='consensus', to='catalogue.pair'),
                ),
                migrations.AlterField(
                    model_name='judgeverdict',
                    name='pair',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judge_verdicts', to='catalogue.pair'),
                ),
                migrations.AlterField(
                    model_name='release',
                    name='campaigns',
                    field=models.ManyToManyField(related_name='releases', to='catalogue.campaign'),
                ),
                migrations.AlterField(
                    model_name='release',
                    name='job',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='core.job'),
                ),
            ],
        ),
    ]
