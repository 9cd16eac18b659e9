from django.db import migrations


class Migration(migrations.Migration):
    """The database cache's table takes its app's name, ``core_cacheentry`` (it was ``concord_cache``)."""

    dependencies = [("core", "0001_squashed")]

    operations = [migrations.AlterModelTable(name="cacheentry", table=None)]
