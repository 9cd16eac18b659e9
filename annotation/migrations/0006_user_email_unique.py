"""One account per e-mail address under any capitalisation, held by the database as the service already held it.

Accounts made before the service refused duplicates may share an address: the migration then stops and names
them, and changes nothing, so an operator gives each its own address (People page) and migrates again."""

import django.db.models.functions.text
from django.db import migrations, models
from django.db.models import Count
from django.db.models.functions import Lower


def refuse_shared_addresses(apps, schema_editor):
    User = apps.get_model("annotation", "User")
    shared = (User.objects.exclude(email="").annotate(address=Lower("email")).values("address")
              .annotate(n=Count("id")).filter(n__gt=1).order_by("address"))
    problems = []
    for row in shared[:20]:
        names = User.objects.filter(email__iexact=row["address"]).order_by("username").values_list("username", flat=True)
        problems.append(f"{row['address']}: {', '.join(names)}")
    if problems:
        raise RuntimeError("these accounts share an e-mail address; give each its own address and migrate again: "
                           + "; ".join(problems))


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0005_pair_status_follows_counts'),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.RunPython(refuse_shared_addresses, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('email'), condition=models.Q(('email', ''), _negated=True), name='user_email_unique_ci'),
        ),
    ]
