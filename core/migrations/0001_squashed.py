from django.db import migrations, models


class Migration(migrations.Migration):
    """The database cache's table, as it was made under its old name (0002 renames it)."""

    initial = True

    # Every migration this one stands for: a database that applied them all records this one as applied and
    # runs nothing (the schema is the same); a new database runs this one only.
    replaces = [
        ("core", "0001_initial"),
    ]

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='CacheEntry',
            fields=[
                ('cache_key', models.CharField(max_length=255, primary_key=True, serialize=False)),
                ('value', models.TextField()),
                ('expires', models.DateTimeField(db_index=True)),
            ],
            options={'db_table': 'concord_cache'},
        ),
    ]
